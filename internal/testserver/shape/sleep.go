package shape

import "time"

// Sleep waits for d, or until gone or done is closed (then false); nil
// channels never are. d <= 0 returns true at once.
func Sleep(d time.Duration, gone, done <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-gone:
		return false
	case <-done:
		return false
	}
}
