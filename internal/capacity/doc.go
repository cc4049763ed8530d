// Package capacity searches for the highest request rate a server
// sustains within an SLO: open-model probes at growing rates (doubling
// from the lowest until one fails), then bisection of the bracket between
// the highest passing and the lowest failing rate until it is narrower
// than the precision asked for.
//
// A probe passes when every SLO holds (latency judged on the corrected
// latency, measured from each request's intended send time), the achieved
// rate is at least 99% of the target, no request was dropped and at most
// the share allowed of its requests failed or were answered non-2xx. A
// failing probe is run once more, and its rate fails only when it fails
// again. The connection pool grows by Little's law when a probe needed
// more connections than it had, so the client is not the limit; a failing
// probe during which gb itself used its cores stops the search instead of
// giving a wrong answer. Diagnose, which tells gb's lateness from the
// server's slowness, is the one gb's rate-mode report uses too.
//
// Search holds the logic and takes the probe as a function, so that it
// can be tested without a server; Judge turns a gb run into a Probe.
// Policy holds how a probe is run (LoadAt: its budget, time limit and
// pool) and judged; its Prober builds Search's probe from the caller's
// StepFunc, which runs one Load (gb capacity's runs it on a gb.Plan), so
// the command only parses flags, builds that function and prints.
package capacity
