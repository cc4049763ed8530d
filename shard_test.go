package gb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestShardShares: for many splits, the shares of -n, -R and -c over the
// N shards sum to the whole exactly, differ by at most one, and shard I's
// share is the same each time it is asked for; a share that would be 0 is
// a ConfigError naming the field, and the zero Shard leaves a Config as is.
func TestShardShares(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7, 10, 16, 64, 1000} {
		for _, total := range []int64{int64(n), int64(n) + 1, 2*int64(n) - 1, 1000, 1001, 999_999_937, 1 << 40} {
			whole := gb.Config{Requests: total, Concurrency: n, Rate: gb.Rate{Freq: total, Per: time.Second}}
			var sumN, sumR, sumC int64
			lo, hi := int64(1<<62), int64(0)
			for i := range n {
				whole.Shard = gb.Shard{Index: i, Count: n}
				c, err := whole.Sharded()
				if err != nil {
					t.Fatalf("%d/%d of %d: %v", i, n, total, err)
				}
				again, _ := whole.Sharded()
				if again.Requests != c.Requests || again.Concurrency != c.Concurrency || again.Rate != c.Rate {
					t.Errorf("%d/%d of %d: two answers", i, n, total)
				}
				sumN, sumR, sumC = sumN+c.Requests, sumR+c.Rate.Freq, sumC+int64(c.Concurrency)
				lo, hi = min(lo, c.Requests), max(hi, c.Requests)
			}
			if sumN != total || sumR != total || sumC != int64(n) || hi-lo > 1 {
				t.Errorf("%d shards of %d: -n shares sum to %d (from %d to %d), -R to %d, -c to %d", n, total, sumN, lo, hi, sumR, sumC)
			}
		}
	}
	base := gb.Config{Requests: 10, Concurrency: 4, Rate: gb.Rate{Freq: 3}}
	if c, err := base.Sharded(); err != nil || c.Requests != 10 || c.Concurrency != 4 || c.Rate.Freq != 3 {
		t.Errorf("unsharded: %+v %v", c, err)
	}
	for _, tc := range []struct {
		cfg  gb.Config
		flag string
	}{
		{gb.Config{Requests: 10, Concurrency: 2}, "Config.Concurrency 2"},
		{gb.Config{Requests: 2, Concurrency: 3}, "Config.Requests 2"},
		{gb.Config{Duration: time.Second, Concurrency: 3, Rate: gb.Rate{Freq: 2}}, "Config.Rate 2/1s"},
	} {
		tc.cfg.Shard = gb.Shard{Index: 0, Count: 3}
		_, err := tc.cfg.Sharded()
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.flag) || !strings.HasPrefix(err.Error(), "Config.Shard 0/3:") {
			t.Errorf("%+v: error %v, want a ConfigError naming %s", tc.cfg, err, tc.flag)
		}
	}
}

