package profile

import (
	"errors"
	"fmt"
	"os"

	"github.com/gb-bench/gb/internal/outfile"
	pprof "github.com/google/pprof/profile"
)

// maxPGOFile caps one CPU profile file read back for WritePGO: gb wrote
// it, from a merge bounded by Config.MaxEntries, so it is far smaller.
const maxPGOFile = 64 << 20

// WritePGO merges the CPU profiles saved in cpuFiles (each run's
// cpu.pb.gz) and writes the merge to path, mode 0644, as a gzipped pprof
// protobuf: the form `go build -pgo=path` takes. A file that is not a
// CPU profile is an error; so is an empty list.
func WritePGO(path string, cpuFiles []string) error {
	if len(cpuFiles) == 0 {
		return errors.New("no CPU profile to write")
	}
	var ps []*pprof.Profile
	for _, f := range cpuFiles {
		p, err := readCPU(f)
		if err != nil {
			return err
		}
		ps = append(ps, p)
	}
	merged, err := mergeSafe(ps...)
	if err != nil {
		return err
	}
	return outfile.Write(path, 0o644, merged.Write)
}

// readCPU reads a CPU profile gb saved.
func readCPU(path string) (*pprof.Profile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxPGOFile {
		return nil, fmt.Errorf("%s: %w of %d bytes", path, errTooLarge, maxPGOFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if n := len(p.SampleType); n == 0 || p.SampleType[n-1].Unit != "nanoseconds" {
		return nil, fmt.Errorf("%s: not a CPU profile", path)
	}
	return p, nil
}
