package htmlreport

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/gb-bench/gb/internal/chart"
)

// page is one self-contained HTML report: everything it shows is in the
// file (charts as inline SVG; text in the reader's sans-serif face), and it refers to
// nothing outside it, so it opens offline and makes no request.
type page struct {
	Title    string   // <title> and heading
	Lead     []string // lines under the heading: command, time, versions
	Cards    []card   // the headline numbers
	Sections []section
}

// card is one headline number: "p99" "1.234 ms".
type card struct {
	Label, Value, Note string
}

// section is one part of the page, drawn in this order: headline,
// notes, charts, tables, preformatted text.
type section struct {
	ID, Title string
	Headline  string // a sentence set apart under the title ("" none): the diagnosis's verdict
	Notes     []string
	Charts    []template.HTML // inline <svg> elements from internal/chart
	Tables    []table
	Pre       string
}

// table is a captioned table; cells are text (escaped when written).
type table struct {
	Caption string
	Head    []string
	Rows    [][]string
	Left    int  // how many leading columns are text (left-aligned); the rest are numbers
	Last    bool // the last column is text too
}

// isText reports whether column col of t holds text.
func (t table) isText(col int) bool { return col < t.Left || t.Last && col == len(t.Head)-1 }

// addChart renders plots (stacked) into s as one inline SVG.
func (s *section) addChart(plots ...*chart.Plot) error {
	return s.addFigure(chart.Figure{Plots: plots})
}

// addFigure renders f into s as one inline SVG.
func (s *section) addFigure(f chart.Figure) error {
	svg, err := inlineSVG(f)
	if err != nil {
		return err
	}
	s.Charts = append(s.Charts, template.HTML(svg)) // chart's SVG escapes every text it writes
	return nil
}

//go:embed page.html.tmpl
var pageTemplate string

// pageTmpl is the parsed page template, parsed at its first use (not at
// every start of gb).
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"isText": table.isText,
	}).Parse(pageTemplate))
})

// write renders p to w, its control characters replaced by '?' (the
// escaping of html/template leaves them), but the line breaks of Pre.
func (p *page) write(w io.Writer) error {
	p.clean()
	b := bufio.NewWriter(w)
	if err := pageTmpl().Execute(b, p); err != nil {
		return err
	}
	return b.Flush()
}

// clean replaces the control characters of p's strings with '?'.
func (p *page) clean() {
	p.Title = defuseControls(p.Title)
	cleanAll(p.Lead)
	for i := range p.Cards {
		c := &p.Cards[i]
		c.Label, c.Value, c.Note = defuseControls(c.Label), defuseControls(c.Value), defuseControls(c.Note)
	}
	for i := range p.Sections {
		s := &p.Sections[i]
		s.Title, s.Headline = defuseControls(s.Title), defuseControls(s.Headline)
		cleanAll(s.Notes)
		for j := range s.Tables {
			t := &s.Tables[j]
			t.Caption = defuseControls(t.Caption)
			cleanAll(t.Head)
			for _, row := range t.Rows {
				cleanAll(row)
			}
		}
		lines := strings.Split(s.Pre, "\n")
		cleanAll(lines)
		s.Pre = strings.Join(lines, "\n")
	}
}

// cleanAll replaces the control characters of each string of ss.
func cleanAll(ss []string) {
	for i, s := range ss {
		ss[i] = defuseControls(s)
	}
}
