// Package load is gb's engine: Config's workers, one goroutine and one
// connection each, take requests from a shared budget (one atomic add per
// request), send them through a Conn, and record each exchange in their own
// record.Recorder. The run ends when the budget is spent, the time limit
// passes, Stop is called or the context ends; requests in flight then end
// as aborted, never lost. The recorders are merged once, after every worker
// stopped.
//
// Per request the engine takes no lock, sends on no channel, writes no map
// and starts no timer.
package load
