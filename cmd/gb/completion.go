package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gb-bench/gb/internal/getopt"
)

const completionUsage = `Usage: gb completion bash|zsh|fish
  Prints a script that completes gb's commands, options and file arguments
  in the shell, made from gb's own option tables (after updating gb, make
  the script again to complete its new options). Install it once:
    bash  mkdir -p ~/.local/share/bash-completion/completions
          gb completion bash > ~/.local/share/bash-completion/completions/gb
          (needs the bash-completion package; without it add
          source <(gb completion bash) to ~/.bashrc)
    zsh   mkdir -p ~/.zfunc && gb completion zsh > ~/.zfunc/_gb
          and in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)
    fish  gb completion fish > ~/.config/fish/completions/gb.fish
  Then start a new shell. Exit codes: 0 printed; 22 no shell or an unknown one.
`

// init adds gb completion to commands: the command reads the table it
// is in, so it cannot be in the table's initializer (an initialization
// cycle).
func init() {
	commands["completion"] = command{completionCmd, func(w io.Writer) { fmt.Fprint(w, completionUsage) }, true}
}

// completionCmd is gb completion SHELL: the completion script on stdout.
func completionCmd(args []string, stdout, stderr io.Writer, _ <-chan os.Signal) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, "gb completion: want one shell: bash, zsh or fish (gb completion --help)\n")
		return exitUsage
	}
	cmds := completionTable()
	var err error
	switch args[0] {
	case "bash":
		err = writeBash(stdout, cmds)
	case "zsh":
		err = writeZsh(stdout, cmds)
	case "fish":
		err = writeFish(stdout, cmds)
	default:
		fmt.Fprintf(stderr, "gb completion: unknown shell %q: want bash, zsh or fish\n", oneLine(args[0]))
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "gb completion: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// compFlag is one option as completion sees it: its short letter (0 =
// none), long name ("" = none) and what its value is.
type compFlag struct {
	short byte
	long  string
	value valueKind
}

// valueKind is what follows an option.
type valueKind int

const (
	noValue   valueKind = iota // a switch, or a value given only as --name=value
	fileValue                  // a file name: the shell completes files
	dirValue                   // a directory
	someValue                  // anything else: nothing to complete
)

// compCommand is one of gb's commands for completion: "" is the benchmark
// itself (gb [options] URL). words are what may follow the command name
// (k8s's "job", completion's shells); files says its other arguments are
// files (report, merge, compare).
type compCommand struct {
	name  string
	flags []compFlag
	words []string
	files bool
}

// fileArgs are the value names (Spec.Arg) of the options that take a file
// or a directory.
var fileArgs = map[string]valueKind{
	"file": fileValue, "filename": fileValue, "postfile": fileValue, "putfile": fileValue,
	"certfile": fileValue, "path": fileValue, "PATH": fileValue, "FILE": fileValue,
	"dir": dirValue, "DIR": dirValue,
}

// specFlags lists an option table for completion.
func specFlags[T any](specs []getopt.Spec[T]) []compFlag {
	out := make([]compFlag, 0, len(specs)+1)
	for _, s := range specs {
		out = append(out, compFlag{short: s.Short, long: s.Long, value: argKind(s.Arg)})
	}
	return withHelp(out)
}

// argKind is the value kind of an option whose value is named arg.
func argKind(arg string) valueKind {
	switch {
	case arg == "" || strings.HasPrefix(arg, "["):
		return noValue
	case fileArgs[arg] != 0:
		return fileArgs[arg]
	}
	return someValue
}

// withHelp adds --help, which every command takes, when flags lack it.
func withHelp(flags []compFlag) []compFlag {
	if !slices.ContainsFunc(flags, func(f compFlag) bool { return f.long == "help" }) {
		flags = append(flags, compFlag{long: "help"})
	}
	return flags
}

// usageOption matches an option line of a usage text: "    --addr host:port  ...".
var usageOption = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^ {2,6}(?:-([A-Za-z]),? ?)?--([a-z0-9][a-z0-9-]*)(?:[ =]([A-Za-z][A-Za-z:/.=±%N]*))?`)
})

// usageFlags lists the options a command's usage text shows, for any
// command without an option table.
func usageFlags(usage func(io.Writer)) []compFlag {
	var b strings.Builder
	usage(&b)
	var out []compFlag
	for _, m := range usageOption().FindAllStringSubmatch(b.String(), -1) {
		f := compFlag{long: m[2], value: argKind(m[3])}
		if m[1] != "" {
			f.short = m[1][0]
		}
		if m[3] != "" && f.value == noValue {
			f.value = someValue
		}
		out = append(out, f)
	}
	return withHelp(out)
}

// completionTable is every command with its options: the benchmark's from
// abSpecs, each subcommand's from its own table (or its usage text), so
// an option added to a table is completed with no change here.
func completionTable() []compCommand {
	ab := specFlags(abSpecs)
	cmds := []compCommand{{name: "", flags: ab}}
	for _, name := range commandNames() {
		c := compCommand{name: name}
		switch name {
		case "ramp":
			c.flags = specFlags(rampSpecs(&rampOptions{}))
		case "capacity":
			c.flags = specFlags(capacitySpecs)
		case "demo":
			c.flags = ab
		case "report":
			c.flags, c.files = specFlags(reportSpecs), true
		case "merge":
			c.flags, c.files = specFlags(mergeSpecs), true
		case "k8s":
			c.flags, c.words = slices.Concat(specFlags(k8sSpecs), ab), []string{"job"}
		case "compare":
			c.flags, c.files = specFlags(compareSpecs), true
		case "serve":
			c.flags = specFlags(serveSpecs)
		case "help":
			c.flags, c.words = []compFlag{}, commandNames()
		case "completion":
			c.flags, c.words = withHelp(nil), []string{"bash", "zsh", "fish"}
		default:
			if u := commands[name].usage; u != nil {
				c.flags = usageFlags(u)
			}
		}
		c.flags = dedupFlags(c.flags)
		cmds = append(cmds, c)
	}
	return cmds
}

// commandNames are gb's subcommands and help, sorted.
func commandNames() []string {
	names := []string{"help"}
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// dedupFlags drops the names an earlier option already has (a command's
// own --json before ab's), and an option left with none.
func dedupFlags(flags []compFlag) []compFlag {
	longs, shorts := map[string]bool{}, map[byte]bool{}
	out := flags[:0:0]
	for _, f := range flags {
		if longs[f.long] {
			f.long = ""
		}
		if shorts[f.short] {
			f.short = 0
		}
		if f.long == "" && f.short == 0 {
			continue
		}
		if f.long != "" {
			longs[f.long] = true
		}
		if f.short != 0 {
			shorts[f.short] = true
		}
		out = append(out, f)
	}
	return out
}

// names returns the command's option words ("-n", "--requests") whose value
// is of kind k; all of them when all is set.
func (c compCommand) names(k valueKind, all bool) []string {
	var out []string
	for _, f := range c.flags {
		if !all && f.value != k {
			continue
		}
		if f.short != 0 {
			out = append(out, "-"+string(f.short))
		}
		if f.long != "" {
			out = append(out, "--"+f.long)
		}
	}
	return out
}

// caseLabel is a shell case pattern of the command's name ("" for the
// benchmark: any first word that is no command).
func caseLabel(c compCommand) string {
	if c.name == "" {
		return "''"
	}
	return c.name
}
