package stats

import "time"

// Diagnosis is gb's reading of the server's profiles (--profile): what
// bounds the server, and the facts behind it, each per request. Every
// part is optional: a part whose profile was not captured is nil (or
// empty) and Missing says what to add. Function names come from the
// server: renderers must sanitise them.
type Diagnosis struct {
	// Bound is the cause that bounds the server now: "user_cpu",
	// "http_stack", "gc", "scheduler", "syscalls", "runtime", "other",
	// "contention", "scheduling", "goroutine_leak", or "" when nothing
	// was measured.
	Bound string `json:"bound"`
	// Verdict is Bound as one sentence a developer acts on.
	Verdict    string               `json:"verdict"`
	CPU        *DiagnosisCPU        `json:"cpu,omitempty"`
	GC         *DiagnosisGC         `json:"gc,omitempty"`
	Contention []DiagnosisWait      `json:"contention,omitempty"` // the user code's waits, largest first
	Goroutines *DiagnosisGoroutines `json:"goroutines,omitempty"`
	Scheduling *DiagnosisScheduling `json:"scheduling,omitempty"` // from the execution trace (--profile with trace)
	Missing    []string             `json:"missing,omitempty"`    // what was not captured, and how to add it
}

// DiagnosisCPU is the server's CPU time split by cause.
type DiagnosisCPU struct {
	PerRequest time.Duration `json:"per_request_ns"` // server CPU per response (as the profile section's per request)
	Classes    []CPUClass    `json:"classes"`        // largest first; classes without samples left out
}

// CPUClass is one cause's part of the server's CPU.
type CPUClass struct {
	// Class is "user_cpu", "http_stack", "gc", "alloc", "scheduler",
	// "syscalls", "runtime", "other", or "profiling" (the server answering
	// gb's own profile requests: shown, never the bound).
	Class      string        `json:"class"`
	PerRequest time.Duration `json:"per_request_ns"` // CPU of this class per response
	Share      float64       `json:"share"`          // of the sampled CPU, 0..1
	Top        string        `json:"top,omitempty"`  // the function that classified most of it (untrusted)
}

// DiagnosisGC is what the server allocated and what its GC cost.
type DiagnosisGC struct {
	BytesPerRequest   float64 `json:"bytes_per_request"`
	ObjectsPerRequest float64 `json:"objects_per_request"`
	// CyclesPer1000 is GC cycles per 1 000 responses; -1 when unknown
	// (no memstats).
	CyclesPer1000 float64 `json:"cycles_per_1000"`
	// MaxPause is the longest GC pause during the load (memstats); 0
	// when unknown or without a cycle.
	MaxPause time.Duration `json:"max_pause_ns,omitempty"`
	Source   string        `json:"source"` // "memstats" (exact) or "allocs_profile" (sampled estimate)
	// CPUShare is GC work plus allocation as a share of the server's
	// CPU (0..1); -1 without a CPU profile.
	CPUShare float64     `json:"cpu_share"`
	Sites    []AllocSite `json:"sites,omitempty"` // user code's allocation sites, largest first (when GC is a large share)
}

// AllocSite is one function of the user's code and what it allocated.
type AllocSite struct {
	Function        string  `json:"function"` // untrusted
	BytesPerRequest float64 `json:"bytes_per_request"`
	Share           float64 `json:"share"` // of the bytes allocated in the allocs profile, 0..1
}

// DiagnosisWait is where the user's code waited on a lock or channel.
type DiagnosisWait struct {
	Kind       string        `json:"kind"` // "mutex" or "block"
	Site       string        `json:"site"` // the innermost function of the user's code on the stack (untrusted)
	PerRequest time.Duration `json:"per_request_ns"`
	Events     int64         `json:"events"` // contentions (mutex) or blocking events (block)
}

// DiagnosisGoroutines is the server's goroutine count around the load;
// a count of -1 was not measured.
type DiagnosisGoroutines struct {
	Before int64             `json:"before"`
	During int64             `json:"during"`
	After  int64             `json:"after"`
	Leak   bool              `json:"leak"`           // the count stayed up: a possible leak
	Grew   []GoroutineGrowth `json:"grew,omitempty"` // the stacks that grew most, when Leak
}

// GoroutineGrowth is one stack whose goroutines grew over the load.
type GoroutineGrowth struct {
	Stack string `json:"stack"` // innermost user function first, " < " between frames (untrusted)
	Added int64  `json:"added"`
}

// DiagnosisScheduling is the scheduler as the server's execution trace
// shows it (the trace covers the load's first second or less: Traced).
// Goroutines are told apart by their stacks: serving goroutines have
// net/http or golang.org/x/net/http2 on their stack (connection and
// handler goroutines, their background reads, the accept loop); the
// runtime's are those whose outermost function is the runtime's (GC
// workers, the sweeper...); those with runtime/trace, runtime/pprof or
// net/http/pprof on their stack answer gb's own profile requests; the
// rest are the server's other goroutines.
type DiagnosisScheduling struct {
	Traced time.Duration `json:"traced_ns"` // wall time from the first event analysed to the last
	Procs  int           `json:"procs"`     // the most Ps seen at once (GOMAXPROCS)
	Events int64         `json:"events"`    // events analysed
	// Waits counts the runnable→running transitions measured (a
	// goroutine already runnable when the trace began is not); WaitP50,
	// WaitP99 and WaitMax are their latencies, over every goroutine: how
	// long a runnable goroutine waited for a P.
	Waits   int64         `json:"waits"`
	WaitP50 time.Duration `json:"wait_p50_ns"`
	WaitP99 time.Duration `json:"wait_p99_ns"`
	WaitMax time.Duration `json:"wait_max_ns"`
	// STW counts the stop-the-world pauses in the trace (GC and others);
	// STWTotal is their sum and STWMax the longest.
	STW      int64         `json:"stw"`
	STWTotal time.Duration `json:"stw_total_ns"`
	STWMax   time.Duration `json:"stw_max_ns"`
	// ServingWait is the serving goroutines' runnable→running time in the
	// trace, summed.
	ServingWait time.Duration `json:"serving_wait_ns"`
	// RequestWait is ServingWait per response: the time a request's
	// goroutines waited for a P, per request (the trace's responses
	// estimated as the load's × the share of the load the trace
	// covered); -1 when unknown (no requests).
	RequestWait time.Duration `json:"request_wait_per_request_ns"`
	// Starving is the part of RequestWait that the server's other
	// goroutines caused: RequestWait × OtherShare. It is what the
	// diagnosis ranks against the other causes' costs per request.
	Starving time.Duration `json:"starving_per_request_ns"`
	// ServingShare and OtherShare are the serving goroutines' and the
	// server's other goroutines' shares of the time goroutines ran (the
	// runtime's and the profiling ones make up the rest), 0..1.
	ServingShare float64 `json:"serving_share"`
	OtherShare   float64 `json:"other_share"`
	// Busy is the share of the Ps' time spent running (0..1);
	// IdleWhileRunnable is the share of the Ps' time spent idle while a
	// goroutine was runnable (P·time idle while the run queue was not
	// empty, counting at most one idle P per runnable goroutine): work
	// the scheduler had but did not hand out. Starved is the share of
	// the traced wall time in which every P ran and at least one
	// goroutine waited for one.
	Busy              float64 `json:"busy"`
	IdleWhileRunnable float64 `json:"idle_while_runnable"`
	Starved           float64 `json:"starved"`
	// Truncated says why the analysis stopped before the trace's end (a
	// cap of gb's, a trace cut short); "" when it read it all.
	Truncated string `json:"truncated,omitempty"`
}
