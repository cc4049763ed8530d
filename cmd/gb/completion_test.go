package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// bashComplete sources gb's bash script in a bash process, sets the words
// of a command line being completed (the last is the word under the
// cursor), calls the function complete registered for gb and returns
// COMPREPLY. dir is the working directory (file completion lists it).
func bashComplete(t *testing.T, dir string, words ...string) []string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "gb.bash")
	res := runGB(t, "completion", "bash")
	if res.code != 0 {
		t.Fatalf("gb completion bash: exit %d: %s", res.code, res.stderr)
	}
	if err := os.WriteFile(script, []byte(res.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	prog := `source "$1" || exit 1
COMP_WORDS=(` + strings.Join(quoted, " ") + `)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
fn=$(complete -p gb | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
"$fn" gb "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", prog, "bash", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash completion of %q: %v\n%s", words, err, out)
	}
	return strings.Fields(string(out))
}

func TestCompletionBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	for _, f := range []string{"body.json", "old.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "profiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		words       []string
		want, avoid []string
		exact       bool
	}{
		// ab's options, and gb's long ones, from the flag table.
		{words: []string{"gb", "--ht"}, want: []string{"--http2", "--html", "--html-tables"}, avoid: []string{"--h2c"}},
		{words: []string{"gb", "-"}, want: []string{"-n", "-c", "-k", "--requests", "--json", "--script"}},
		// The subcommands at the first word, no options there unless asked.
		{words: []string{"gb", ""}, want: []string{"ramp", "capacity", "report", "compare", "merge", "k8s", "demo", "serve", "version", "help", "completion"}, avoid: []string{"-n"}},
		{words: []string{"gb", "ra"}, want: []string{"ramp"}, exact: true},
		// Options taking a file complete files; --name=value too.
		{words: []string{"gb", "-p", ""}, want: []string{"body.json", "notes.txt", "profiles"}},
		{words: []string{"gb", "--json", "b"}, want: []string{"body.json"}, exact: true},
		{words: []string{"gb", "--json", "=", "o"}, want: []string{"old.json"}, exact: true},
		{words: []string{"gb", "--profile-dir", ""}, want: []string{"profiles"}, exact: true},
		// An option taking another value completes nothing.
		{words: []string{"gb", "-c", ""}, exact: true},
		// A subcommand's own options, and its file arguments.
		{words: []string{"gb", "ramp", "--rate-"}, want: []string{"--rate-from", "--rate-to", "--rate-step"}, exact: true},
		{words: []string{"gb", "capacity", "--s"}, want: []string{"--slo", "--step-time"}, exact: true},
		{words: []string{"gb", "report", "--"}, want: []string{"--html", "--hgrm", "--hlog", "--csv", "--json", "--text", "--help"}, exact: true},
		{words: []string{"gb", "report", "o"}, want: []string{"old.json"}, exact: true},
		{words: []string{"gb", "compare", "old.json", "b"}, want: []string{"body.json"}, exact: true},
		{words: []string{"gb", "compare", "--t"}, want: []string{"--top"}, exact: true},
		{words: []string{"gb", "serve", "--"}, want: []string{"--addr", "--tls", "--unix", "--no-pprof", "--public", "--help"}, exact: true},
		{words: []string{"gb", "k8s", ""}, want: []string{"job"}, exact: true},
		{words: []string{"gb", "k8s", "job", "--par"}, want: []string{"--parallelism"}, exact: true},
		{words: []string{"gb", "completion", ""}, want: []string{"bash", "zsh", "fish"}, exact: true},
		{words: []string{"gb", "help", "me"}, want: []string{"merge"}, exact: true},
	}
	for _, c := range cases {
		got := bashComplete(t, dir, c.words...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("completing %q: %q missing from %q", c.words, w, got)
			}
		}
		for _, w := range c.avoid {
			if slices.Contains(got, w) {
				t.Errorf("completing %q: %q offered: %q", c.words, w, got)
			}
		}
		if c.exact && len(got) != len(c.want) {
			t.Errorf("completing %q: got %q, want exactly %q", c.words, got, c.want)
		}
	}
}

// TestCompletionEveryOption: every option of the flag tables is offered,
// so an option added to a table needs no change to completion.
func TestCompletionEveryOption(t *testing.T) {
	got := bashComplete(t, t.TempDir(), "gb", "--")
	for _, s := range abSpecs {
		if s.Long != "" && !slices.Contains(got, "--"+s.Long) {
			t.Errorf("--%s is not completed", s.Long)
		}
	}
	for _, s := range rampSpecs(&rampOptions{}) {
		if s.Long == "" {
			continue
		}
		if ramp := bashComplete(t, t.TempDir(), "gb", "ramp", "--"+s.Long); !slices.Contains(ramp, "--"+s.Long) {
			t.Errorf("gb ramp --%s is not completed", s.Long)
		}
	}
}

// TestCompletionOtherShells: the zsh and fish scripts parse in their
// shells (when installed) and the fish one offers what the bash one does.
func TestCompletionOtherShells(t *testing.T) {
	for _, sh := range []string{"zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			res := runGB(t, "completion", sh)
			if res.code != 0 || !strings.Contains(res.stdout, "--http2") && !strings.Contains(res.stdout, "-l http2") {
				t.Fatalf("gb completion %s: exit %d, no --http2:\n%s%s", sh, res.code, res.stdout, res.stderr)
			}
			if _, err := exec.LookPath(sh); err != nil {
				t.Skipf("%s is not installed (apt-get install %s)", sh, sh)
			}
			script := filepath.Join(t.TempDir(), "gb."+sh)
			if err := os.WriteFile(script, []byte(res.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if out, err := exec.CommandContext(ctx, sh, "-n", script).CombinedOutput(); err != nil {
				t.Fatalf("%s -n: %v\n%s", sh, err, out)
			}
			if sh == "zsh" {
				zshComplete(ctx, t, script)
				return
			}
			// fish's own completion engine, on the script: complete -C.
			prog := "source " + script + "; complete -C 'gb --ht'; complete -C 'gb ramp --rate-'; complete -C 'gb '"
			out, err := exec.CommandContext(ctx, "fish", "--no-config", "-c", prog).CombinedOutput()
			if err != nil {
				t.Fatalf("fish: %v\n%s", err, out)
			}
			for _, w := range []string{"--http2", "--rate-from", "ramp", "completion"} {
				if !strings.Contains(string(out), w) {
					t.Errorf("fish completes no %s:\n%s", w, out)
				}
			}
		})
	}
}

func TestCompletionBadShell(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		res := runGB(t, args...)
		if res.code != exitUsage || res.stdout != "" || strings.Count(res.stderr, "\n") != 1 || !strings.HasPrefix(res.stderr, "gb completion: ") {
			t.Errorf("gb %q: exit %d, stdout %q, stderr %q; want 22 and one line", args, res.code, res.stdout, res.stderr)
		}
	}
	res := runGB(t, "completion", "--help")
	if res.code != 0 || !strings.Contains(res.stdout, "bash-completion/completions/gb") || !strings.Contains(res.stdout, "fish/completions/gb.fish") {
		t.Errorf("gb completion --help: exit %d:\n%s", res.code, res.stdout)
	}
}

// zshComplete calls the zsh script's _gb with zsh's completion builtins
// replaced by functions that print what they were given (compadd's words,
// _files for files, _message for a value), so its choices can be checked
// without a terminal.
func zshComplete(ctx context.Context, t *testing.T, script string) {
	t.Helper()
	prog := `compdef() { :; }
source "$1"
compadd() { while [[ $# -gt 0 && $1 != -- ]]; do shift; done; shift; print -r -- "$*"; }
_files() { print -r -- FILES "$@"; }
_message() { print MESSAGE; }
compset() { :; }
words=(gb ramp --rate-); CURRENT=3; _gb
words=(gb ""); CURRENT=2; _gb
words=(gb -p ""); CURRENT=3; _gb
words=(gb --profile-dir ""); CURRENT=3; _gb
words=(gb -c ""); CURRENT=3; _gb
words=(gb report o); CURRENT=3; _gb
`
	out, err := exec.CommandContext(ctx, "zsh", "-f", "-c", prog, "zsh", script).CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []func(string) bool{
		func(l string) bool { return strings.Contains(l, "--rate-from") && strings.Contains(l, "--rate-step") },
		func(l string) bool {
			return strings.Contains(l, "ramp") && strings.Contains(l, "completion") && !strings.Contains(l, "-n")
		},
		func(l string) bool { return l == "FILES" },
		func(l string) bool { return l == "FILES -/" },
		func(l string) bool { return l == "MESSAGE" },
		func(l string) bool { return l == "FILES" },
	}
	if len(lines) != len(want) {
		t.Fatalf("zsh _gb: want %d lines, got:\n%s", len(want), out)
	}
	for i, ok := range want {
		if !ok(lines[i]) {
			t.Errorf("zsh _gb, case %d: got %q", i+1, lines[i])
		}
	}
}
