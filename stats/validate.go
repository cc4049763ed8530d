package stats

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"
)

// MaxResultBytes is the largest result file gb reads (gb report, compare
// and merge): 512 MiB, far beyond any run's JSON, so that a wrong path
// (a device, a huge log) fails at once instead of filling the memory.
const MaxResultBytes = 512 << 20

// ReadResultFile reads the file at path whole for ReadRuns. A regular file
// larger than MaxResultBytes is refused before it is read, any other (a
// pipe, a device) once MaxResultBytes have been read. The error names no
// path: the caller adds it.
func ReadResultFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxResultBytes {
		return nil, tooLarge(fi.Size())
	}
	return readLimited(f)
}

// readLimited reads r whole, failing past MaxResultBytes.
func readLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxResultBytes+1))
	if err == nil && len(b) > MaxResultBytes {
		err = tooLarge(-1)
	}
	return b, err
}

// tooLarge is the error for an input over MaxResultBytes; size < 0 when
// it is not known.
func tooLarge(size int64) error {
	if size < 0 {
		return fmt.Errorf("not a gb result: larger than %d MiB", MaxResultBytes>>20)
	}
	return fmt.Errorf("not a gb result: %d MiB, larger than %d MiB", size>>20, MaxResultBytes>>20)
}

// Validate makes r, read from a file, safe to render: it refuses a
// result that gb cannot have written (no target, a negative count, a
// series without an interval, a broken accounting invariant of Check) with
// one line naming the first problem, and makes every string printable
// (see Printable), map keys included.
func (r *Result) Validate() error {
	if r.Load.URL == "" {
		return errors.New("not a gb result (no target url)")
	}
	if err := walkInput(reflect.ValueOf(r).Elem(), ""); err != nil {
		return err
	}
	if r.End.Before(r.Start) {
		return errors.New("inconsistent result: end before start")
	}
	if s := r.Series; s != nil && len(s.Points) > 0 && s.Interval <= 0 {
		return errors.New("inconsistent result: series.interval_ns is not positive")
	}
	if errs := r.Check(); len(errs) > 0 {
		return fmt.Errorf("inconsistent result: %v", errs[0])
	}
	return nil
}

// statsPkg is this package's import path: walkInput opens only its types.
var statsPkg = reflect.TypeFor[Result]().PkgPath()

// outcomesType is Outcomes, whose elements are named by outcome.
var outcomesType = reflect.TypeFor[Outcomes]()

// mayBeNegative are the numbers of a result that may be below 0.
var mayBeNegative = map[string]bool{"target.seed": true}

// unknownPrefix is the path of the part whose numbers may be -1: the
// diagnosis writes -1 for what it could not measure (Diagnosis).
const unknownPrefix = "server_profile.diagnosis."

// negativeOK reports whether the number x at path may be below 0.
func negativeOK(path string, x float64) bool {
	return mayBeNegative[path] || x == -1 && strings.HasPrefix(path, unknownPrefix)
}

// walkInput checks every number in v (addressable) is at least 0, unless
// negativeOK allows it, and makes every string printable. path is v's
// JSON path ("counts.outcomes.ok"), "" at the top.
func walkInput(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return walkInput(v.Elem(), path)
		}
	case reflect.Struct:
		return walkStruct(v, path)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			name := fmt.Sprintf("%s[%d]", path, i)
			if v.Type() == outcomesType {
				name = join(path, Outcome(i).String())
			}
			if err := walkInput(v.Index(i), name); err != nil {
				return err
			}
		}
	case reflect.Map:
		return walkMap(v, path)
	case reflect.String:
		v.SetString(Printable(v.String()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); n < 0 && !negativeOK(path, float64(n)) {
			return fmt.Errorf("not a gb result: %s is %d, below 0", path, n)
		}
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); !(f >= 0) && !negativeOK(path, f) {
			return fmt.Errorf("not a gb result: %s is %g, below 0", path, f)
		}
	}
	return nil
}

// walkStruct walks the exported fields of a struct of this package, each
// named by its JSON name; other structs (time.Time, histograms) are left.
func walkStruct(v reflect.Value, path string) error {
	t := v.Type()
	if t.PkgPath() != statsPkg || t == reflect.TypeFor[time.Time]() {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		p := path
		if !f.Anonymous {
			p = join(path, name)
		}
		if err := walkInput(v.Field(i), p); err != nil {
			return err
		}
	}
	return nil
}

// walkMap checks a map's keys and values; string keys are made printable
// (the map is rebuilt when one changes).
func walkMap(v reflect.Value, path string) error {
	changed := false
	for _, k := range v.MapKeys() {
		name := join(path, Printable(fmt.Sprint(k.Interface())))
		switch k.Kind() {
		case reflect.String:
			changed = changed || Printable(k.String()) != k.String()
		case reflect.Int, reflect.Int64:
			if k.Int() < 0 {
				return fmt.Errorf("not a gb result: %s has the key %d, below 0", path, k.Int())
			}
		}
		e := reflect.New(v.Type().Elem()).Elem()
		e.Set(v.MapIndex(k))
		if err := walkInput(e, name); err != nil {
			return err
		}
		v.SetMapIndex(k, e)
	}
	if changed {
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for _, k := range v.MapKeys() {
			nk := reflect.ValueOf(Printable(k.String())).Convert(k.Type())
			sum := v.MapIndex(k)
			if old := out.MapIndex(nk); old.IsValid() && sum.CanInt() {
				sum = reflect.ValueOf(old.Int() + sum.Int()).Convert(sum.Type())
			}
			out.SetMapIndex(nk, sum)
		}
		v.Set(out)
	}
	return nil
}

// join appends name to a JSON path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
