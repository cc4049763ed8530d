// Package report renders a [stats.Result]: ab's text report (Text), ab's
// -w HTML table (HTML), ab's -e percentile CSV (CSV), ab's -g gnuplot file
// (Gnuplot), gb's JSON result (JSON), HdrHistogram's percentile
// distribution (HGRM) and interval log (HLog), and a text latency
// histogram (LatencyHistogram), plus the banner lines that precede
// the report on stdout (Banner, Benchmarking, Done). A ramp.Ramp (gb
// ramp; its model and analysis are package ramp's) is rendered as step
// lines (RampHeader, RampStep, RampSummary), ab+.sh's CSV (RampCSV),
// autobench's file (RampAutobench), a gnuplot script (RampPlot) and JSON
// (RampJSON). The HTML report pages and the charts (gb's --html, the
// ramp's --plot PNG) are package htmlreport's; the facts they share with
// the text are exported here (StopReason, LatencyModel, CheckMark,
// ProfileFacts, ProfileTop, DiagnosisLines, CPUCause, Micros).
//
// The text and HTML layouts are ApacheBench 2.4's output_results() and
// output_html_results(), byte for byte in layout: the same labels, column
// widths, rounding (ab's ap_round_ms on integer microseconds) and
// conditional lines, so that scripts written for ab keep working. What gb
// adds comes after ab's percentile table, in a section whose lines never
// contain the strings that ab parsers match (see [Text]).
//
// Latency distributions come from the Result's HdrHistograms, not from
// per-request samples: where ab indexes its sorted array of samples (the
// medians, the percentile table, the -e rows), gb takes the same index
// into the histogram's ranks, which is exact below 2048 µs and within 0.1%
// above. Text and HTML therefore render a Result read back from JSON to the
// same bytes as the live run.
//
// Every renderer buffers its output and returns the first write error.
package report
