package compare

import (
	"reflect"
	"strings"
	"time"

	"github.com/gb-bench/gb/stats"
)

// cpuClasses are the causes of the diagnosis's CPU split that get a row,
// in the order of the rows, with their labels. The server answering gb's
// own profile requests ("profiling") is gb's cost, not a row.
var cpuClasses = []struct{ class, label string }{
	{"user_cpu", "your code"}, {"http_stack", "HTTP stack"}, {"gc", "GC"}, {"alloc", "allocation"},
	{"scheduler", "scheduler"}, {"syscalls", "syscalls"}, {"runtime", "runtime"}, {"other", "other"},
}

// diagnosisLabels are the labels of the diagnosis's number fields that
// have one; any other number field (a part added to stats.Diagnosis
// later) gets a label made of its JSON path.
var diagnosisLabels = map[string]string{
	"gc.cycles_per_1000": "server GC cycles/1000 req",
	"gc.max_pause":       "server GC longest pause",
	"gc.cpu_share":       "server GC CPU share",
	"goroutines.during":  "server goroutines during",
	"goroutines.after":   "server goroutines after",
}

// diagnosisSkipped are number fields of the diagnosis that are no row:
// the same numbers as rows compare already has (server CPU/req, server
// alloc/req, server allocs/req), and the goroutines before the load,
// which the load does not change.
var diagnosisSkipped = map[string]bool{
	"cpu.per_request": true, "gc.bytes_per_request": true, "gc.objects_per_request": true, "goroutines.before": true,
}

// diagnosisKnown are the number fields whose 0 may mean "unknown": a
// field is measured in a run only when its rule holds. The longest GC
// pause is known only with memstats (the cycles then are).
var diagnosisKnown = map[string]func(d *stats.Diagnosis) bool{
	"gc.max_pause": func(d *stats.Diagnosis) bool { return d.GC.CyclesPer1000 >= 0 },
}

// diagnosisMetrics are the rows of the server's diagnosis (--profile,
// stats.Diagnosis), all lower-is-better and per run: the CPU split per
// request by cause, the user code's lock and channel wait per request by
// profile kind, and every number of the diagnosis's parts (GC, goroutines,
// and whatever part stats.Diagnosis gains) found by reflection on the
// model's types. A row is left out when some run lacks its part, and
// the text table leaves it out when its values are all 0.
func diagnosisMetrics() []Metric {
	var ms []Metric
	for _, c := range cpuClasses {
		ms = append(ms, Metric{Key: "diag.cpu." + c.class, Label: "server CPU " + c.label + "/req", Unit: UnitTime,
			Bench: "diag-cpu-" + c.class + "-ns/op", Diagnosis: true, value: cpuClass(c.class)})
	}
	for _, kind := range []string{"mutex", "block"} {
		ms = append(ms, Metric{Key: "diag.wait." + kind, Label: "server " + kind + " wait/req", Unit: UnitTime,
			Bench: "diag-wait-" + kind + "-ns/op", Diagnosis: true, value: waitOf(kind)})
	}
	return append(ms, numberFields(reflect.TypeFor[stats.Diagnosis](), nil, nil)...)
}

// cpuClass is the server CPU seconds per response of one cause; 0 when
// the diagnosis has a CPU split without it.
func cpuClass(class string) func(r *stats.Result) (float64, bool) {
	return func(r *stats.Result) (float64, bool) {
		d := diagnosisOf(r)
		if d == nil || d.CPU == nil {
			return 0, false
		}
		for _, c := range d.CPU.Classes {
			if c.Class == class {
				return c.PerRequest.Seconds(), true
			}
		}
		return 0, true
	}
}

// waitOf is the user code's wait per response in seconds in the profile
// of kind ("mutex" or "block"): the sum of the diagnosis's wait sites of
// that kind. It is measured when the run saved a profile of the kind; a
// profile without samples counts 0 (the diagnosis's missing lines say
// when the server may not have turned that profile on).
func waitOf(kind string) func(r *stats.Result) (float64, bool) {
	return func(r *stats.Result) (float64, bool) {
		d := diagnosisOf(r)
		if d == nil || !saved(r.Profile, kind) {
			return 0, false
		}
		var sum time.Duration
		for _, w := range d.Contention {
			if w.Kind == kind {
				sum += w.PerRequest
			}
		}
		return sum.Seconds(), true
	}
}

// saved reports whether p saved a profile of kind.
func saved(p *stats.ServerProfile, kind string) bool {
	for _, f := range p.Files {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// diagnosisOf is r's diagnosis, nil without one.
func diagnosisOf(r *stats.Result) *stats.Diagnosis {
	if r.Profile == nil {
		return nil
	}
	return r.Profile.Diagnosis
}

// numberFields returns a metric for every number field reachable from
// struct type t through pointers to structs (not slices), path being the
// JSON names of the fields above, and index their field indexes. A
// time.Duration is a time in nanoseconds; a field named *_share a ratio;
// *bytes* bytes; any other number a count. A negative value is "not
// measured", as the model writes it.
func numberFields(t reflect.Type, path []string, index []int) []Metric {
	var ms []Metric
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		p, idx := append(append([]string{}, path...), strings.TrimSuffix(name, "_ns")), append(append([]int{}, index...), i)
		switch {
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct:
			ms = append(ms, numberFields(f.Type.Elem(), p, idx)...)
		case isNumber(f.Type.Kind()):
			if m, ok := numberField(f.Type, p, idx); ok {
				ms = append(ms, m)
			}
		}
	}
	return ms
}

// isNumber reports whether k is an integer or float kind.
func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Int64 || k >= reflect.Uint && k <= reflect.Uint64 || k == reflect.Float32 || k == reflect.Float64
}

// numberField is the metric of the diagnosis field at index, named by its
// JSON path; false for the fields that are no row.
func numberField(t reflect.Type, path []string, index []int) (Metric, bool) {
	key := strings.Join(path, ".")
	if diagnosisSkipped[key] {
		return Metric{}, false
	}
	m := Metric{Key: "diag." + key, Label: diagnosisLabels[key], Unit: UnitCount, Diagnosis: true,
		Bench: "diag-" + strings.Join(path, "-")}
	last := path[len(path)-1]
	switch {
	case t == reflect.TypeFor[time.Duration]():
		m.Unit, m.Bench = UnitTime, m.Bench+"-ns"
	case strings.HasSuffix(last, "share"):
		m.Unit = UnitRatio
	case strings.Contains(last, "bytes"):
		m.Unit = UnitBytes
	}
	if m.Label == "" {
		m.Label = "server " + strings.ReplaceAll(strings.Join(path, " "), "_", " ")
	}
	unit := m.Unit
	m.value = func(r *stats.Result) (float64, bool) {
		v := reflect.ValueOf(diagnosisOf(r))
		for _, i := range index {
			if v.Kind() == reflect.Pointer {
				if v.IsNil() {
					return 0, false
				}
				v = v.Elem()
			}
			v = v.Field(i)
		}
		x := number(v)
		if known := diagnosisKnown[key]; x < 0 || known != nil && !known(diagnosisOf(r)) {
			return 0, false
		}
		if unit == UnitTime {
			x /= 1e9
		}
		return x, true
	}
	return m, true
}

// number is the value of a number field as a float64.
func number(v reflect.Value) float64 {
	switch {
	case v.CanInt():
		return float64(v.Int())
	case v.CanUint():
		return float64(v.Uint())
	}
	return v.Float()
}
