package compare

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// splitName splits a Go function name as profiles spell it into its
// package path and the rest: "net/http.(*conn).serve" → "net/http",
// "(*conn).serve". A name without a package gives "" and the name.
func splitName(name string) (pkg, rest string) {
	head := name
	if i := strings.IndexByte(head, '['); i >= 0 {
		head = head[:i] // type arguments may hold slashes and dots
	}
	slash := strings.LastIndexByte(head, '/')
	dot := strings.IndexByte(head[slash+1:], '.')
	if dot < 0 {
		return "", name
	}
	dot += slash + 1
	return name[:dot], name[dot+1:]
}

// closurePart matches the segments the compiler appends for function
// literals and wrappers: func1, gowrap2, deferwrap1, and the 1, 2 of
// nested literals.
var closurePart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(func|gowrap|deferwrap)?[0-9]+$`) })

// closureKey returns the name under which a closure is matched across
// profiles: its package and the innermost named function that encloses it,
// so "main.main.timedHandler.func1" (timedHandler inlined into main) and
// "main.timedHandler.func1" have the same key. Names that are not
// closures, or hold type arguments, are their own key.
func closureKey(name string) string {
	pkg, rest := splitName(name)
	if strings.ContainsAny(rest, "[]") {
		return name
	}
	segs := strings.Split(rest, ".")
	j := len(segs)
	for j > 0 && closurePart().MatchString(segs[j-1]) {
		j--
	}
	if j == len(segs) || j < 2 {
		return name
	}
	start := j - 1
	if strings.HasPrefix(segs[start-1], "(") { // a method's receiver, (*T).M.func1
		start--
	}
	return pkg + "." + strings.Join(segs[start:], ".")
}

// unify returns the renaming that makes the same closure one name in two
// profiles: names of side a and side b whose closureKey is shared by
// exactly one name on each side (and no other) become the shorter of the
// two. Names with ambiguous keys keep their names.
func unify(a, b map[string]bool) map[string]string {
	byKey := map[string][2][]string{}
	for side, names := range []map[string]bool{a, b} {
		for n := range names {
			k := closureKey(n)
			e := byKey[k]
			e[side] = append(e[side], n)
			byKey[k] = e
		}
	}
	rename := map[string]string{}
	for _, e := range byKey {
		if len(e[0]) != 1 || len(e[1]) != 1 || e[0][0] == e[1][0] {
			continue
		}
		x, y := e[0][0], e[1][0]
		if len(y) < len(x) || len(y) == len(x) && y < x {
			x, y = y, x
		}
		rename[y] = x
	}
	return rename
}

// internalPkg reports whether a package is the runtime or a standard
// library internal one, whose frames a profile diff charges to their
// caller (runtime.concatstrings to the function that concatenated).
func internalPkg(pkg string) bool {
	return pkg == "runtime" || strings.HasPrefix(pkg, "runtime/") || strings.HasPrefix(pkg, "internal/")
}

// maxNameLen caps a function name (from the server) in the text.
const maxNameLen = 200

// printable makes a function name read from a profile (untrusted) safe
// to print: control and other non-printing characters become '?', and it
// is cut to maxNameLen runes.
func printable(name string) string {
	r := []rune(strings.Map(func(c rune) rune {
		if unicode.IsPrint(c) {
			return c
		}
		return '?'
	}, name))
	if len(r) > maxNameLen {
		return string(r[:maxNameLen-1]) + "…"
	}
	return string(r)
}
