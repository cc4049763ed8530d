package report

import (
	"fmt"
	"html"
	"io"
)

// Banner writes gb's banner where ab writes its copyright banner: three
// lines and an empty line in text, or ab's HTML banner shape (a <p> block
// with <br> line ends, then an opening <p>) when html is set (-w). version
// is gb's version string, printed as is in text and escaped in HTML.
func Banner(w io.Writer, version string, html bool) error {
	if html {
		return htmlBanner(w, version)
	}
	_, err := fmt.Fprintf(w, "This is gb, Version %s\n%s\n%s\n\n", version, bannerLine2, bannerLine3)
	return err
}

// The banner's second and third lines.
const (
	bannerLine2 = "An HTTP benchmark tool with the command line and report of ApacheBench 2.3,"
	bannerLine3 = "measuring latency with HdrHistogram"
)

func htmlBanner(w io.Writer, version string) error {
	_, err := fmt.Fprintf(w, "<p>\n This is gb, Version <i>%s</i><br>\n %s<br>\n %s<br>\n</p>\n<p>\n",
		html.EscapeString(version), bannerLine2, bannerLine3)
	return err
}

// Benchmarking writes ab's "Benchmarking HOST [through PROXY] (be patient)"
// line. host is the URL's host name (no port, no brackets); proxy is the
// -X value as "host:port", empty for none. When progress is set (progress
// lines will go to stderr) the line ends with a newline; otherwise it ends
// with "..." and no newline, and the caller writes [Done] after the run.
// ab omits this line in HTML mode (-w); so should the caller.
func Benchmarking(w io.Writer, host, proxy string, progress bool) error {
	through := ""
	if proxy != "" {
		through = "[through " + proxy + "] "
	}
	end := "..."
	if progress {
		end = "\n"
	}
	_, err := fmt.Fprintf(w, "Benchmarking %s %s(be patient)%s", host, through, end)
	return err
}

// Done writes the "..done" line that ends the Benchmarking line when there
// were no progress lines (see [Benchmarking]); ab writes it in HTML mode
// too.
func Done(w io.Writer) error {
	_, err := io.WriteString(w, "..done\n")
	return err
}