// runShards runs cfg as n shards side by side in this process, all from
// one StartAt, and returns their results in shard order.
func runShards(t *testing.T, cfg gb.Config, n int) []*gb.Result {
	t.Helper()
	cfg.StartAt = time.Now().Add(300 * time.Millisecond)
	rs := make([]*gb.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		c := cfg
		c.Shard = gb.Shard{Index: i, Count: n}
		wg.Go(func() { rs[i], errs[i] = gb.Run(context.Background(), c) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		if rs[i].Start.Before(cfg.StartAt) {
			t.Errorf("shard %d started at %v, before --start-at %v", i, rs[i].Start, cfg.StartAt)
		}
	}
	return rs
}

// TestShardsMerge: one load of 3001 requests on 4 connections, run as two
// shards from one start time against gb's own server, then merged. Each
// shard did its share and records it; the merge holds the whole load
// (counts equal -n, shares summed back, no shard named); its histogram is
// exactly the sum of the shards' (so every percentile is the one of the
// summed histogram), its exact moments the merged moments; its time
// series has one point per interval, aligned on wall-clock multiples of
// the interval, each the sum of the shards' points with the same start.
// Merging the shards read back from JSON gives the same result.
func TestShardsMerge(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	const every = 50 * time.Millisecond
	rs := runShards(t, gb.Config{URL: srv.URL() + "/hello", KeepAlive: true, Concurrency: 4, Requests: 3001, Interval: every}, 2)
	a, b := rs[0], rs[1]
	if a.Load.Requests != 1501 || b.Load.Requests != 1500 || a.Load.Concurrency != 2 || b.Load.Concurrency != 2 ||
		a.Load.Shard != (gb.Shard{Index: 0, Count: 2}) || b.Load.Shard != (gb.Shard{Index: 1, Count: 2}) {
		t.Fatalf("shard targets: %+v / %+v", a.Load, b.Load)
	}
	if a.Complete() != 1501 || b.Complete() != 1500 {
		t.Fatalf("shards completed %d and %d", a.Complete(), b.Complete())
	}
	m, err := gb.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Complete() != 3001 || m.Counts.Dispatched != 3001 || m.Counts.Status[200] != 3001 || m.Load.Requests != 3001 ||
		m.Load.Concurrency != 4 || !m.Load.Shard.IsZero() {
		t.Errorf("merged: complete %d dispatched %d 200s %d requests %d concurrency %d shard %v",
			m.Complete(), m.Counts.Dispatched, m.Counts.Status[200], m.Load.Requests, m.Load.Concurrency, m.Load.Shard)
	}
	if errs := m.Check(); len(errs) > 0 {
		t.Errorf("merged result breaks invariants: %v", errs)
	}
	checkExactSum(t, m, a, b)
	checkSeries(t, m, every, a, b)

	// The same shards through their JSON (series points come back sparse).
	back := func(r *gb.Result) *gb.Result {
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(r); err != nil {
			t.Fatal(err)
		}
		rr, err := stats.ReadRuns(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return rr.Runs[0]
	}
	checkSchema(t, a)
	ja, jb := back(a), back(b)
	if ja.Load.Shard != a.Load.Shard {
		t.Errorf("the shard did not survive JSON: %v", ja.Load.Shard)
	}
	mj, err := gb.Merge(ja, jb)
	if err != nil {
		t.Fatal(err)
	}
	checkExactSum(t, mj, ja, jb)
	checkSeries(t, mj, every, ja, jb)
	if !mj.Latency[stats.Total].Hist.Equals(m.Latency[stats.Total].Hist) {
		t.Error("merging the JSON shards gives another histogram")
	}
}

// checkSchema: a shard's JSON matches stats/result.schema.json, and the
// schema refuses a shard of no count.
func checkSchema(t *testing.T, r *gb.Result) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile("stats/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := *r
	c.Command = []string{"gb"} // a library run has none, which the schema refuses
	doc, _ := json.Marshal(&c)
	for _, tc := range []struct {
		doc   []byte
		valid bool
	}{{doc, true}, {bytes.Replace(doc, []byte(`"count":2}`), []byte(`"count":0}`), 1), false}} {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); (err == nil) != tc.valid {
			t.Errorf("schema on a shard's result (valid %v): %v", tc.valid, err)
		}
	}
}

// checkExactSum: each phase of m is exactly the sum of the parts'.
func checkExactSum(t *testing.T, m *gb.Result, parts ...*gb.Result) {
	t.Helper()
	for p := range stats.NumPhases {
		h := stats.NewHistogram()
		var want stats.Exact
		for _, r := range parts {
			if d := r.Latency[p]; d != nil {
				h.Merge(d.Hist)
				want.Merge(&d.Exact)
			}
		}
		d := m.Latency[p]
		if h.TotalCount() == 0 {
			if d != nil && d.Count > 0 {
				t.Errorf("%v: merged %d samples from none", p, d.Count)
			}
			continue
		}
		if d == nil || !d.Hist.Equals(h) || d.Hist.TotalCount() != h.TotalCount() {
			t.Errorf("%v: merged histogram is not the sum of the parts'", p)
			continue
		}
		if d.Count != want.Count || d.Sum != want.Sum || d.Min != want.Min || d.Max != want.Max {
			t.Errorf("%v: exact %+v, want %+v", p, d.Exact, want)
		}
		for _, q := range []float64{50, 90, 99, 99.9} {
			if got, want := d.Percentile(q), min(max(h.ValueAtPercentile(q), want.Min), want.Max); got != want {
				t.Errorf("%v p%v = %d µs, the summed histogram's is %d", p, q, got, want)
			}
		}
	}
}

// checkSeries: m's series runs over whole intervals, none skipped, each
// point the sum of the parts' points with the same start.
func checkSeries(t *testing.T, m *gb.Result, every time.Duration, parts ...*gb.Result) {
	t.Helper()
	if m.Series == nil || m.Series.Interval != every || len(m.Series.Points) == 0 {
		t.Fatalf("merged series: %+v", m.Series)
	}
	type sum struct{ ok, ended, lat int64 }
	want := map[int64]sum{} // by Start in Unix ns
	for _, r := range parts {
		for _, p := range r.Series.Points {
			s := want[p.Start.UnixNano()]
			s.ok, s.ended = s.ok+p.OK, s.ended+p.Ended
			if p.Latency != nil {
				s.lat += p.Latency.Count
			}
			want[p.Start.UnixNano()] = s
		}
	}
	var ok int64
	for i, p := range m.Series.Points {
		if p.Start.UnixNano()%int64(every) != 0 || i > 0 && p.Start.Sub(m.Series.Points[i-1].Start) != every {
			t.Errorf("point %d starts at %v: not the interval after the last, on a multiple of %v", i, p.Start, every)
		}
		var lat int64
		if p.Latency != nil {
			lat = p.Latency.Count
			if h := p.Latency.Histogram(); h.TotalCount() != lat {
				t.Errorf("point %d: histogram holds %d of %d", i, h.TotalCount(), lat)
			}
		}
		if w := want[p.Start.UnixNano()]; p.OK != w.ok || p.Ended != w.ended || lat != w.lat {
			t.Errorf("point %d (%v): ok %d ended %d latencies %d, the parts' sum %+v", i, p.Start, p.OK, p.Ended, lat, w)
		}
		delete(want, p.Start.UnixNano())
		ok += p.OK
	}
	if len(want) > 0 || ok != m.Complete() {
		t.Errorf("merged series lost %d points; its ok sum %d, complete %d", len(want), ok, m.Complete())
	}
}

// TestMergeRefusesOtherLoads: results of different loads are refused with
// one line naming the differing field; so are one result twice, one shard
// twice, shards of different splits and some of the shards of a split
// load, which MergePartial merges, saying which.
func TestMergeRefusesOtherLoads(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	run := func(cfg gb.Config) *gb.Result {
		t.Helper()
		if cfg.URL == "" {
			cfg.URL = srv.URL() + "/hello"
		}
		cfg.Requests, cfg.Concurrency = 20, 2
		res, err := gb.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	base := run(gb.Config{KeepAlive: true})
	shard0 := run(gb.Config{KeepAlive: true, Shard: gb.Shard{Index: 0, Count: 2}, Requests: 40})
	for _, tc := range []struct {
		name  string
		other *gb.Result
		msg   string
	}{
		{"url", run(gb.Config{URL: srv.URL() + "/json", KeepAlive: true}), "result 2: another url (" + srv.URL() + "/json, not " + srv.URL() + "/hello)"},
		{"keep-alive", run(gb.Config{}), "result 2: another keep_alive (false, not true)"},
		{"rate", run(gb.Config{KeepAlive: true, Rate: gb.Rate{Freq: 400}}), "result 2: another rate (a rate, not closed loop)"},
		{"timeout", run(gb.Config{KeepAlive: true, Timeout: 5 * time.Second}), "result 2: another timeout (5s, not 30s)"},
		{"split", shard0, "result 2: another shard (0/2, not none)"},
	} {
		_, err := gb.Merge(base, tc.other)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
		}
	}
	if _, err := gb.Merge(shard0, shard0); err == nil || err.Error() != "result 2 is result 1 again (the same start, end and count)" {
		t.Errorf("one result twice: %v", err)
	}
	again := run(gb.Config{KeepAlive: true, Shard: gb.Shard{Index: 0, Count: 2}, Requests: 40})
	if _, err := gb.Merge(shard0, again); err == nil || err.Error() != "result 2: shard 0/2 again (result 1 is shard 0/2 too)" {
		t.Errorf("one shard twice: %v", err)
	}
	_, err := gb.Merge(shard0)
	var miss *gb.MissingShardsError
	if !errors.As(err, &miss) || err.Error() != "shard 1 of 2 missing (have 0)" {
		t.Errorf("one shard of two: %v", err)
	}
	if m, err := gb.MergePartial(shard0); err != nil || m.Partial == nil || m.Partial.String() != "shard 0 of 2" || m.Complete() != 10 {
		t.Errorf("partial merge of one shard of two: %+v, %v", m, err)
	}
}

// TestStartAtWaits: a run waits for StartAt, and cancelling its context
// during the wait ends it with the context's error and no result.
func TestStartAtWaits(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	res, err := gb.Run(ctx, gb.Config{URL: srv.URL() + "/hello", Requests: 1, StartAt: time.Now().Add(time.Hour)})
	if res != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: result %v, error %v", res, err)
	}
}
