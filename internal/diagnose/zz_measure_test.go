package diagnose

import (
	"os"
	"testing"
)

func TestZZMeasure(t *testing.T) {
	f, err := os.Open(os.Getenv("TRACE"))
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	s, err := Scheduling(f, TraceLimits{})
	t.Logf("%+v %v", s, err)
}
