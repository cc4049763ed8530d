package compare

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// ProfileKind is a server profile a diff is made of: which saved file
// and which of its sample types.
type ProfileKind struct {
	File       string // the stats.ProfileFile kind: "cpu" or "allocs"
	SampleType string // "cpu" (nanoseconds) or "alloc_space" (bytes)
	Label      string // how the text names it
	Unit       Unit
}

// ProfileKinds are the diffs DiffProfiles makes, when both inputs saved
// the file.
var ProfileKinds = []ProfileKind{
	{File: "cpu", SampleType: "cpu", Label: "server CPU", Unit: UnitTime},
	{File: "allocs", SampleType: "alloc_space", Label: "server allocation", Unit: UnitBytes},
}

// ProfileDiff is the change per request of one server profile between two
// inputs: the saved profiles of each input's runs merged, each function's
// value divided by the requests the profile covered, and old subtracted
// from new.
type ProfileDiff struct {
	Kind     ProfileKind
	Old, New string  // the inputs' names
	OldTotal float64 // the whole profile per request, in Kind.Unit
	NewTotal float64
	// Funcs holds every function, by the change of its value per request
	// (new - old), largest increase first. A function's value is what its
	// own code spent: samples whose innermost frame is the function, plus
	// those whose innermost frames are the runtime's or the standard
	// library's internals called from it (runtime.mallocgc under leftpad
	// counts for leftpad). Closures are matched across the inputs by
	// their package and enclosing named function.
	Funcs []FuncDiff

	// Base and Profile are the merged profiles, Base scaled to Profile's
	// request count: `go tool pprof -diff_base` of the two shows the
	// change over the new runs' requests.
	Base, Profile *pprof.Profile
}

// FuncDiff is one function's value per request in each input, in the
// diff's unit (seconds or bytes).
type FuncDiff struct {
	Name     string // as the profiles have it (untrusted: see printable)
	Old, New float64
}

// Delta is the change per request.
func (f FuncDiff) Delta() float64 { return f.New - f.Old }

// side is one input's profiles of a kind.
type side struct {
	profs    []*pprof.Profile
	requests float64 // requests the profiles cover, summed over runs
}

// DiffProfiles diffs every ProfileKind that runs of both inputs saved.
// Runs without the file are left out; a kind no run of one input has is
// not diffed. A file that cannot be read or merged is an error.
func DiffProfiles(old, new Input) ([]*ProfileDiff, error) {
	var diffs []*ProfileDiff
	for _, k := range ProfileKinds {
		a, err := load(old, k)
		if err != nil {
			return nil, err
		}
		b, err := load(new, k)
		if err != nil {
			return nil, err
		}
		if len(a.profs) == 0 || len(b.profs) == 0 {
			continue
		}
		d, err := diff(k, a, b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.File, err)
		}
		d.Old, d.New = old.Name, new.Name
		diffs = append(diffs, d)
	}
	return diffs, nil
}

// load reads in's saved profiles of kind k.
func load(in Input, k ProfileKind) (side, error) {
	var s side
	for _, r := range in.Runs {
		sp := r.Profile
		if sp == nil || sp.Requests <= 0 {
			continue
		}
		for _, f := range sp.Files {
			if f.Kind != k.File {
				continue
			}
			p, err := parse(f.Path, in.dir())
			if err != nil {
				return side{}, fmt.Errorf("%s: %w", in.Name, err)
			}
			s.profs = append(s.profs, p)
			s.requests += covered(sp, k)
		}
	}
	return s, nil
}

// covered is the number of requests the kind's profile of a run covers:
// all of them for allocations; for CPU, the share of the load the CPU
// windows covered.
func covered(sp *stats.ServerProfile, k ProfileKind) float64 {
	n := float64(sp.Requests)
	if k.File == "cpu" && sp.CPU != nil && sp.CPU.Load > 0 && sp.CPU.Covered > 0 && sp.CPU.Covered < sp.CPU.Load {
		n *= float64(sp.CPU.Covered) / float64(sp.CPU.Load)
	}
	return n
}

