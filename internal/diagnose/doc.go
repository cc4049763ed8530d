// Package diagnose reads the profiles gb captured from a Go server
// (internal/profile) and says what bounds the server: its own code, the
// standard library's HTTP path, GC and allocation, the scheduler,
// syscalls, lock and channel waits, or a goroutine leak, each as time
// (or bytes) per request with its share.
//
// A [Builder] takes each profile as the capture has it, keeps only small
// summaries (never the profile), and [Builder.Done] ranks them into a
// [stats.Diagnosis].
//
// # How CPU samples are classified
//
// Each CPU sample goes to one class, decided on its stack, innermost
// frame first, the way pprof's flat column decides a function:
//
//  0. profiling: the stack holds net/http/pprof or runtime/pprof: the
//     server answering gb's own profile requests. It is shown, never
//     ranked, and such stacks count in no allocation, wait or goroutine
//     site either.
//  1. gc: the stack holds a GC worker or assist (runtime.gcBgMarkWorker,
//     runtime.gcAssistAlloc*, runtime.bgsweep, runtime.bgscavenge,
//     runtime.gcMarkTermination...).
//  2. The frames of package runtime (and internal/runtime/*,
//     internal/bytealg) innermost are the runtime's own part: alloc when
//     they hold runtime.mallocgc; else scheduler when they hold
//     runtime.schedule, findRunnable, park_m, gopark, goschedImpl... (the
//     idle scheduler's netpoll is the scheduler's); else syscalls when
//     they hold runtime.netpoll.
//  3. Otherwise the leaf-most frame outside the runtime decides (runtime
//     helpers such as memmove count for their caller): syscalls for
//     syscall, internal/poll, internal/syscall/*, golang.org/x/sys/unix;
//     user_cpu for the server's own code (outside the standard library,
//     or package main); http_stack for net/http, net/textproto, net,
//     bufio, crypto/tls and the crypto it calls, mime, net/url; another
//     standard-library package counts as user_cpu when the server's own
//     code is on the stack above it (a library call made by that code),
//     else as http_stack when net/http is on the stack, else other.
//  4. A stack with runtime frames only is runtime.
//
// The function that decides a sample is the one named above, except for
// syscalls made by the server's own code: then it is the innermost
// function of that code (the call site to change).
//
// # Scheduling, from the execution trace
//
// [Scheduling] streams the trace (golang.org/x/exp/trace) within
// [TraceLimits] and follows each goroutine's and P's state: every
// runnable→running transition is a wait for a P (p50, p99, max); the
// stop-the-world ranges are the pauses; the P counts integrated over
// time give the Ps' busy share, the share of their time idle while a
// goroutine was runnable, and the share of wall time in which every P
// ran while a goroutine waited. Goroutines are serving (net/http or
// x/net/http2 on their stack), the runtime's, profiling (answering gb's
// profile and trace requests) or the server's other goroutines.
//
// The requests' wait for a P ranks against the other causes, per request
// like them, only in the share of the running time that the server's
// other goroutines took (Scheduling.Starving): a server busy with its
// requests alone also queues them for a CPU, and then its CPU per
// request, not the scheduler, is what bounds it.
package diagnose
