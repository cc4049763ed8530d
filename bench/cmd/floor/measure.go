//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

// meter is -measure: the floor's epoll loop doing, per response, the work a
// measuring client cannot skip, the way an engine without coroutines would
// do it (the loop calls it, nothing parks): three clock readings (start,
// written, and one for the first and last byte of a response read whole,
// as gb's loops take them), gb's own
// HTTP/1.1 parser (h1.Reader, over the loop's one read buffer, lent per
// response as gb's loops lend theirs) and gb's own recorder
// (record.Recorder: the HdrHistograms, status and byte counts). What it
// leaves out is everything that makes gb a tool rather than this model:
// coroutines, deadlines, the request budget shared by workers, failure
// handling. Its cost above the floor is the cheapest a client measuring
// every request can be on this machine.
type meter struct {
	rec    *record.Recorder
	shards []*record.Group
	start  clock.Mono
	conns  []metered
	buf    []byte // the loop's read buffer, lent to one Reader at a time
	parsed int    // responses parsed and recorded (the others came in pieces: counted only)
}

// metered is one connection's measuring state.
type metered struct {
	src     lender
	rd      *h1.Reader
	resp    h1.Response
	start   clock.Mono // request written from here
	written clock.Mono
}

// lender is an h1.Lender over bytes the loop already read into its buffer:
// Read hands them over in place, once.
type lender struct {
	m     *meter
	ready int // bytes waiting at the start of m.buf; 0 = none
}

var errPartial = errors.New("floor: response in pieces")

func (l *lender) Read(p []byte) (int, error) {
	n := l.ready
	if n == 0 || &p[0] != &l.m.buf[0] { // a second read, or bytes kept from before: not a whole response
		return 0, errPartial
	}
	l.ready = 0
	return n, nil
}

func (l *lender) WaitReadable() error {
	if l.ready == 0 {
		return errPartial
	}
	return nil
}

func (l *lender) Borrow(int) []byte { return l.m.buf }
func (l *lender) Return([]byte)     {}

var _ h1.Lender = (*lender)(nil)

// newMeter returns a meter for conns connections whose responses fit
// bufSize bytes.
func newMeter(conns, bufSize int) *meter {
	m := &meter{shards: record.NewGroups(1), start: clock.Read(), buf: make([]byte, bufSize), conns: make([]metered, conns)}
	m.rec = record.NewRecorder(m.shards[0], false, false, 0)
	for i := range m.conns {
		mc := &m.conns[i]
		mc.src.m = m
		mc.rd = h1.NewReader(&mc.src, bufSize, h1.Limits{})
	}
	return m
}

// epollMeasured is epoll with a meter: connection i's response is parsed
// and recorded when one read brought all of it.
func (c *client) epollMeasured(m *meter) error {
	err := c.epollWith(func(i int) error { return c.sendMeasured(m, i) },
		func(i int, _ []byte) error { return c.readMeasured(m, i) })
	m.rec.Flush()
	return err
}

// sendMeasured writes connection i's next request between two readings.
func (c *client) sendMeasured(m *meter, i int) error {
	mc := &m.conns[i]
	mc.start = clock.Read()
	if err := c.send(i); err != nil {
		return err
	}
	mc.written = clock.Read()
	return nil
}

// readMeasured reads once from connection i; a response that arrived
// whole is parsed and recorded, then the next request goes out.
func (c *client) readMeasured(m *meter, i int) error {
	k, err := c.readOnce(i, m.buf)
	if k == 0 {
		return err
	}
	if k == c.size && c.have[i] == 0 {
		if err := m.record(&m.conns[i], k); err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
	}
	if c.received(i, k) {
		return c.sendMeasured(m, i)
	}
	return nil
}

// record parses the k bytes at the start of the buffer as one response and
// records it as gb's worker does.
func (m *meter) record(mc *metered, k int) error {
	done := clock.Read() // the response arrived whole in this read: its first and last byte
	mc.src.ready = k
	r := &mc.resp
	if err := mc.rd.Fill(); err != nil {
		return err
	}
	err := mc.rd.ReadHeader(r, false)
	if err == nil {
		err = mc.rd.ReadBody(r)
	}
	mc.rd.Release()
	if err != nil {
		return err
	}
	var t record.Timing
	t[stats.Total] = max(int64(done.Sub(mc.start)/time.Microsecond), 0)
	t[stats.Processing] = t[stats.Total]
	t[stats.Waiting] = max(int64(done.Sub(mc.written)/time.Microsecond), 0)
	m.rec.BytesIn += int64(k)
	m.rec.BodyIn += r.BodyBytes
	m.rec.Status(r.Status)
	m.rec.Response(&t, 0)
	m.rec.Body(r.BodyBytes, mc.rd.Server(), int64(done.Sub(m.start)))
	m.rec.KeepAlive++
	m.rec.EndAt(stats.OK, int64(done.Sub(m.start)))
	m.parsed++
	return nil
}

// report prints what the meter recorded, so a run shows it measured.
func (m *meter) report(w io.Writer) error {
	res := record.Collect(stats.Result{}, []*record.Recorder{m.rec}, m.shards)
	_, err := fmt.Fprintf(w, "Measured responses:     %d (p50 %v, p99 %v)\n", m.parsed,
		res.Percentile(stats.Total, 50), res.Percentile(stats.Total, 99))
	return err
}
