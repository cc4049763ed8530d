package check

import (
	"strings"
	"testing"
)

var resp = Response{
	Status: 200,
	Size:   17,
	Fields: []byte("Content-Type: application/json; charset=utf-8\nX-Cache: HIT\nx-cache:  MISS \n"),
	Body:   []byte(`{"id":42,"ok":true}`),
}

// TestHolds evaluates each form of the grammar on one response.
func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{"status==200", true},
		{"status = 200", true},
		{"status==201", false},
		{"status!=500", true},
		{"status!=200", false},
		{"status<300", true},
		{"status >= 300", false},
		{"status in 200,204", true},
		{"status in 201, 204", false},
		{"status in 200-299", true},
		{"status in 100-199,300-599", false},
		{"status !in 500-599", true},
		{"status !in 200", false},
		{"size==17", true},
		{"size>=100", false},
		{"size<18", true},
		{"size>17", false},
		{"size<=17", true},
		{"size!=17", false},
		{`body contains "ok":true`, true},
		{`body contains "\"ok\":true"`, true},
		{`body contains error`, false},
		{`body contains "ok`, true},
		{`body !contains error`, true},
		{`body !contains 42`, false},
		{`body matches ^\{"id":[0-9]+`, true},
		{`body matches "^\\{\"id\":\\d+"`, true},
		{`body matches ^[0-9]+$`, false},
		{`body !matches ^[0-9]+$`, true},
		{"header[Content-Type] contains json", true},
		{"header[content-type] contains JSON", false},
		{"header[CONTENT-TYPE] contains json", true},
		{"header[Content-Type] == application/json; charset=utf-8", true},
		{"header[Content-Type]==application/json", false},
		{"header[Content-Type] != application/json", true},
		{"header[X-Cache]==MISS", true}, // the second field of the name, trimmed
		{"header[X-Cache]==HIT", true},
		{"header[X-Cache] !contains MISS", false},
		{"header[X-Cache] matches ^(HIT|MISS)$", true},
		{"header[X-Missing] contains a", false},
		{"header[X-Missing] !contains a", true},
		{"header[X-Missing]==a", false},
		{"header[X-Missing]!=a", true},
	} {
		c, err := Parse(tc.expr)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.expr, err)
			continue
		}
		if got := c.Holds(&resp); got != tc.want {
			t.Errorf("%q on the response: %v, want %v", tc.expr, got, tc.want)
		}
	}
}

// TestParseErrors: a bad expression is one line that quotes it and says
// what was wanted.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"", "unknown subject"},
		{"latency<5", "unknown subject"},
		{"status", "no operator after status"},
		{"status 200", "no operator after status"},
		{"status==", "no value after =="},
		{"status==abc", `"abc" is not a non-negative whole number`},
		{"status==2000", "status 2000 out of range"},
		{"status==-1", "not a non-negative whole number"},
		{"status in 200,abc", `"abc" is not a status code or range`},
		{"status in 299-200", `"299-200" is not a status code or range`},
		{"status contains 2", "status takes ==, !=, <, <=, >, >=, in or !in, not contains"},
		{"size in 1,2", "size takes ==, !=, <, <=, > or >=, not in"},
		{"size>=1k", `"1k" is not a non-negative whole number`},
		{"body==ok", "body takes contains, !contains, matches or !matches, not =="},
		{"body contain ok", "no operator after body"},
		{"body containsok", "no operator after body"},
		{"body contains", "no operator after body"},
		{`body contains ""`, "contains needs a non-empty text"},
		{`body contains "a" "b"`, "text in double quotes must be a Go string literal"},
		{"body matches (", "bad regular expression: missing closing )"},
		{"header[]==a", "want header[Name]"},
		{"header[Content Type]==a", "want header[Name]"},
		{"header[X==a", "want header[Name]"},
		{"header[X] < 5", "header[X] takes ==, !=, contains"},
	} {
		_, err := Parse(tc.expr)
		if err == nil {
			t.Errorf("Parse(%q) passed, want an error with %q", tc.expr, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "check ") {
			t.Errorf("Parse(%q) = %q, want one line starting `check ` with %q", tc.expr, msg, tc.want)
		}
	}
}

// TestEval returns one bit per failing check and the first one's error.
func TestEval(t *testing.T) {
	s, err := ParseAll([]string{"status==200", "body contains nope", "size==17", "header[X-Cache]==STALE"})
	if err != nil {
		t.Fatal(err)
	}
	fails, ferr := s.Eval(&resp)
	if fails != 0b1010 || ferr == nil || ferr.Error() != "check failed: body contains nope" {
		t.Errorf("Eval = %04b, %v; want 1010 and the body check's error", fails, ferr)
	}
	if !s.NeedsBody() || !s.NeedsFields() {
		t.Error("a body and a header check: NeedsBody and NeedsFields want true")
	}
	s, _ = ParseAll([]string{"status==200", "size>0"})
	if s.NeedsBody() || s.NeedsFields() {
		t.Error("status and size checks need neither the body nor the fields")
	}
	if fails, ferr := s.Eval(&Response{Status: 200, Size: 5}); fails != 0 || ferr != nil {
		t.Errorf("Eval = %b, %v; want 0, nil", fails, ferr)
	}
	if s, err := ParseAll(nil); s != nil || err != nil || s.NeedsBody() || s.Exprs() != nil {
		t.Errorf("ParseAll(nil) = %v, %v; want a nil set", s, err)
	}
	many := make([]string, MaxChecks+1)
	for i := range many {
		many[i] = "status==200"
	}
	if _, err := ParseAll(many); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("65 checks: %v, want at most 64", err)
	}
}

// TestBodyPrefix: the body checks read the first MaxBody bytes only.
func TestBodyPrefix(t *testing.T) {
	body := make([]byte, MaxBody+10)
	copy(body[MaxBody:], "tail")
	r := &Response{Status: 200, Size: int64(len(body)), Body: body}
	s, _ := ParseAll([]string{"body contains tail", "body !contains tail", "size>1048576"})
	if fails, _ := s.Eval(r); fails != 0b001 {
		t.Errorf("Eval = %03b, want 001: the text after MaxBody is not seen, the size is whole", fails)
	}
}

// TestEvalAllocs: evaluating every kind of check allocates nothing.
func TestEvalAllocs(t *testing.T) {
	s, err := ParseAll([]string{"status in 200-299", "size>=1", "body contains ok", "body matches [0-9]+",
		"header[Content-Type] contains json", "header[X-Cache] matches HIT"})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { s.Eval(&resp) }); n != 0 {
		t.Errorf("Eval allocates %v times per response, want 0", n)
	}
}
