// Package htmlreport renders gb's HTML report pages and their charts: the
// page of one run (Run: `--html FILE`, `gb report --html`, the web view's
// final report), of a ramp (Ramp: `gb ramp --html`) and of a capacity
// search (Capacity: `gb capacity --html`), and the ramp's curve as a PNG
// image (RampPNG: `gb ramp --plot`). Charts are drawn by internal/chart;
// SVG inlined in the page, PNG for --plot.
//
// ab's -w HTML table is not here: it is report.HTML, one of ab's formats
// in internal/report. What the page says in words it takes from
// internal/report (the text report, the ramp's summary, the stop reason,
// the server profile's and diagnosis's facts), so that the page and the
// text agree.
//
// Every page is self-contained: it loads nothing (no script, no font or
// style from elsewhere; its Content-Security-Policy forbids it), and every
// string from a result is escaped.
package htmlreport
