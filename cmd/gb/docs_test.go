package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/gb-bench/gb/internal/getopt"
)

// The documentation lives in README.md and docs/*.md at the module root,
// two directories up from this package.
const docsRoot = "../.."

// docFiles returns README.md and docs/*.md (docs/pending/ is a staging
// area for text not yet placed, and is left out).
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(docsRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(docsRoot, "README.md")}, files...)
}

var (
	mdLink     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	mdHeading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	linkInText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// proseLines returns the lines of a Markdown file outside fenced code
// blocks, with their line numbers (1-based).
func proseLines(text string) (lines []string, numbers []int) {
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		lines = append(lines, l)
		numbers = append(numbers, i+1)
	}
	return lines, numbers
}

// anchor is GitHub's anchor of a heading's text: lower case, inline code,
// emphasis and link syntax dropped, every character other than a letter,
// digit, space, hyphen or underscore removed, spaces made hyphens.
func anchor(heading string) string {
	h := linkInText.ReplaceAllString(heading, "$1")
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file's headings, with GitHub's
// -1, -2 suffixes for repeated ones.
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	lines, _ := proseLines(text)
	for _, l := range lines {
		m := mdHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := anchor(m[2])
		if n := seen[a]; n > 0 {
			set[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			set[a] = true
		}
		seen[a]++
	}
	return set
}

// TestDocLinksResolve: every relative link in README.md and docs/*.md
// names a file or directory of the repository, and every #anchor a
// heading of the Markdown file it points into.
func TestDocLinksResolve(t *testing.T) {
	texts := map[string]string{}
	read := func(path string) (string, bool) {
		if s, ok := texts[path]; ok {
			return s, true
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", false
		}
		texts[path] = string(b)
		return string(b), true
	}
	files := docFiles(t)
	checked := 0
	for _, file := range files {
		text, ok := read(file)
		if !ok {
			t.Fatalf("cannot read %s", file)
		}
		lines, numbers := proseLines(text)
		for i, l := range lines {
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				where := fmt.Sprintf("%s:%d: link %q", strings.TrimPrefix(file, docsRoot+"/"), numbers[i], target)
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s: no such file %s", where, dest)
						continue
					}
				}
				if frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				destText, ok := read(dest)
				if !ok {
					t.Errorf("%s: cannot read %s", where, dest)
					continue
				}
				if !anchors(destText)[frag] {
					t.Errorf("%s: no heading with anchor #%s in %s", where, frag, dest)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found in %d files: is the parser broken?", checked, len(files))
	}
}

// TestAnchor pins the anchor rule on headings the documents use.
func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Reaching the server: unix sockets, proxies, `--connect-to` and `--sni`": "reaching-the-server-unix-sockets-proxies---connect-to-and---sni",
		"HTTP/2: `--http2`, `--h2c`, `--streams N`":                              "http2---http2---h2c---streams-n",
		"Did my change help?": "did-my-change-help",
		"gb as a Go library":  "gb-as-a-go-library",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// sectionLines returns the lines of a Markdown document under the heading
// "## <title>" up to the next "## " heading; name is the document's, for
// the error.
func sectionLines(t *testing.T, name, doc, title string) []string {
	t.Helper()
	var out []string
	in := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "## ") {
			in = strings.TrimSpace(strings.TrimPrefix(l, "## ")) == title
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	if out == nil {
		t.Fatalf("%s has no section %q", name, "## "+title)
	}
	return out
}

// documented reports whether one table row of section names every form
// in forms (as the start of a code span, "`-c" or "`--requests") and ends
// in a non-empty example cell.
func documented(section []string, forms []string) (found, example bool) {
	for _, l := range section {
		if !strings.HasPrefix(strings.TrimSpace(l), "|") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		head := strings.Join(cells[:min(2, len(cells))], "|")
		all := true
		for _, f := range forms {
			if !containsOption(head, f) {
				all = false
			}
		}
		if !all {
			continue
		}
		last := strings.TrimSpace(cells[len(cells)-1])
		return true, len(cells) >= 3 && last != "" && last != "-"
	}
	return false, false
}

// containsOption reports whether cell holds option as a code span's start,
// followed by the end of the span, a space, "=" or "[": "`-c`" but not
// "`-cpus`", "`--json file`" but not "`--jsonl`".
func containsOption(cell, option string) bool {
	for rest := cell; ; {
		i := strings.Index(rest, "`"+option)
		if i < 0 {
			return false
		}
		rest = rest[i+1+len(option):]
		if rest == "" || strings.ContainsAny(rest[:1], "` =[,") {
			return true
		}
	}
}

// specForms lists each option of a spec table as the forms a user types.
func specForms[T any](specs []getopt.Spec[T]) [][]string {
	var out [][]string
	for i := range specs {
		var forms []string
		if specs[i].Short != 0 {
			forms = append(forms, "-"+string(specs[i].Short))
		}
		if specs[i].Long != "" {
			forms = append(forms, "--"+specs[i].Long)
		}
		out = append(out, forms)
	}
	return out
}

// rampStepSpecs returns gb ramp's own options: its table without the
// benchmark's options it appends (those are documented once, in the
// benchmark's section).
func rampStepSpecs() []flagSpec {
	specs := rampSpecs(&rampOptions{})
	return specs[:len(specs)-len(abSpecs)]
}

// usageOptions lists the options that a command's usage text (gb help
// CMD) shows at the start of its lines: for the commands that parse their
// few options without a spec table.
func usageOptions(t *testing.T, cmd string) [][]string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help", cmd}, &stdout, &stderr, nil); code != 0 {
		t.Fatalf("gb help %s: exit %d: %s", cmd, code, stderr.String())
	}
	var out [][]string
	re := regexp.MustCompile(`^\s{2,}(--?[a-z][a-z0-9-]*)`)
	for _, l := range strings.Split(stdout.String(), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			out = append(out, []string{m[1]})
		}
	}
	if len(out) == 0 {
		t.Fatalf("gb help %s lists no options", cmd)
	}
	return out
}

