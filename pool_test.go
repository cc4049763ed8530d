package gb

import (
	"context"
	"testing"
	"time"
)

// TestStepContext: a pooled client's context follows the step in
// progress, so cancelling a step's context ends its dials and a new step
// starts afresh.
func TestStepContext(t *testing.T) {
	var sc stepContext
	if sc.Err() != nil || sc.Done() != nil {
		t.Fatal("an unset step context is not Background")
	}
	first, cancel := context.WithCancel(context.Background())
	sc.follow(first)
	dctx, dcancel := context.WithTimeout(&sc, time.Hour) // what a TLS handshake derives
	defer dcancel()
	cancel()
	select {
	case <-dctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the step did not reach a context derived from the pool's")
	}
	sc.follow(context.Background())
	if sc.Err() != nil {
		t.Errorf("next step: %v", sc.Err())
	}
}
