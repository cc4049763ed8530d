package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/stats"
)

// TestClientCores: gb's CPU in cores is its CPU time over the wall time
// it was read over (client.cpu_window_ns), not over the measured load's
// elapsed time: a short load whose setup and teardown gb's CPU also
// covers showed "cpu=6.82 cores (of 1)" and blamed gb for a bottleneck.
// A result without the window (an older gb's) keeps CPU over elapsed.
func TestClientCores(t *testing.T) {
	r := fakerun.Build(fakerun.KeepAliveSpec())
	r.Elapsed = 150 * time.Millisecond
	r.Client = stats.Client{CPU: 1023 * time.Millisecond, CPUWindow: 1500 * time.Millisecond, MaxProcs: 1, Engine: "loop"}
	text := textOf(t, r)
	if !strings.Contains(text, "client:               engine=loop cpu=0.68 cores (of 1) ") {
		t.Errorf("client line:\n%s", text)
	}
	if strings.Contains(text, "the client may be the bottleneck") {
		t.Errorf("a self-bottleneck warning at 0.68 of 1 core:\n%s", text)
	}
	r.Client.CPUWindow = 0
	if text := textOf(t, r); !strings.Contains(text, "cpu=6.82 cores (of 1)") {
		t.Errorf("a result without cpu_window_ns:\n%s", text)
	}
}