// TestEveryOptionIsDocumented: every option of every command's flag table
// has a row in its command's section of docs/options.md, with an example.
func TestEveryOptionIsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(docsRoot, "docs", "options.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	commands := []struct {
		section string
		options [][]string
	}{
		{"gb: the benchmark", specForms(abSpecs)},
		{"gb ramp", specForms(rampStepSpecs())},
		{"gb capacity", specForms(capacitySpecs)},
		{"gb report", specForms(reportSpecs)},
		{"gb compare", usageOptions(t, "compare")},
		{"gb merge", specForms(mergeSpecs)},
		{"gb k8s job", specForms(k8sSpecs)},
		{"gb serve", usageOptions(t, "serve")},
	}
	for _, c := range commands {
		section := sectionLines(t, "docs/options.md", doc, c.section)
		for _, forms := range c.options {
			found, example := documented(section, forms)
			switch {
			case !found:
				t.Errorf("docs/options.md, section %q: no table row for %s", c.section, strings.Join(forms, ", "))
			case !example:
				t.Errorf("docs/options.md, section %q: the row of %s has no example", c.section, strings.Join(forms, ", "))
			}
		}
	}
}

// TestReadmeStaysShort: the README is the way in; the reference lives in
// docs/. It has a table of contents and at most 800 lines.
func TestReadmeStaysShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(docsRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if n := strings.Count(text, "\n"); n > 800 {
		t.Errorf("README.md has %d lines; keep it at most 800 and move reference material to docs/", n)
	}
	if !strings.Contains(text, "\n## Contents\n") {
		t.Error(`README.md has no "## Contents" heading`)
	}
	docs, err := filepath.Glob(filepath.Join(docsRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if link := "(docs/" + filepath.Base(d) + ")"; !strings.Contains(text, link) {
			t.Errorf("README.md does not link docs/%s: a reader cannot find it", filepath.Base(d))
		}
	}
}

// importTable returns, from go list, one Markdown row per package of the
// module: its path without the module prefix ("gb" for the root) and the
// module's packages it imports (test files left out), as docs/architecture.md
// writes them.
func importTable(t *testing.T) []string {
	t.Helper()
	const module = "github.com/gb-bench/gb"
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = docsRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	short := func(p string) string {
		if p == module {
			return "gb"
		}
		return strings.TrimPrefix(p, module+"/")
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var imps []string
		for _, imp := range f[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				imps = append(imps, "`"+short(imp)+"`")
			}
		}
		list := "none"
		if len(imps) > 0 {
			list = strings.Join(imps, ", ")
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s |", short(f[0]), list))
	}
	return rows
}

// TestArchitectureMatchesImports: docs/architecture.md's import table is
// the code's, row for row, and every package it lists is described in its
// package list (a bullet naming it in bold).
func TestArchitectureMatchesImports(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(docsRoot, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	want := importTable(t)
	var got []string
	for _, l := range sectionLines(t, "docs/architecture.md", doc, "Packages and their imports") {
		if strings.HasPrefix(l, "| `") {
			got = append(got, strings.TrimSpace(l))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/architecture.md's import table differs from go list; the code's table is:\n%s", strings.Join(want, "\n"))
	}
	for _, row := range want {
		pkg := strings.Trim(strings.Fields(row)[1], "`")
		name := pkg
		if strings.HasPrefix(pkg, "bench/") {
			name = "bench/" // the benchmark programs share one bullet
		}
		if !strings.Contains(doc, "**`"+name+"`**") {
			t.Errorf("docs/architecture.md describes no package %s (want a bullet **`%s`**)", pkg, name)
		}
	}
}
