package evloop

import "context"

type taskKey struct{}

// WithTask returns ctx carrying t, for code that dials on the task's behalf.
func WithTask(ctx context.Context, t *Task) context.Context {
	return context.WithValue(ctx, taskKey{}, t)
}

// FromContext returns the task that ctx carries, or nil.
func FromContext(ctx context.Context) *Task {
	t, _ := ctx.Value(taskKey{}).(*Task)
	return t
}
