package script

import (
	"errors"
	"os"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

var testTarget = Target{URL: "http://127.0.0.1:8080/x?y=1", Scheme: "http", Host: "127.0.0.1", Port: "8080", Path: "/x?y=1"}

// load compiles testdata/name (or src when given) and makes n threads.
func load(t testing.TB, name, src string, n int, args ...string) *Group {
	t.Helper()
	b := []byte(src)
	if src == "" {
		var err error
		if b, err = os.ReadFile("testdata/" + name); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Compile(name, b, testTarget, args)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.NewGroup(n, "127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

func TestCompileErrorIsOneLineWithFileAndLine(t *testing.T) {
	src, _ := os.ReadFile("testdata/syntax.lua")
	_, err := Compile("testdata/syntax.lua", src, testTarget, nil)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *CompileError", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "testdata/syntax.lua:3: ") || strings.Contains(msg, "\n") {
		t.Errorf("error = %q, want one line starting testdata/syntax.lua:3:", msg)
	}
}

func TestMainChunkErrorNamesFileAndLine(t *testing.T) {
	p, err := Compile("top.lua", []byte("local x = 1\nx()\n"), testTarget, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.NewGroup(1, "a:1")
	var re *RuntimeError
	if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "top.lua:2: ") {
		t.Errorf("err = %v, want a *RuntimeError at top.lua:2", err)
	}
}

// request returns the thread's next request as a string.
func request(t *testing.T, th *Thread) string {
	t.Helper()
	var b Batch
	if err := th.Request(&b); err != nil {
		t.Fatal(err)
	}
	return string(b.Bytes)
}

func TestStaticRequestFromTheWrkTable(t *testing.T) {
	g := load(t, "post.lua", `
wrk.method = "POST"
wrk.body = "k=v&w=z"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
`, 1)
	// Headers go out in the order they were first set: the script's,
	// then Host (set before init), then Content-Length.
	want := "POST /x?y=1 HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nHost: 127.0.0.1:8080\r\nContent-Length: 7\r\n\r\nk=v&w=z"
	if got := request(t, g.Threads[0]); got != want {
		t.Errorf("request =\n%q\nwant\n%q", got, want)
	}
}

func TestFormatTakesArgumentsAndTableDefaults(t *testing.T) {
	g := load(t, "fmt.lua", `
n = 0
function request()
   n = n + 1
   wrk.headers["X-N"] = n
   if n == 2 then return wrk.format("PUT", "/p", {["X-Own"] = "o"}, "body") end
   return wrk.format(nil, "/c/" .. n)
end
`, 1, "a")
	th := g.Threads[0]
	if got, want := request(t, th), "GET /c/1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-N: 1\r\n\r\n"; got != want {
		t.Errorf("first = %q, want %q", got, want)
	}
	if got, want := request(t, th), "PUT /p HTTP/1.1\r\nX-Own: o\r\nHost: 127.0.0.1:8080\r\nContent-Length: 4\r\n\r\nbody"; got != want {
		t.Errorf("second = %q, want %q", got, want)
	}
}

func TestInitGetsTheURLAndTheArguments(t *testing.T) {
	g := load(t, "args.lua", "", 2, "one", "two")
	for _, th := range g.Threads {
		for name, want := range map[string]string{"url": testTarget.URL, "first": "one", "second": "two"} {
			if got := th.L.GetGlobal(name).String(); got != want {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
	}
}

func TestThreadsHaveTheirOwnState(t *testing.T) {
	g := load(t, "setget.lua", "", 3)
	for i, th := range g.Threads {
		if got, want := request(t, th), "GET /from/"+string(rune('1'+i))+" HTTP/1.1"; !strings.HasPrefix(got, want) {
			t.Errorf("thread %d: request %q, want it to start %q", i, got, want)
		}
		cfg, ok := th.L.GetGlobal("config").(*lua.LTable)
		if !ok || cfg.RawGetString("name").String() != "t"+string(rune('1'+i)) {
			t.Errorf("thread %d: config table not copied by thread:set", i)
		}
	}
	_ = request(t, g.Threads[0])
	lat := StatsOf([]float64{100, 200, 200, 900})
	if err := g.Done(Summary{Requests: 4}, lat, nil); err != nil {
		t.Fatal(err)
	}
	L := g.setup
	for name, want := range map[string]float64{"total": 4, "p50": 200, "lo": 100, "hi": 900, "distinct": 3, "v1": 100, "c1": 1, "reqs": 4} {
		if got, _ := L.GetGlobal(name).(lua.LNumber); float64(got) != want {
			t.Errorf("done: %s = %v, want %v", name, L.GetGlobal(name), want)
		}
	}
}

func TestResponseGetsStatusHeadersAndBody(t *testing.T) {
	g := load(t, "respond.lua", "", 1)
	th := g.Threads[0]
	if !th.WantsResponse() {
		t.Fatal("WantsResponse = false for a script with response()")
	}
	if err := th.Response(201, []byte("Content-Type: text/x\nX-A: b\n"), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"last_status": "201", "last_type": "text/x", "last_body": "hello"} {
		if got := th.L.GetGlobal(name).String(); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestCallbackErrorIsRaisedOnce(t *testing.T) {
	g := load(t, "raise.lua", "", 1)
	var got []error
	g.OnError = func(err error) { got = append(got, err) }
	for range 2 {
		if err := g.Threads[0].Response(500, nil, nil); err == nil {
			t.Fatal("Response: no error from a raising response()")
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0].Error(), "raise.lua:3: no good: 500") {
		t.Errorf("OnError got %v, want one error at raise.lua:3", got)
	}
}

func TestRequestThatIsNotOne(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"function request() return 42 end", "not return a string"},
		{"function request() return {} end", "not return a string"},
		{`function request() return "GET / HTTP/1.1\r\nHost: x\r\n" end`, "no end to the header section"},
		{`function request() return "hello\r\n\r\n" end`, "bad request line"},
		{`function request() return "" end`, "empty request"},
		{`function request() return "POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc" end`, "shorter than its Content-Length"},
	} {
		g := load(t, "bad.lua", tc.src, 1)
		var b Batch
		err := g.Threads[0].Request(&b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestBatchSplitsPipelinedRequests(t *testing.T) {
	var b Batch
	reqs := []string{
		"GET /a HTTP/1.1\r\nHost: h\r\n\r\n",
		"HEAD /b HTTP/1.1\r\nHost: h\r\n\r\n",
		"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"PUT /d HTTP/1.1\r\nContent-Length: 2\r\n\r\nxy",
	}
	if err := b.set([]byte(strings.Join(reqs, ""))); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 4 || b.Idempotent || !b.Head(1) || b.Head(0) {
		t.Fatalf("Len %d Idempotent %v heads %v", b.Len(), b.Idempotent, b.heads)
	}
	for i, r := range reqs {
		if got := string(b.Span(i, i+1)); got != r {
			t.Errorf("request %d = %q, want %q", i, got, r)
		}
	}
	if got := string(b.Span(2, 4)); got != reqs[2]+reqs[3] {
		t.Errorf("Span(2, 4) = %q", got)
	}
}

func TestStatsOf(t *testing.T) {
	s := StatsOf([]float64{3, 1, 2, 2})
	if s.Min != 1 || s.Max != 3 || s.Mean != 2 || s.Percentile(50) != 2 || s.Percentile(100) != 3 {
		t.Errorf("StatsOf = %+v", s)
	}
	if len(s.Values) != 3 || s.Values[0] != 1 || s.Counts[1] != 2 {
		t.Errorf("values %v counts %v", s.Values, s.Counts)
	}
}