// parse reads the profile at path; a relative path that does not exist is
// also looked for in dir (beside the result file).
func parse(path, dir string) (*pprof.Profile, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	b, err := readProfile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := pprof.ParseData(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Bounds on a saved profile that a result file names: a path in a
// hostile or mistaken file (a device, a FIFO, a gzip bomb) must neither
// hang gb compare nor fill its memory.
const (
	maxProfileFile  = 64 << 20  // bytes on disk
	maxProfileBytes = 256 << 20 // bytes after gunzip
)

// readProfile reads the saved profile at path, a regular file (checked
// before it is opened: opening a FIFO would wait for a writer) of at most
// maxProfileFile bytes, gunzipped (when it is gzip) to at most
// maxProfileBytes.
func readProfile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	case fi.Size() > maxProfileFile:
		return nil, fmt.Errorf("%d MiB, larger than a profile gb saves (%d MiB)", fi.Size()>>20, maxProfileFile>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(io.LimitReader(f, maxProfileFile))
	if head, _ := r.(*bufio.Reader).Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		r = z
	}
	b, err := io.ReadAll(io.LimitReader(r, maxProfileBytes+1))
	if err == nil && len(b) > maxProfileBytes {
		err = fmt.Errorf("larger than %d MiB unpacked", maxProfileBytes>>20)
	}
	return b, err
}

// diff merges each side's profiles after matching closure names, and
// subtracts their per-request values function by function.
func diff(k ProfileKind, a, b side) (*ProfileDiff, error) {
	rename := unify(funcNames(a.profs), funcNames(b.profs))
	var merged [2]*pprof.Profile
	for i, s := range []side{a, b} {
		for _, p := range s.profs {
			for _, fn := range p.Function {
				if to, ok := rename[fn.Name]; ok {
					fn.Name = to
				}
			}
		}
		m, err := pprof.Merge(s.profs)
		if err != nil {
			return nil, err
		}
		merged[i] = m
	}
	idx, err := sampleIndex(merged[0], k.SampleType)
	if err != nil {
		return nil, err
	}
	jdx, err := sampleIndex(merged[1], k.SampleType)
	if err != nil {
		return nil, err
	}
	scale := 1.0
	if k.Unit == UnitTime {
		scale = 1e-9 // nanoseconds
	}
	old, oldTotal := own(merged[0], idx)
	new, newTotal := own(merged[1], jdx)
	d := &ProfileDiff{Kind: k, OldTotal: oldTotal * scale / a.requests, NewTotal: newTotal * scale / b.requests}
	for name, v := range old {
		d.Funcs = append(d.Funcs, FuncDiff{Name: name, Old: v * scale / a.requests, New: new[name] * scale / b.requests})
	}
	for name, v := range new {
		if _, ok := old[name]; !ok {
			d.Funcs = append(d.Funcs, FuncDiff{Name: name, New: v * scale / b.requests})
		}
	}
	slices.SortFunc(d.Funcs, func(x, y FuncDiff) int {
		return cmp.Or(cmp.Compare(y.Delta(), x.Delta()), cmp.Compare(x.Name, y.Name))
	})
	d.Base, d.Profile = merged[0].Copy(), merged[1]
	d.Base.Scale(b.requests / a.requests)
	return d, nil
}

// funcNames is the set of function names in ps.
func funcNames(ps []*pprof.Profile) map[string]bool {
	names := map[string]bool{}
	for _, p := range ps {
		for _, fn := range p.Function {
			names[fn.Name] = true
		}
	}
	return names
}

// sampleIndex is the index of sample type typ in p.
func sampleIndex(p *pprof.Profile, typ string) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i, nil
		}
	}
	return 0, fmt.Errorf("the profile has no %s samples", typ)
}

// own sums sample type idx of p per function: each sample counts for the
// innermost frame outside the runtime and the standard library's
// internals (or the innermost frame when all are internal). It also
// returns the total.
func own(p *pprof.Profile, idx int) (map[string]float64, float64) {
	m := map[string]float64{}
	var total float64
	for _, s := range p.Sample {
		v := float64(s.Value[idx])
		if name := owner(s); name != "" {
			m[name] += v
		}
		total += v
	}
	return m, total
}

// owner is the function a sample counts for (see own); "" when the sample
// has no symbolised frame.
func owner(s *pprof.Sample) string {
	leaf := ""
	for _, loc := range s.Location {
		for _, ln := range loc.Line { // innermost first: inlined frames before their caller
			if ln.Function == nil {
				continue
			}
			pkg, _ := splitName(ln.Function.Name)
			if !internalPkg(pkg) {
				return ln.Function.Name
			}
			if leaf == "" {
				leaf = ln.Function.Name
			}
		}
	}
	return leaf
}
