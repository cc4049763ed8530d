// Package pace decides when requests are due. It is pure arithmetic over
// the run's start: no clocks, no sleeping, no state, so every schedule is
// exact and table-testable. A nil Pacer means a closed loop: each worker
// sends its next request as soon as the previous one completes.
package pace
