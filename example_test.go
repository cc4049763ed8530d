package gb_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/stats"
)

// startServer runs gb's own test server (gb serve) in this process.
func startServer() *testserver.Server {
	srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0", NoPprof: true})
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// A closed-loop load: 10 keep-alive connections send 1000 requests in all.
func ExampleRun() {
	srv := startServer()
	defer srv.Close()

	res, err := gb.Run(context.Background(), gb.Config{
		URL:         srv.URL() + "/hello",
		Concurrency: 10,
		Requests:    1000,
		KeepAlive:   true,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("complete:", res.Complete(), "failed:", res.Failed())
	fmt.Println("status 200:", res.Counts.Status[200])
	fmt.Println("p99 measured:", res.Percentile(stats.Total, 99) > 0)
	// Output:
	// complete: 1000 failed: 0
	// status 200: 1000
	// p99 measured: true
}

// An open-model load: 200 requests due at 1000 per second, whoever is free
// sends them; latency is also measured from each request's intended send
// time (stats.Corrected), so a stalled server cannot hide.
func ExampleRun_rate() {
	srv := startServer()
	defer srv.Close()

	res, err := gb.Run(context.Background(), gb.Config{
		URL:         srv.URL() + "/hello",
		Concurrency: 4,
		Requests:    200,
		Rate:        gb.Rate{Freq: 1000},
		KeepAlive:   true,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("sent:", res.Counts.Dispatched, "dropped:", res.Counts.Outcomes[stats.Dropped])
	fmt.Println("corrected latency recorded:", res.Latency[stats.Corrected].Count)
	// Output:
	// sent: 200 dropped: 0
	// corrected latency recorded: 200
}

// A Plan checks a Config once and can show the request before the load.
func ExampleNewPlan() {
	srv := startServer()
	defer srv.Close()

	p, err := gb.NewPlan(gb.Config{URL: srv.URL() + "/json", Requests: 1, Headers: []string{"Accept: application/json"}})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Println(p.Load().Method, p.Load().Path)
	_, err = gb.NewPlan(gb.Config{URL: srv.URL(), Concurrency: 5, Requests: 2})
	var ce *gb.ConfigError
	if errors.As(err, &ce) {
		fmt.Printf("%s: %v\n", ce.Field, err)
	}
	// Output:
	// GET /json
	// Concurrency: Config.Concurrency 5 is greater than Config.Requests 2
}

// A Plan runs several loads on one target (gb ramp's steps): each Step
// says only the load's size; Carry keeps a step's connections for the
// next.
func ExamplePlan_Step() {
	srv := startServer()
	defer srv.Close()

	p, err := gb.NewPlan(gb.Config{URL: srv.URL(), KeepAlive: true, Concurrency: 4, Requests: 100, Engine: gb.EngineGoroutine})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	for _, s := range []gb.Step{{Concurrency: 2, Requests: 50}, {Concurrency: 4, Requests: 100}} {
		res, err := p.Step(context.Background(), s, gb.Carry())
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("connections:", res.Load.Concurrency, "responses:", res.Complete())
	}
	// Output:
	// connections: 2 responses: 50
	// connections: 4 responses: 100
}

// A load whose requests come from a function (vegeta's Targeter): each
// POST carries a fresh id, and the load ends when the function says
// gb.ErrNoTargets. The result counts the requests per URL template.
func ExampleConfig_targeter() {
	srv := startServer()
	defer srv.Close()

	id := 0
	next := func(t *gb.Target) error {
		if id == 300 {
			return gb.ErrNoTargets
		}
		id++
		t.Method = "POST"
		t.URL = fmt.Sprintf("%s/hello?id=%d", srv.URL(), id)
		t.Headers = []string{"Content-Type: application/json"}
		t.Body = fmt.Appendf(nil, `{"id":%d}`, id)
		return nil
	}
	res, err := gb.Run(context.Background(), gb.Config{Targeter: next, Concurrency: 4, KeepAlive: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("complete:", res.Complete(), "stopped by:", res.StoppedBy)
	for _, t := range res.Targets {
		fmt.Println(t.Method, strings.TrimPrefix(t.URL, srv.URL()), t.Requests)
	}
	// Output:
	// complete: 300 stopped by: count
	// POST /hello?* 300
}
