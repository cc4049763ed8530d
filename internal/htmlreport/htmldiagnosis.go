package htmlreport

import (
	"fmt"
	"slices"

	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// boundEvidence are the profile kinds that back each bound of the
// diagnosis, in the order to open them; a bound not listed (a part the
// diagnosis gains later) is backed by every saved file.
var boundEvidence = map[string][]string{
	"user_cpu": {"cpu"}, "http_stack": {"cpu"}, "scheduler": {"cpu", "trace"}, "syscalls": {"cpu", "trace"},
	"runtime": {"cpu"}, "other": {"cpu"}, "gc": {"allocs", "cpu", "heap"},
	"contention": {"mutex", "block"}, "goroutine_leak": {"goroutine"},
}

// diagnosisSection is the diagnosis (--profile) on the page, from the
// result alone (gb report re-renders it from the JSON): the verdict as
// the section's headline; where the CPU goes, by cause, per request and
// as a share; every other line of the text section ("gb diagnosis:") as
// a fact, so that a line the text gains the page has too; the evidence
// to open next (the saved profiles behind the bound, with the command
// that opens each); and what is missing. False without a diagnosis.
func diagnosisSection(r *stats.Result) (section, bool) {
	if r.Profile == nil || r.Profile.Diagnosis == nil {
		return section{}, false
	}
	d := r.Profile.Diagnosis
	s := section{ID: "diagnosis", Title: "Diagnosis", Headline: d.Verdict}
	shown := map[string]bool{"bound by": true} // the text's keys the headline and the CPU table show
	if c := d.CPU; c != nil {
		shown["cpu per request"] = true
		t := table{Caption: "Where the server's CPU goes: " + report.Micros(c.PerRequest) + " per request",
			Head: []string{"cause", "per request", "share", "most in"}, Left: 1, Last: true}
		for _, cl := range c.Classes {
			t.Rows = append(t.Rows, []string{report.CPUCause(cl.Class), report.Micros(cl.PerRequest), pctShare(cl.Share), cl.Top})
			shown["cpu "+report.CPUCause(cl.Class)] = true
		}
		s.Tables = append(s.Tables, t)
	}
	facts := table{Caption: "Facts", Head: []string{"fact", "value"}, Left: 2}
	missing := table{Caption: "Missing", Head: []string{"what is missing, and how to add it"}, Left: 1}
	for _, l := range report.DiagnosisLines(r) {
		switch {
		case l[0] == "missing":
			missing.Rows = append(missing.Rows, []string{l[1]})
		case !shown[l[0]]:
			facts.Rows = append(facts.Rows, l[:])
		}
	}
	for _, t := range []table{facts, evidence(r.Profile), missing} {
		if len(t.Rows) > 0 {
			s.Tables = append(s.Tables, t)
		}
	}
	return s, true
}

// evidence is the table of the saved profiles to open next: those of the
// kinds behind the diagnosis's bound, else every saved one.
func evidence(sp *stats.ServerProfile) table {
	t := table{Caption: "Open next", Head: []string{"profile", "command"}, Left: 2}
	kinds, known := boundEvidence[sp.Diagnosis.Bound]
	for _, k := range kinds {
		for _, f := range sp.Files {
			if f.Kind == k && f.Open != "" {
				t.Rows = append(t.Rows, []string{f.Kind, f.Open})
			}
		}
	}
	if !known || len(t.Rows) == 0 {
		for _, f := range sp.Files {
			if f.Open != "" && !slices.Contains(kinds, f.Kind) {
				t.Rows = append(t.Rows, []string{f.Kind, f.Open})
			}
		}
	}
	if len(t.Rows) > 0 && sp.Dir != "" {
		t.Caption = fmt.Sprintf("Open next (saved in %s)", sp.Dir)
	}
	return t
}
