// Package threshold checks a run against pass/fail criteria, k6's
// thresholds written the way ab users write numbers: `p99<50ms`,
// `corrected.p99.9<200ms`, `errors<0.1%`, `non2xx=0`, `rps>=1000`,
// `waiting.p95<=20ms`.
//
// Parse turns an expression into a Threshold, Threshold.Eval measures it on
// a stats.Result, and the writers render the outcomes: a `thresholds:`
// section for gb's text report (WriteText), JUnit XML for CI test
// reporters (WriteJUnit) and Markdown for a GitHub step summary
// (WriteMarkdown).
//
// The grammar, spaces allowed around the operator:
//
//	expr    = metric op number [unit]
//	metric  = [phase "."] stat | "errors" | "non2xx" | "rps"
//	phase   = connect | processing | waiting | total | corrected | lag   (default total)
//	stat    = "p" number (0 < p <= 100) | "median" | "mean" | "min" | "max"
//	op      = "<" | "<=" | ">" | ">=" | "=" | "=="
//	unit    = "us" | "µs" | "ms" | "s"    (required for a latency)
//	        | "%"                          (errors and non2xx: a share of the requests)
//
// errors counts the failed requests (connect, TLS, write, reset, truncated,
// protocol, timeouts; not non-2xx responses, not requests aborted by the
// stop); with "%" it is their share of the requests that ended on their
// own (stats.Totals.ErrorRate). non2xx likewise. rps is ab's Requests per
// second. Latencies are the percentiles gb's report prints.
package threshold
