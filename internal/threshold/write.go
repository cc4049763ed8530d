package threshold

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText writes the `thresholds:` section of gb's text report: an
// empty line, "thresholds:", one line per threshold in its canonical form
// with pass or FAIL and the measured value, then the verdict. The lines
// follow gb's section rules: "  key: value", values aligned at column 24,
// no label of ab's report and no number followed by a percent sign.
//
//	thresholds:
//	  p99<50ms:             pass (measured 12.345ms)
//	  errors<0.1pct:        FAIL (measured 2.500pct)
//	  verdict:              FAIL (1 of 2 failed)
func WriteText(w io.Writer, rs []Result) error {
	b := bufio.NewWriter(w)
	line := func(key, value string) { fmt.Fprintf(b, "  %-22s%s\n", key+":", value) }
	fmt.Fprint(b, "\nthresholds:\n")
	for _, r := range rs {
		line(r.Canonical(), fmt.Sprintf("%s (measured %s)", passWord(r.Pass), r.MeasuredText()))
	}
	line("verdict", verdict(rs))
	return b.Flush()
}

// passWord is "pass" or "FAIL".
func passWord(pass bool) string {
	if pass {
		return "pass"
	}
	return "FAIL"
}

// verdict summarises rs: "pass (all 3 passed)" or "FAIL (1 of 3 failed)".
func verdict(rs []Result) string {
	if n := Failures(rs); n > 0 {
		return fmt.Sprintf("FAIL (%d of %d failed)", n, len(rs))
	}
	return fmt.Sprintf("pass (all %d passed)", len(rs))
}

// JUnit XML, the subset CI test reporters read (Jenkins, GitLab, GitHub
// actions that publish test results).
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Time     float64      `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Time      float64     `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      float64       `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// Suite names the run for the JUnit writer: Name is the test suite (e.g.
// the URL), Start and Elapsed the run's (Start zero = no timestamp).
type Suite struct {
	Name    string
	Start   time.Time
	Elapsed time.Duration
}

// WriteJUnit writes rs as JUnit XML: one testsuite named s.Name with one
// testcase per threshold (named by its expression as given, classname
// "gb.threshold"), a failure element for each that did not pass, and the
// measured value in system-out.
func WriteJUnit(w io.Writer, s Suite, rs []Result) error {
	suite := junitSuite{Name: s.Name, Tests: len(rs), Failures: Failures(rs), Time: s.Elapsed.Seconds()}
	if !s.Start.IsZero() {
		suite.Timestamp = s.Start.UTC().Format("2006-01-02T15:04:05")
	}
	for _, r := range rs {
		c := junitCase{Name: r.Expr, ClassName: "gb.threshold", SystemOut: "measured " + withPercent(r)}
		if !r.Pass {
			msg := fmt.Sprintf("%s: measured %s", r.Expr, withPercent(r))
			c.Failure = &junitFailure{Message: msg, Type: "threshold", Text: msg}
		}
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{Name: "gb", Tests: suite.Tests, Failures: suite.Failures, Time: suite.Time, Suites: []junitSuite{suite}}
	b := bufio.NewWriter(w)
	b.WriteString(xml.Header)
	e := xml.NewEncoder(b)
	e.Indent("", "  ")
	if err := e.Encode(doc); err != nil {
		return fmt.Errorf("threshold: junit: %w", err)
	}
	b.WriteString("\n")
	return b.Flush()
}

// WriteMarkdown writes rs as a Markdown table for a GitHub step summary
// ($GITHUB_STEP_SUMMARY, to which the caller appends): a heading with
// title and the verdict, then one row per threshold with its expression,
// the measured value and the outcome.
func WriteMarkdown(w io.Writer, title string, rs []Result) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "### %s: %s\n\n", mdEscape(title), verdict(rs))
	fmt.Fprint(b, "| threshold | measured | result |\n|---|---|---|\n")
	for _, r := range rs {
		mark := "✅ pass"
		if !r.Pass {
			mark = "❌ FAIL"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", strings.ReplaceAll(r.Expr, "`", ""), withPercent(r), mark)
	}
	fmt.Fprintln(b)
	return b.Flush()
}

// withPercent is the measured value with a percent sign for a share: the
// form for XML and Markdown, which no ab parser reads.
func withPercent(r Result) string { return strings.Replace(r.MeasuredText(), "pct", "%", 1) }

// mdEscape keeps free text from breaking the Markdown: it escapes the
// characters that start formatting and drops line breaks.
func mdEscape(s string) string {
	r := strings.NewReplacer("\n", " ", "\r", " ", "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", "[", `\[`)
	return r.Replace(s)
}
