package diagnose

import (
	"fmt"
	"strings"

	pprof "github.com/google/pprof/profile"
)

// stdRoots are the first elements of the import paths of Go's standard
// library, runtime included.
var stdRoots = map[string]bool{}

func init() {
	for _, r := range strings.Fields(`archive bufio bytes cmp compress container context crypto database
		debug embed encoding errors expvar flag fmt go hash html image index internal io iter log maps math
		mime net os path plugin reflect regexp runtime slices sort strconv strings structs sync syscall
		testing text time unicode unique unsafe vendor weak`) {
		stdRoots[r] = true
	}
}

// maxName caps a function name (from the server) kept in a diagnosis.
const maxName = 200

// stack returns the function names of a sample, innermost first (inlined
// frames count as functions, as in pprof).
func stack(s *pprof.Sample) []string {
	var out []string
	for _, loc := range s.Location {
		if len(loc.Line) == 0 {
			out = append(out, fmt.Sprintf("%#x", loc.Address))
			continue
		}
		for _, ln := range loc.Line {
			name := "?"
			if ln.Function != nil {
				name = ln.Function.Name
			}
			out = append(out, name)
		}
	}
	return out
}

// pkgPath returns the import path of a Go function name
// ("github.com/a/b.(*T).M" → "github.com/a/b"), "" when it has none.
func pkgPath(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot <= 0 {
		return ""
	}
	return name[:slash+1+dot]
}

// IsOwn reports whether the function named name belongs to the server's
// own code: a package outside Go's standard library and runtime (its
// main module, package main, and the modules it depends on). A name
// without a package (an address, "?") or of a compiler-generated
// function ("type:.eq.…") is not.
func IsOwn(name string) bool {
	pkg := pkgPath(name)
	if pkg == "" || strings.ContainsAny(pkg, ": ") {
		return false
	}
	root, _, _ := strings.Cut(pkg, "/")
	return pkg == "main" || !stdRoots[root]
}

// isRuntime reports whether a function belongs to the runtime proper.
func isRuntime(name string) bool {
	pkg := pkgPath(name)
	if pkg == "" { // an assembly routine of the runtime ("aeshashbody"), not an address or "?"
		return name != "?" && !strings.HasPrefix(name, "0x") && !strings.Contains(name, ".")
	}
	return pkg == "runtime" || strings.HasPrefix(pkg, "internal/runtime/") || pkg == "internal/bytealg"
}

// innermostOwn returns the innermost function of the server's own code
// on st, or "".
func innermostOwn(st []string) string {
	for _, f := range st {
		if IsOwn(f) {
			return f
		}
	}
	return ""
}

// clean makes a server-supplied name safe to keep: no control or
// non-graphic characters, at most maxName runes.
func clean(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxName {
			b.WriteString("...")
			break
		}
		if r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\uFFFD' {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// sampleIndex returns the index of the sample type named typ, else the
// profile's default (DefaultSampleType, else the last); -1 without any.
func sampleIndex(p *pprof.Profile, typ string) int {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i
		}
	}
	for i, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			return i
		}
	}
	return len(p.SampleType) - 1
}
