package stats

import "time"

// Cores is gb's average CPU use during the run, in cores: CPU over the
// wall time it was read over (CPUWindow), or, in results that do not
// record that window, over elapsed, the measured load's length. 0 when
// neither is known.
func (c *Client) Cores(elapsed time.Duration) float64 {
	wall := c.CPUWindow
	if wall <= 0 {
		wall = elapsed
	}
	if wall <= 0 {
		return 0
	}
	return c.CPU.Seconds() / wall.Seconds()
}
