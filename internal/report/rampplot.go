package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/gb-bench/gb/internal/ramp"
)

// RampCSV's columns that the plot reads (1-based, as gnuplot counts).
const (
	colConcurrency = 2
	colThroughput  = 5
	colMedian      = 9
	colP99         = 13
	colTargetRate  = 14
)

// markColor is the colour of the saturation mark.
const markColor = "#c0392b"

// RampPlot writes a gnuplot script that renders the CSV file csvPath
// (written by RampCSV for rp) to the PNG file pngPath: requests per second
// on the left axis and p50 and p99 latency in ms on the right one, against
// the load (concurrency, or target rate), with the saturation step marked
// by a dashed line, a dot and a label. The paths are written as given, so
// gnuplot must run in the directory gb ran in: gnuplot FILE.gp.
func RampPlot(w io.Writer, rp *ramp.Ramp, csvPath, pngPath string) error {
	b := bufio.NewWriter(w)
	xcol, xlabel, lat := colConcurrency, "concurrency (connections)", "service time"
	if rp.By == ramp.ByRate {
		xcol, xlabel, lat = colTargetRate, "target rate (requests per second)", "from the intended send time"
	}
	title := "gb ramp"
	if len(rp.Steps) > 0 {
		t := rp.Steps[0].Load
		title += ": " + t.Method + " " + t.URL
		if t.KeepAlive {
			title += " (keep-alive)"
		}
	}
	fmt.Fprintf(b, "# gb ramp plot: run gnuplot on this file in the directory gb ran in; it reads %s and writes %s\n", defuseControls(csvPath), defuseControls(pngPath))
	fmt.Fprintf(b, "set terminal pngcairo size 1200,720 noenhanced font ',11'\n")
	fmt.Fprintf(b, "set output %s\n", gpString(pngPath))
	fmt.Fprintf(b, "set datafile separator ','\n")
	fmt.Fprintf(b, "set title %s\n", gpString(title))
	fmt.Fprintf(b, "set xlabel %s\n", gpString(xlabel))
	fmt.Fprintf(b, "set ylabel 'requests per second'\n")
	fmt.Fprintf(b, "set y2label %s\n", gpString("latency ms ("+lat+")"))
	fmt.Fprint(b, "set ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\nset offsets 0, 0, graph 0.1, 0\nset grid\nset key below\n")
	writeMark(b, rp)
	data := gpString(csvPath)
	fmt.Fprintf(b, "plot %s using %d:%d axes x1y1 with linespoints linewidth 2 pointtype 7 linecolor rgb '#8e24aa' title 'requests per second', \\\n", data, xcol, colThroughput)
	if rp.By == ramp.ByRate { // the offered load, for comparison with what was served
		fmt.Fprintf(b, "     '' using %d:%d axes x1y1 with lines dashtype 3 linecolor rgb 'gray40' title 'target rate', \\\n", xcol, xcol)
	}
	fmt.Fprintf(b, "     '' using %d:%d axes x1y2 with linespoints pointtype 5 linecolor rgb '#009e73' title 'p50 ms', \\\n", xcol, colMedian)
	fmt.Fprintf(b, "     '' using %d:%d axes x1y2 with linespoints pointtype 9 linecolor rgb '#0072b2' title 'p99 ms'\n", xcol, colP99)
	return b.Flush()
}

// writeMark marks the saturation step: a dashed vertical line at its load,
// a dot on its throughput and a label, on the side with more room; or a
// label saying the ramp found none.
func writeMark(b *bufio.Writer, rp *ramp.Ramp) {
	n := rp.Saturation
	if n < 1 || n > len(rp.Steps) {
		fmt.Fprintf(b, "set label 1 'no saturation point within the ramp' at graph 0.02, graph 0.80 textcolor rgb '%s'\n", markColor)
		return
	}
	s := rp.Steps[n-1]
	x := ramp.FormatLevel(rp.By, s)
	side := "left offset 1,0"
	if n > (len(rp.Steps)+1)/2 {
		side = "right offset -1,0"
	}
	text := fmt.Sprintf("saturation: %s %s, %.2f req/s", ramp.LevelName(rp.By), x, s.RPS())
	if rp.By == ramp.ByRate && ramp.Missed(rp.Steps, n-1) != "" {
		text += " (target missed)"
	}
	fmt.Fprintf(b, "set arrow 1 from %s, graph 0 to %s, graph 1 nohead dashtype 2 linewidth 2 linecolor rgb '%s'\n", x, x, markColor)
	fmt.Fprintf(b, "set label 1 %s at %s, graph 0.06 %s textcolor rgb '%s'\n", gpString(text), x, side, markColor)
	fmt.Fprintf(b, "set label 2 '' at %s, %.2f point pointtype 7 pointsize 2.5 linecolor rgb '%s'\n", x, s.RPS(), markColor)
}

// gpString quotes s as a gnuplot single-quoted string, in which only the
// quote itself is special (doubled). Control characters become '?'.
func gpString(s string) string {
	return "'" + strings.ReplaceAll(defuseControls(s), "'", "''") + "'"
}
