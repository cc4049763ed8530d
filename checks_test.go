package gb_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// runChecked runs cfg against srv's /wrong (every 100th body wrong); a
// hang fails after a minute.
func runChecked(t *testing.T, srv *testserver.Server, cfg gb.Config) *gb.Result {
	t.Helper()
	cfg.URL = srv.URL() + "/wrong"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := gb.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.StoppedBy != stats.StopCount {
		t.Fatalf("stopped by %s (%s)", res.StoppedBy, res.StopError)
	}
	if errs := res.Check(); len(errs) > 0 {
		t.Fatalf("invariants: %v", errs)
	}
	return res
}

// TestChecksCountEachResponse: Config.Checks on every engine, closed loop,
// rate mode and pipelined (where a response that fails a check is still a
// whole response: the batch goes on): each check counts each response once, and the responses
// that fail one are failed.check, exactly the server's wrong ones (each
// run starts at a multiple of 100 of the server's count: n/100 wrong).
func TestChecksCountEachResponse(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	checks := []string{`body !contains "no"`, "status in 200,204", "header[X-Wrong]!=1", "size>=11"}
	for _, tc := range []struct {
		name string
		cfg  gb.Config
	}{
		{"loop", gb.Config{Requests: 1000, Concurrency: 8, KeepAlive: true}},
		{"goroutine", gb.Config{Requests: 1000, Concurrency: 8, KeepAlive: true, Engine: gb.EngineGoroutine}},
		{"no keep-alive", gb.Config{Requests: 300, Concurrency: 3}},
		{"rate", gb.Config{Requests: 300, Concurrency: 4, KeepAlive: true, Rate: gb.Rate{Freq: 3000, Per: time.Second}}},
		{"pipelined", gb.Config{Requests: 1000, Concurrency: 4, KeepAlive: true, Pipeline: 10}},
		{"pipelined goroutine", gb.Config{Requests: 1000, Concurrency: 4, KeepAlive: true, Pipeline: 10, Engine: gb.EngineGoroutine}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Checks = checks
			res := runChecked(t, srv, tc.cfg)
			n := tc.cfg.Requests
			bad := n / 100
			want := []stats.CheckStats{cs(checks[0], n-bad, bad), cs(checks[1], n, 0), cs(checks[2], n-bad, bad), cs(checks[3], n, 0)}
			o := &res.Counts.Outcomes
			if !slices.Equal(res.Checks, want) || o[stats.FailCheck] != bad || o[stats.OK] != n-bad || res.Counts.Errors[`check failed: body !contains "no"`] != bad {
				t.Errorf("checks %+v, outcomes %s, errors %v; want %+v, %d failed.check", res.Checks, outcomeList(o), res.Counts.Errors, want, bad)
			}
		})
	}
}

// outcomeList spells the non-zero outcomes.
func outcomeList(o *stats.Outcomes) string {
	var parts []string
	for i, v := range o {
		if v > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", stats.Outcome(i), v))
		}
	}
	return strings.Join(parts, " ")
}

// TestChecksWithAScript: a script's response() and the checks see the
// same responses. One that raises stops the load (as wrk's do) with its
// response failed.script, which comes before failed.check, and the checks
// still count that response.
func TestChecksWithAScript(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{NoPprof: true})
	checks := []string{`body contains "ok":true`, "status==200"}
	counting := `
function response(status, headers, body)
   if (headers["X-Wrong"] ~= nil) ~= (body == '{"no":true}') then error("headers and body disagree") end
end
`
	res := runChecked(t, srv, gb.Config{Requests: 1000, Concurrency: 4, KeepAlive: true,
		Script: "counting.lua", ScriptSource: []byte(counting), Checks: checks})
	o := &res.Counts.Outcomes
	want := []stats.CheckStats{cs(checks[0], 990, 10), cs(checks[1], 1000, 0)}
	if !slices.Equal(res.Checks, want) || o[stats.OK] != 990 || o[stats.FailCheck] != 10 {
		t.Errorf("checks %+v, outcomes %s; want %+v, 990 ok, 10 failed.check", res.Checks, outcomeList(o), want)
	}

	raising := `function response(status, headers, body) if headers["X-Wrong"] then error("wrong body") end end`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := gb.Run(ctx, gb.Config{URL: srv.URL() + "/wrong", Requests: 1000, Concurrency: 1, KeepAlive: true,
		Script: "raising.lua", ScriptSource: []byte(raising), Checks: checks})
	if err != nil {
		t.Fatal(err)
	}
	o = &res.Counts.Outcomes
	want = []stats.CheckStats{cs(checks[0], 99, 1), cs(checks[1], 100, 0)}
	if res.StoppedBy != stats.StopError || !slices.Equal(res.Checks, want) || o[stats.FailScript] != 1 || o[stats.FailCheck] != 0 || o[stats.OK] != 99 {
		t.Errorf("stopped by %s, checks %+v, outcomes %s; want error, %+v, 99 ok and failed.script 1", res.StoppedBy, res.Checks, outcomeList(o), want)
	}
}

// TestChecksConfigErrors: what Config.Checks cannot run is a one-line
// *ConfigError naming the Config's fields.
func TestChecksConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  gb.Config
		want string
	}{
		{gb.Config{Checks: []string{"status=="}}, `Config.Checks check "status==": no value after ==`},
		{gb.Config{Checks: []string{"body contains x"}, Compressed: true}, "Config.Checks on the body and Config.Compressed cannot be combined: the body is checked as received, and Config.Compressed bodies arrive encoded"},
	} {
		tc.cfg.URL, tc.cfg.Requests = "http://127.0.0.1:1/", 1
		_, err := gb.NewPlan(tc.cfg)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || err.Error() != tc.want {
			t.Errorf("%q: %v, want the ConfigError %q", tc.cfg.Checks, err, tc.want)
		}
	}
}

// cs is a check's expected account.
func cs(expr string, passes, fails int64) stats.CheckStats {
	return stats.CheckStats{Expr: expr, Passes: passes, Fails: fails}
}
