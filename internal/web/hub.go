package web

import "sync"

// Bounds of what watchers may hold. A watcher is one open /events stream.
const (
	// MaxWatchers is how many /events streams are served at once; one
	// more is refused (503).
	MaxWatchers = 16
	// watcherQueue is how many events wait for a watcher that has not
	// taken them; one more disconnects it (the publisher never waits).
	watcherQueue = 32
	// historyLen is how many samples of the run a new watcher is sent
	// first (an hour of seconds); older ones are dropped.
	historyLen = 3600
)

// hub hands every event to every watcher without ever waiting for one:
// each has a bounded queue, and a watcher whose queue is full is dropped.
type hub struct {
	mu       sync.Mutex
	history  [][]byte // the run's sample events, oldest first, at most historyLen
	end      []byte   // the end event; nil while the run goes on
	watchers map[*watcher]struct{}
}

// watcher is one /events stream: its queue and whether the hub dropped it.
type watcher struct {
	queue   chan []byte   // events not yet written
	dropped chan struct{} // closed when the hub drops it (too slow)
}

func newHub() *hub { return &hub{watchers: map[*watcher]struct{}{}} }

// join adds a watcher and returns it with the events it must write first
// (the run so far, and the end if the run ended: then ended is true and
// nothing more comes); nil when MaxWatchers are already served.
func (h *hub) join() (w *watcher, first [][]byte, ended bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.watchers) >= MaxWatchers {
		return nil, nil, false
	}
	w = &watcher{queue: make(chan []byte, watcherQueue), dropped: make(chan struct{})}
	h.watchers[w] = struct{}{}
	first = append([][]byte(nil), h.history...)
	if h.end != nil {
		first = append(first, h.end)
	}
	return w, first, h.end != nil
}

// leave removes w (its stream ended).
func (h *hub) leave(w *watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.watchers, w)
}

// newRun forgets the previous run's samples (the next run of --repeat).
func (h *hub) newRun() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.history, h.end = nil, nil
}

// publish hands the sample event ev to every watcher and keeps it for
// later ones. It never blocks.
func (h *hub) publish(ev []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.history) == historyLen {
		h.history = append(h.history[:0], h.history[1:]...)
	}
	h.history = append(h.history, ev)
	h.send(ev)
}

// finish hands the end event ev to every watcher and keeps it for later
// ones; it returns how many watchers it reached. It never blocks.
func (h *hub) finish(ev []byte) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.end = ev
	return h.send(ev)
}

// send queues ev for every watcher, dropping those whose queue is full;
// it returns how many it queued ev for. Under mu.
func (h *hub) send(ev []byte) int {
	n := 0
	for w := range h.watchers {
		select {
		case w.queue <- ev:
			n++
		default: // too slow: it gets no more
			delete(h.watchers, w)
			close(w.dropped)
		}
	}
	return n
}
