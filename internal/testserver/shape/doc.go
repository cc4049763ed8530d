// Package shape turns the query parameters of gb's test server into what a
// reply looks like: byte sizes, delays, status codes, header lines,
// fortio-style weighted lists drawn from seeded generators ([Dice]), and
// the generated body bytes ([PatternAt]). Both of the server's listeners,
// net/http's and the raw fault listener (package fault), use it, so a
// query means the same on either.
//
// Sizes are bytes, durations are time.Duration (a bare number in a query
// is milliseconds). Every parsing error wraps [ErrSyntax].
package shape
