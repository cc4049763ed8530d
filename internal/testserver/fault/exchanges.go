package fault

import (
	"sync"
	"time"
)

// End says how an exchange ended.
type End string

// The ways an exchange ends.
const (
	// EndOpen: still in progress when the snapshot was taken.
	EndOpen End = "open"
	// EndComplete: the whole designed response was written (the connection
	// may then have closed, as the endpoint's framing requires).
	EndComplete End = "complete"
	// EndFIN: the server closed the connection (FIN) before or in the middle
	// of the response, on purpose.
	EndFIN End = "fin"
	// EndRST: the server aborted the connection with RST, on purpose.
	EndRST End = "rst"
	// EndClientGone: the client closed or reset the connection first (a
	// write failed, or it left while the server held the connection).
	EndClientGone End = "client_gone"
	// EndStalled: the server was closed while the exchange was stalled,
	// delayed or holding the connection.
	EndStalled End = "stalled"
)

// Exchange is one request and how its response ended: a row of the
// server's book, copied out by Server.Exchanges.
type Exchange struct {
	Conn     uint64        `json:"conn"`             // connection id (Counter.ConnID, or the Server's own), from 1
	Seq      int           `json:"seq"`              // position on its connection, from 1
	Method   string        `json:"method"`           // request method
	Target   string        `json:"target"`           // request-target as sent, with the query
	Endpoint string        `json:"endpoint"`         // path without the query, e.g. "/reset"
	Tag      string        `json:"tag,omitempty"`    // X-Gb-Seq request header, if sent
	Auth     bool          `json:"auth,omitempty"`   // the request carried Authorization
	Cookie   bool          `json:"cookie,omitempty"` // the request carried Cookie
	Arrival  time.Duration `json:"arrival_ns"`       // request head read, since Options.Origin
	BytesIn  int64         `json:"bytes_in"`         // request head and body bytes read
	BytesOut int64         `json:"bytes_out"`        // response bytes written
	End      End           `json:"end"`
}

// maxExchanges caps the rows a book keeps (about 200 bytes each).
const maxExchanges = 100_000

// book keeps the fault listener's exchange rows. It is safe for concurrent
// use; rows are written only under mu.
type book struct {
	mu      sync.Mutex
	rows    []*Exchange
	dropped int64
}

// open records the start of an exchange (End EndOpen) and returns its row,
// or nil when the book is full. The caller keeps the row for close.
func (b *book) open(x Exchange) *Exchange {
	x.End = EndOpen
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.rows) >= maxExchanges {
		b.dropped++
		return nil
	}
	row := &x
	b.rows = append(b.rows, row)
	return row
}

// close records the end of the exchange of row (nil is ignored).
func (b *book) close(row *Exchange, end End, in, out int64) {
	if row == nil {
		return
	}
	b.mu.Lock()
	row.End, row.BytesIn, row.BytesOut = end, in, out
	b.mu.Unlock()
}

// snapshot copies the rows.
func (b *book) snapshot() ([]Exchange, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rows := make([]Exchange, len(b.rows))
	for i, r := range b.rows {
		rows[i] = *r
	}
	return rows, b.dropped
}

// reset forgets every row; exchanges still open are no longer reported.
func (b *book) reset() {
	b.mu.Lock()
	b.rows, b.dropped = nil, 0
	b.mu.Unlock()
}
