package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/htmlreport"
	"github.com/gb-bench/gb/internal/web"
)

// webFlags are --web and --web-linger.
type webFlags struct {
	addr      string        // "" = no page
	linger    time.Duration // serve this long after the load; see lingerSet
	lingerSet bool          // --web-linger was given (else: until the pages have the report, at most webLingerMax)
}

// webLingerMax bounds the default linger: the time the pages watching at
// the end have to fetch the final report.
const webLingerMax = 10 * time.Second

func setWebAddr(o *options, v string) error {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return getopt.Errorf(false, "--web %q: want host:port, e.g. :8089 (this machine only) or 0.0.0.0:8089", v)
	}
	o.web.addr = v
	return nil
}

// setWebLinger takes seconds or a duration, and 0 (stop serving at once).
func setWebLinger(o *options, v string) (err error) {
	o.web.linger, o.web.lingerSet = 0, true
	if d, perr := time.ParseDuration(v); perr == nil && d == 0 || v == "0" {
		return nil
	}
	o.web.linger, err = getopt.Seconds(v)
	return err
}

// livePage serves --web for the runs of one gb command. A nil livePage
// (no --web) does nothing.
type livePage struct {
	srv   *web.Server
	flags webFlags
}

// startWeb binds --web before the load, so that a port in use or an
// address not on this machine is one line and no load, and says on
// stderr where the page is; nil without the flag.
func startWeb(f *webFlags, stderr io.Writer) (*livePage, error) {
	if f.addr == "" {
		return nil, nil
	}
	srv, err := web.Listen(f.addr)
	if err != nil {
		return nil, fmt.Errorf("--web %s: %v", f.addr, err)
	}
	if srv.Public() {
		fmt.Fprintf(stderr, "gb: live page at %s (reachable from other machines)\n", srv.URL())
	} else {
		fmt.Fprintf(stderr, "gb: live page at %s\n", srv.URL())
	}
	return &livePage{srv: srv, flags: *f}, nil
}

// watch points the page at l's figures (a new run).
func (p *livePage) watch(l *gb.Live) {
	if p != nil {
		p.srv.SetSource(webSource(l))
	}
}

// watchers is the WithLive option that hands each run's figures to
// --metrics-addr's exporter and --web's page (one option: a second
// WithLive would replace the first); none without either.
func watchers(e *exporter, p *livePage) []gb.Option {
	if e == nil && p == nil {
		return nil
	}
	return []gb.Option{gb.WithLive(func(l *gb.Live) {
		e.watch(l)
		p.watch(l)
	})}
}

// webSource reads l for the page's sample of each second.
func webSource(l *gb.Live) web.Source {
	var lat [2]*hdrhistogram.Histogram
	return func(f *web.Figures) {
		p := l.Progress()
		f.Elapsed, f.Outcomes, f.ConnsOpen, f.TargetRate = p.Elapsed, p.Outcomes, p.ConnsOpen, l.Rate()
		f.ServerCPU, f.ServerSet = p.Server.CPU, p.Server.Known && p.Server.CPU > 0
		f.ClientCPU = cpuTime()
		l.Latency(&lat)
		f.Latency = lat[0]
	}
}

// finish ends the page's run and gives it the final report (the HTML of
// --html, of res; none when the load gave none, or when no page watches
// and gb will not linger for one).
func (p *livePage) finish(res *gb.Result) {
	if p == nil {
		return
	}
	if res == nil || !p.flags.lingerSet && p.srv.Watching() == 0 {
		p.srv.Finish(nil)
		return
	}
	p.srv.Finish(func() []byte {
		var b bytes.Buffer
		if htmlreport.Run(&b, res) != nil {
			return nil
		}
		return b.Bytes()
	})
}

// linger keeps serving after the load: for --web-linger, or by default
// until every page watching at the end has fetched the report (at most
// webLingerMax); a signal ends it sooner. Then it stops serving.
func (p *livePage) linger(sig <-chan os.Signal) {
	if p == nil {
		return
	}
	p.srv.Finish(nil) // no-op after finish; a run that failed ends its pages
	settled := p.srv.Settled()
	d := webLingerMax
	if p.flags.lingerSet {
		d, settled = p.flags.linger, nil
	}
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-settled:
		case <-sig:
		}
		t.Stop()
	}
	p.srv.Close()
}
