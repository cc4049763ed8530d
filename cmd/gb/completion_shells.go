package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// The scripts below are data-driven: one branch per command listing its
// options by the kind of value they take. Option names are [a-z0-9-] and
// single letters, command names lowercase words, so nothing needs quoting.

// writeBash writes the bash script: a function _gb for complete -F.
func writeBash(w io.Writer, cmds []compCommand) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, `# bash completion for gb: source it, or save it as
# ~/.local/share/bash-completion/completions/gb (made by gb completion bash).
_gb() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ $cur == "=" ]]; then
        cur=
    elif [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    COMPREPLY=()
    local cmd=
`)
	fmt.Fprintf(b, "    ((COMP_CWORD > 1)) && case ${COMP_WORDS[1]} in %s) cmd=${COMP_WORDS[1]} ;; esac\n", strings.Join(commandNames(), "|"))
	fmt.Fprint(b, "    case $cmd in\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "    %s)\n", caseLabel(c))
		bashPrev(b, c.names(fileValue, false), "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))")
		bashPrev(b, c.names(dirValue, false), "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))")
		bashPrev(b, c.names(someValue, false), ":")
		fmt.Fprintf(b, "        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W %q -- \"$cur\")); return; fi\n", strings.Join(c.names(0, true), " "))
		switch {
		case c.name == "":
			fmt.Fprintf(b, "        ((COMP_CWORD == 1)) && COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", strings.Join(commandNames(), " "))
		case len(c.words) > 0:
			fmt.Fprintf(b, "        ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", strings.Join(c.words, " "))
		case c.files:
			fmt.Fprint(b, "        compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))\n")
		}
		fmt.Fprint(b, "        ;;\n")
	}
	fmt.Fprint(b, "    esac\n}\ncomplete -F _gb gb\n")
	return b.Flush()
}

// bashPrev writes the case that runs action when the previous word is one
// of opts (an option that takes the word being completed as its value).
func bashPrev(b *bufio.Writer, opts []string, action string) {
	if len(opts) > 0 {
		fmt.Fprintf(b, "        case $prev in %s) %s; return ;; esac\n", strings.Join(opts, "|"), action)
	}
}

// writeZsh writes the zsh script: a function _gb that works from $fpath
// (#compdef) and when sourced (it calls compdef then).
func writeZsh(w io.Writer, cmds []compCommand) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, `#compdef gb
# zsh completion for gb: save it as _gb in a directory on $fpath, or source
# it after compinit (made by gb completion zsh).
_gb() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd=
    if [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        compset -P '*='
    fi
`)
	fmt.Fprintf(b, "    (( CURRENT > 2 )) && case ${words[2]} in (%s) cmd=${words[2]} ;; esac\n", strings.Join(commandNames(), "|"))
	fmt.Fprint(b, "    case $cmd in\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "    (%s)\n", caseLabel(c))
		zshPrev(b, c.names(fileValue, false), "_files")
		zshPrev(b, c.names(dirValue, false), "_files -/")
		zshPrev(b, c.names(someValue, false), "_message value")
		fmt.Fprintf(b, "        if [[ $cur == -* ]]; then compadd -- %s; return; fi\n", strings.Join(c.names(0, true), " "))
		switch {
		case c.name == "":
			fmt.Fprintf(b, "        (( CURRENT == 2 )) && compadd -- %s\n", strings.Join(commandNames(), " "))
		case len(c.words) > 0:
			fmt.Fprintf(b, "        (( CURRENT == 3 )) && compadd -- %s\n", strings.Join(c.words, " "))
		case c.files:
			fmt.Fprint(b, "        _files\n")
		}
		fmt.Fprint(b, "        ;;\n")
	}
	fmt.Fprint(b, `    esac
}
if [[ $funcstack[1] == _gb ]]; then
    _gb "$@"
else
    compdef _gb gb
fi
`)
	return b.Flush()
}

// zshPrev is bashPrev for zsh.
func zshPrev(b *bufio.Writer, opts []string, action string) {
	if len(opts) > 0 {
		fmt.Fprintf(b, "        case $prev in (%s) %s; return ;; esac\n", strings.Join(opts, "|"), action)
	}
}

// writeFish writes the fish script: complete rules conditioned on the
// command (__gb_cmd prints it; "" for the benchmark).
func writeFish(w io.Writer, cmds []compCommand) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, `# fish completion for gb: save it as ~/.config/fish/completions/gb.fish
# (made by gb completion fish).
function __gb_cmd
    set -l t (commandline -opc)
    if test (count $t) -ge 2
        switch $t[2]
`)
	fmt.Fprintf(b, "            case %s\n                echo $t[2]\n", strings.Join(commandNames(), " "))
	fmt.Fprint(b, `        end
    end
end
function __gb_in
    set -l c (__gb_cmd)
    test "$c" = "$argv[1]"
end
function __gb_nargs
    test (count (commandline -opc)) -eq $argv[1]
end
complete -c gb -f
`)
	for _, c := range cmds {
		cond := fmt.Sprintf("__gb_in %s", fishQuote(c.name))
		for _, f := range c.flags {
			fmt.Fprintf(b, "complete -c gb -n %s%s%s\n", fishQuote(cond), fishFlag(f), fishValue(f.value))
		}
		switch {
		case c.name == "":
			fmt.Fprintf(b, "complete -c gb -n %s -a %s\n", fishQuote(cond+"; and __gb_nargs 1"), fishQuote(strings.Join(commandNames(), " ")))
		case len(c.words) > 0:
			fmt.Fprintf(b, "complete -c gb -n %s -a %s\n", fishQuote(cond+"; and __gb_nargs 2"), fishQuote(strings.Join(c.words, " ")))
		case c.files:
			fmt.Fprintf(b, "complete -c gb -n %s -F\n", fishQuote(cond))
		}
	}
	return b.Flush()
}

// fishFlag is the -s/-l part of a fish complete rule.
func fishFlag(f compFlag) string {
	s := ""
	if f.short != 0 {
		s += " -s " + string(f.short)
	}
	if f.long != "" {
		s += " -l " + f.long
	}
	return s
}

// fishValue is the value part of a fish complete rule: files (-r -F),
// directories, or a value with nothing to offer (-x).
func fishValue(k valueKind) string {
	switch k {
	case fileValue:
		return " -r -F"
	case dirValue:
		return " -x -a '(__fish_complete_directories)'"
	case someValue:
		return " -x"
	}
	return ""
}

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
