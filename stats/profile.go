package stats

import "time"

// ServerProfile is what gb learned about the server from its pprof and
// expvar endpoints while the load ran (--profile). Every part is optional:
// a part that could not be captured is nil and says why in Notes. Values
// read from the server are untrusted: renderers must sanitise the strings.
type ServerProfile struct {
	URL      string         `json:"url"`               // pprof base URL, credentials redacted
	Kinds    []string       `json:"kinds"`             // profiles asked for, e.g. ["cpu", "allocs"]
	Requests int64          `json:"requests"`          // responses the load received (the per-request divisor)
	CPU      *ServerCPU     `json:"cpu,omitempty"`     // nil without a CPU profile
	Allocs   *ProfileTop    `json:"allocs,omitempty"`  // where the server allocated (alloc_space) during the load
	Runtime  *ServerRuntime `json:"runtime,omitempty"` // nil when /debug/vars has no memstats
	Files    []ProfileFile  `json:"files,omitempty"`   // what was saved, in Kinds order
	Notes    []string       `json:"notes,omitempty"`   // what could not be captured, and why
	Dir      string         `json:"dir,omitempty"`     // where the files are

	// AllocObjects is the allocs profile's alloc_objects total over the
	// load: objects allocated, estimated from the sampled profile (the
	// fallback when Runtime is nil); 0 without an allocs profile.
	AllocObjects int64 `json:"alloc_objects,omitempty"`

	// Diagnosis reads the profiles: what bounds the server; nil when
	// nothing was captured.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
}

// ServerCPU is the server's CPU profile over the load: back-to-back
// windows of the target's /debug/pprof/profile, merged.
type ServerCPU struct {
	Windows  int           `json:"windows"`     // windows merged
	Profiled time.Duration `json:"profiled_ns"` // wall time the windows cover, summed (the profile's duration)
	Covered  time.Duration `json:"covered_ns"`  // the part of the load the windows cover
	Load     time.Duration `json:"load_ns"`     // the load's wall time as the capture saw it
	Cores    float64       `json:"cores"`       // CPU time sampled ÷ Covered: cores the server used under load
	Top      ProfileTop    `json:"top"`         // the top functions by flat CPU time (go tool pprof -top)
	TopCum   ProfileTop    `json:"top_cum"`     // the top functions by cumulative CPU time (go tool pprof -top -cum), twice as many
	// Own is the "your code" view, as many rows as TopCum: by cum, the
	// functions outside Go's standard library and runtime, and the
	// library functions they call (Callee rows, whose values count only
	// the samples below the innermost frame of the target's code).
	Own ProfileTop `json:"own"`
}

// ProfileTop is the head of `go tool pprof -top` (or `-top -cum`) for one
// sample type: functions by flat value (descending, then by name, then by
// cum) or by cum (descending, then by name, then by flat), with the values
// pprof prints for the saved file. Functions whose cum is below half a
// percent of the total are left out, as pprof does.
type ProfileTop struct {
	SampleType string            `json:"sample_type"` // e.g. "cpu", "alloc_space"
	Unit       string            `json:"unit"`        // e.g. "nanoseconds", "bytes"
	Total      int64             `json:"total"`       // sum of the sample values (absolute)
	Command    string            `json:"command"`     // the pprof command that prints the same rows from the saved file
	Functions  []ProfileFunction `json:"functions"`
}

// ProfileFunction is one row of a ProfileTop, in the top's unit.
type ProfileFunction struct {
	Name string `json:"name"` // function name as the profile has it (untrusted)
	Flat int64  `json:"flat"` // samples whose innermost frame is this function
	Cum  int64  `json:"cum"`  // samples with this function anywhere on the stack
	// Callee marks a row of the "your code" view (ServerCPU.Own) that is
	// a standard-library function called by the target's code: Flat and
	// Cum then count only the samples in which it is the direct callee of
	// the innermost frame of the target's code.
	Callee bool `json:"callee,omitempty"`
}

// ServerRuntime is the change of the server's runtime.MemStats (from
// expvar's /debug/vars) between just before and just after the load. It
// includes what the server spent on answering gb's profile requests.
type ServerRuntime struct {
	AllocBytes   int64         `json:"alloc_bytes"`      // TotalAlloc delta: bytes allocated
	AllocObjects int64         `json:"alloc_objects"`    // Mallocs delta: objects allocated
	GCCycles     int64         `json:"gc_cycles"`        // NumGC delta
	GCPause      time.Duration `json:"gc_pause_ns"`      // PauseTotalNs delta: stop-the-world pause
	HeapAlloc    int64         `json:"heap_alloc_bytes"` // live heap after the load
	// GCMaxPause is the longest stop-the-world pause of the load's GC
	// cycles (of their last 256); 0 without a cycle.
	GCMaxPause time.Duration `json:"gc_max_pause_ns,omitempty"`
}

// ProfileFile is one saved file and the command that opens it.
type ProfileFile struct {
	Kind string `json:"kind"` // "cpu", "heap", "allocs", "goroutine", "block", "mutex" or "trace"
	Path string `json:"path"`
	Open string `json:"open"` // e.g. "go tool pprof -http=127.0.0.1:0 gb-profiles/…/cpu.pb.gz"
}

// AllocPerRequest returns what the server allocated per response during
// the load, in bytes and objects: exact from expvar's memstats (Runtime)
// when the server has them, else estimated (estimated true) from the
// sampled allocs profile (Allocs in bytes and AllocObjects). ok is false
// without requests or either source.
func (p *ServerProfile) AllocPerRequest() (bytes, objects float64, estimated, ok bool) {
	if p == nil || p.Requests <= 0 {
		return 0, 0, false, false
	}
	n := float64(p.Requests)
	switch {
	case p.Runtime != nil:
		return float64(p.Runtime.AllocBytes) / n, float64(p.Runtime.AllocObjects) / n, false, true
	case p.Allocs != nil && p.Allocs.Unit == "bytes":
		return float64(p.Allocs.Total) / n, float64(p.AllocObjects) / n, true, true
	}
	return 0, 0, false, false
}
