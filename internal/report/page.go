package report

import (
	"bufio"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
	"strings"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"gonum.org/v1/plot"
)

// page is one self-contained HTML report: everything it shows is in the
// file (charts as inline SVG, the font as a data: URL), and it refers to
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
	Charts    []template.HTML // inline <svg> elements from gonum/plot
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
func (s *section) addChart(plots ...*plot.Plot) error { return s.addFigure(figure{plots: plots}) }

// addFigure renders f into s as one inline SVG.
func (s *section) addFigure(f figure) error {
	svg, err := inlineSVG(f)
	if err != nil {
		return err
	}
	s.Charts = append(s.Charts, template.HTML(svg)) // gonum's SVG escapes every text it writes
	return nil
}

//go:embed page.html.tmpl
var pageTemplate string

// pageTmpl is the parsed page template, parsed at its first use (not at
// every start of gb).
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"fontCSS": fontCSS,
		"isText":  table.isText,
	}).Parse(pageTemplate))
})

// fontCSS is the @font-face rule that gives the page, and the charts'
// text, the Liberation Sans face the charts were laid out with, as a
// data: URL (no font is fetched).
var fontCSS = sync.OnceValue(func() template.CSS {
	return template.CSS(`@font-face{font-family:"Liberation Sans";font-style:normal;font-weight:400;src:url(data:font/ttf;base64,` +
		base64.StdEncoding.EncodeToString(liberationsansregular.TTF) + `) format("truetype")}`)
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
