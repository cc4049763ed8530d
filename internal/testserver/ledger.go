package testserver

import "github.com/gb-bench/gb/internal/testserver/fault"

// Ledger is a snapshot of what a Server saw since Start or the last
// ResetLedger. It is a copy: the caller owns it, and the server never
// changes it afterwards. Control requests (/__ctl, /__ledger, /__reset) and,
// while mounted, /debug/ requests are not counted, and neither are the
// connections that carried nothing else.
type Ledger struct {
	HTTP  Traffic `json:"http"`  // main listener (URL)
	TLS   Traffic `json:"tls"`   // HTTPS listener (TLSURL); zero without TLS
	Unix  Traffic `json:"unix"`  // unix socket listener (UnixPath); zero without Options.Unix
	Fault Traffic `json:"fault"` // raw fault listener (FaultURL)
	// H3 is HTTP/3 on the TLS listener's port over UDP (QUIC); zero
	// without TLS. Its BytesIn and BytesOut stay 0: quic-go owns the
	// socket.
	H3 Traffic `json:"h3"`

	// Exchanges holds one row per request read by the fault listener, in
	// arrival order, at most maxExchanges of them.
	Exchanges []fault.Exchange `json:"exchanges"`
	// DroppedExchanges counts the rows not kept because of that cap.
	DroppedExchanges int64 `json:"dropped_exchanges"`
}

// Traffic is what one listener saw.
type Traffic struct {
	// Requests counts requests whose handling started (net/http) or which
	// the fault listener read in full; malformed requests the fault listener
	// rejects are not counted.
	Requests int64 `json:"requests"`
	// Conns counts connections accepted since Start or ResetLedger.
	Conns int64 `json:"conns"`
	// Open counts connections open at the snapshot, whenever accepted.
	Open int64 `json:"open"`
	// BytesIn and BytesOut count bytes read from and written to clients at
	// the connection, as on the wire: TLS records on the TLS listener,
	// request heads and bodies, response heads and bodies.
	BytesIn  int64 `json:"bytes_in"`
	BytesOut int64 `json:"bytes_out"`
	// RequestsPerConn maps a number of requests to the number of
	// connections that carried that many (open ones included). Keys with
	// zero requests count connections accepted since the reset that have
	// carried none yet.
	RequestsPerConn map[int64]int64 `json:"requests_per_conn"`
	// Protocols splits Requests by protocol as net/http names it
	// (Request.Proto): "HTTP/1.0", "HTTP/1.1", "HTTP/2.0", "HTTP/3.0"; protocols with
	// no request are absent. Empty for the fault listener, whose requests
	// are raw HTTP/1.x.
	Protocols map[string]int64 `json:"protocols"`
}

// Ends counts the exchanges of l by how they ended.
func (l Ledger) Ends() map[fault.End]int {
	m := make(map[fault.End]int)
	for _, x := range l.Exchanges {
		m[x.End]++
	}
	return m
}
