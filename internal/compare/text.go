package compare

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"
)

// WriteText writes t as a table in benchstat's manner: a column per input
// holding each metric's median ± its confidence interval (as a percentage
// of the median), and for every input after the first a column with the
// change of the median and the U test's p-value, "~" where the change is
// not significant. Warnings of the statistics (too few runs) become
// numbered footnotes. A diagnosis row whose values are all 0 is left
// out.
func (t *Table) WriteText(w io.Writer) error {
	var notes footnotes
	estimated := false
	err := tabulate(w, 0, func(tw io.Writer) {
		head1, head2 := []string{""}, []string{""}
		for i, in := range t.Inputs {
			head1 = append(head1, fmt.Sprintf("%s (%s)", in.Name, plural(len(in.Runs), "run")))
			head2 = append(head2, "median")
			if i > 0 {
				head1 = append(head1, "")
				head2 = append(head2, "vs "+t.Inputs[0].Name)
			}
		}
		fmt.Fprintln(tw, strings.Join(head1, "\t"))
		fmt.Fprintln(tw, strings.Join(head2, "\t"))
		for _, r := range t.Rows {
			if r.Zero && r.Metric.Diagnosis {
				continue
			}
			line := []string{r.Metric.Label}
			if r.Estimated {
				line[0] += " (estimated)"
				estimated = true
			}
			for i, c := range r.Cells {
				line = append(line, formatValue(r.Metric.Unit, c.Summary.Center)+" ± "+c.Summary.PctRangeString()+notes.mark(c.Summary.Warnings))
				if i > 0 {
					line = append(line, formatDelta(c, r.Cells[0])+notes.mark(c.Vs.Warnings))
				}
			}
			fmt.Fprintln(tw, strings.Join(line, "\t"))
		}
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "median ± %g%% confidence interval; vs: change of the median, p-value of the Mann-Whitney U test (~: not significant at α=%g)\n%s",
		confidence*100, benchmath.DefaultThresholds.CompareAlpha, notes.String())
	if err == nil && estimated {
		_, err = fmt.Fprintln(w, "estimated: the server's allocations from its sampled allocs profile (it serves no expvar memstats), as gb's report has them")
	}
	return err
}

// tabulate writes what fill writes through a tabwriter (cells padded by
// 3 spaces; flags as tabwriter's) to w, without trailing spaces.
func tabulate(w io.Writer, flags uint, fill func(tw io.Writer)) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', flags)
	fill(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \n")
		if strings.HasSuffix(l, "\n") {
			lines[i] += "\n"
		}
	}
	_, err := io.WriteString(w, strings.Join(lines, ""))
	return err
}

// formatDelta is c's change from base: "~" when it is not significant,
// else the signed percentage; then the p-value and the sample sizes.
func formatDelta(c, base Cell) string {
	d := "~"
	if c.Significant() {
		d = formatPct(c.Delta(base))
	}
	return d + " (" + c.Vs.String() + ")"
}

// formatPct writes a change in percent with its sign.
func formatPct(p float64) string {
	if math.IsInf(p, 0) {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", p)
}

// formatValue writes v in unit u with four significant digits and a
// scaled unit (k, M; ns, µs, ms; KiB, MiB).
func formatValue(u Unit, v float64) string {
	switch {
	case v == 0:
		return "0"
	case u == UnitTime:
		return scaled(v, 1000, []string{"s", "ms", "µs", "ns"}, true)
	case u == UnitBytes:
		return scaled(v, 1024, []string{"B", "KiB", "MiB", "GiB", "TiB"}, false)
	case u == UnitRatio:
		return fmt.Sprintf("%.4g%%", v*100)
	default:
		return scaled(v, 1000, []string{"", "k", "M", "G", "T"}, false)
	}
}

// scaled divides (down: multiplies) v by step until it reads between 1
// and step, and appends the matching unit.
func scaled(v, step float64, units []string, down bool) string {
	i := 0
	if down {
		for i < len(units)-1 && v != 0 && math.Abs(v) < 1 {
			v *= step
			i++
		}
	} else {
		for i < len(units)-1 && math.Abs(v) >= step {
			v /= step
			i++
		}
	}
	return fmt.Sprintf("%.4g%s", v, units[i])
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// footnotes numbers distinct warnings in the order they are first seen.
type footnotes []string

var superscripts = []rune("¹²³⁴⁵⁶⁷⁸⁹")

// mark returns the markers of warnings (" ¹²"), adding new ones.
func (f *footnotes) mark(warnings []error) string {
	s := ""
	for _, w := range warnings {
		i := 0
		for i < len(*f) && (*f)[i] != w.Error() {
			i++
		}
		if i == len(*f) {
			*f = append(*f, w.Error())
		}
		s += footnoteMark(i)
	}
	if s != "" {
		s = " " + s
	}
	return s
}

// footnoteMark is the marker of footnote i (0-based).
func footnoteMark(i int) string {
	if i < len(superscripts) {
		return string(superscripts[i])
	}
	return fmt.Sprintf("[%d]", i+1)
}

// String lists the footnotes, one a line.
func (f footnotes) String() string {
	var b strings.Builder
	for i, n := range f {
		fmt.Fprintf(&b, "%s %s\n", footnoteMark(i), n)
	}
	return b.String()
}
