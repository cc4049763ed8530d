package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestConfigErrorsNameFlags: every Config field the library's errors refer
// to ({Rate}, {Protocol=h2}) has its flag in configFlags, and every flag
// named there is one of gb's options, so that no library word
// ("Config.Rate") reaches the command line.
func TestConfigErrorsNameFlags(t *testing.T) {
	files, err := filepath.Glob("../../*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("the library's files: %v", err)
	}
	refs := map[string]string{} // ref → where
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if id, isID := callee(call); !ok || !isID || id != "configErr" || len(call.Args) < 2 {
				return true
			}
			if lit, ok := call.Args[1].(*ast.BasicLit); ok {
				format, _ := strconv.Unquote(lit.Value)
				for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(format, -1) {
					refs[m[1]] = fset.Position(call.Pos()).String()
				}
			}
			return true
		})
	}
	if len(refs) < 20 {
		t.Fatalf("found %d field references in the library's errors: the parse went wrong", len(refs))
	}
	for ref, where := range refs {
		if configFlags[ref] == "" {
			t.Errorf("%s: {%s} has no flag in configFlags", where, ref)
		}
	}
	known := map[string]bool{}
	for _, s := range abSpecs {
		known["--"+s.Long] = true
		if s.Short != 0 {
			known["-"+string(s.Short)] = true
		}
	}
	for ref, words := range configFlags {
		for _, w := range strings.FieldsFunc(words, func(r rune) bool { return r == '/' || r == ' ' || r == '=' }) {
			if strings.HasPrefix(w, "-") && !known[w] {
				t.Errorf("configFlags[%q] = %q: %s is not an option", ref, words, w)
			}
		}
	}
}

// callee is the name of a call's function when it is a plain identifier.
func callee(call *ast.CallExpr) (string, bool) {
	if call == nil {
		return "", false
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// TestConfigErrorsInFlags: the library's errors reach the command line in
// its words, exit 22, with no Config field named.
func TestConfigErrorsInFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--streams", "2", "http://127.0.0.1:1/"}, "gb: --streams is HTTP/2's and HTTP/3's: add --http2 (https://), --h2c (http://) or --http3 (https://)\n"},
		{[]string{"--http3", "-I", "https://127.0.0.1:1/"}, "gb: -I (no SNI) is not supported with --http3\n"},
		{[]string{"--check", "status==abc", "http://127.0.0.1:1/"}, "gb: --check \"status==abc\": \"abc\" is not a non-negative whole number\n"},
		{[]string{"--shard", "0/3", "-n", "10", "-c", "2", "http://127.0.0.1:1/"}, "gb: --shard 0/3: -c 2 cannot be split 3 ways (each shard needs a connection)\n"},
		{[]string{"-n", "1", "--sni", "x", "-I", "https://127.0.0.1:1/"}, "gb: --sni and -I (no SNI) cannot be combined\n"},
		{[]string{"-n", "1", "-B", "nowhere", "http://127.0.0.1:1/"}, "gb: invalid -B \"nowhere\": want an IP address, a list a,b or a range a-b\n"},
	} {
		r := runGB(t, tc.args...)
		if r.code != exitUsage || r.stderr != tc.want {
			t.Errorf("gb %s: exit %d, stderr %q; want 22, %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.want)
		}
	}
}
