package script

import (
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// statsType names the metatable of done()'s statistics objects.
const statsType = "wrk.stats"

// Summary is done()'s first argument, wrk's summary table.
type Summary struct {
	Duration time.Duration // the run's duration (µs in Lua)
	Requests int64         // requests completed
	Bytes    int64         // bytes received
	Errors   Errors
}

// Errors is summary.errors: wrk's error counts.
type Errors struct {
	Connect int64 // connections that could not be made
	Read    int64 // failed reads (resets, truncated or malformed responses)
	Write   int64 // failed writes
	Status  int64 // responses with a status above 399
	Timeout int64 // requests that timed out
}

// Stats is one of done()'s statistics objects (latency in µs, or
// requests per second): exact moments, percentiles, and the distinct
// values recorded with their counts, ascending.
type Stats struct {
	Min, Max, Mean, Stdev float64
	Percentile            func(p float64) float64 // p in 0..100
	Values                []float64
	Counts                []int64
}

// StatsOf returns the Stats of samples.
func StatsOf(samples []float64) *Stats {
	s := &Stats{}
	seen := map[float64]int{}
	var sum float64
	for i, v := range samples {
		if i == 0 || v < s.Min {
			s.Min = v
		}
		s.Max = max(s.Max, v)
		sum += v
		if j, ok := seen[v]; ok {
			s.Counts[j]++
			continue
		}
		seen[v] = len(s.Values)
		s.Values, s.Counts = append(s.Values, v), append(s.Counts, 1)
	}
	if n := float64(len(samples)); n > 0 {
		s.Mean = sum / n
		var m2 float64
		for _, v := range samples {
			m2 += (v - s.Mean) * (v - s.Mean)
		}
		if n > 1 {
			s.Stdev = math.Sqrt(m2 / (n - 1))
		}
	}
	sortPairs(s.Values, s.Counts)
	s.Percentile = func(p float64) float64 {
		want := int64(math.Ceil(p / 100 * float64(len(samples))))
		var n int64
		for i, c := range s.Counts {
			if n += c; n >= want {
				return s.Values[i]
			}
		}
		return s.Max
	}
	return s
}

// sortPairs sorts values ascending, keeping counts beside them.
func sortPairs(values []float64, counts []int64) {
	for i := 1; i < len(values); i++ {
		for j := i; j > 0 && values[j] < values[j-1]; j-- {
			values[j], values[j-1] = values[j-1], values[j]
			counts[j], counts[j-1] = counts[j-1], counts[j]
		}
	}
}

// HasDone reports whether the script defines done().
func (g *Group) HasDone() bool {
	_, ok := g.setup.GetGlobal("done").(*lua.LFunction)
	return ok
}

// Done calls done(summary, latency, requests) in the setup state, when
// the script defines it. Its error is a *RuntimeError.
func (g *Group) Done(s Summary, latency, requests *Stats) error {
	L := g.setup
	fn, ok := L.GetGlobal("done").(*lua.LFunction)
	if !ok {
		return nil
	}
	registerStats(L)
	sum := L.NewTable()
	sum.RawSetString("duration", lua.LNumber(s.Duration.Microseconds()))
	sum.RawSetString("requests", lua.LNumber(s.Requests))
	sum.RawSetString("bytes", lua.LNumber(s.Bytes))
	errs := L.NewTable()
	for _, f := range []struct {
		name string
		n    int64
	}{{"connect", s.Errors.Connect}, {"read", s.Errors.Read}, {"write", s.Errors.Write}, {"status", s.Errors.Status}, {"timeout", s.Errors.Timeout}} {
		errs.RawSetString(f.name, lua.LNumber(f.n))
	}
	sum.RawSetString("errors", errs)
	if err := L.CallByParam(lua.P{Fn: fn, Protect: true}, sum, statsData(L, latency), statsData(L, requests)); err != nil {
		return runtimeError("done", err)
	}
	return nil
}

// registerStats adds the statistics objects' metatable to L: the fields
// min, max, mean and stdev, the method percentile(p), stats(i) for the
// i-th distinct value and its count, and #stats for how many there are.
func registerStats(L *lua.LState) {
	mt := L.NewTypeMetatable(statsType)
	percentile := L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(checkStats(L).Percentile(float64(L.CheckNumber(2)))))
		return 1
	})
	L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
		s := checkStats(L)
		switch L.CheckString(2) {
		case "min":
			L.Push(lua.LNumber(s.Min))
		case "max":
			L.Push(lua.LNumber(s.Max))
		case "mean":
			L.Push(lua.LNumber(s.Mean))
		case "stdev":
			L.Push(lua.LNumber(s.Stdev))
		case "percentile":
			L.Push(percentile)
		default:
			L.Push(lua.LNil)
		}
		return 1
	}))
	L.SetField(mt, "__call", L.NewFunction(func(L *lua.LState) int {
		s := checkStats(L)
		i := int(L.CheckNumber(2)) - 1
		if i < 0 || i >= len(s.Values) {
			L.Push(lua.LNumber(0))
			L.Push(lua.LNumber(0))
			return 2
		}
		L.Push(lua.LNumber(s.Values[i]))
		L.Push(lua.LNumber(s.Counts[i]))
		return 2
	}))
	L.SetField(mt, "__len", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(len(checkStats(L).Values)))
		return 1
	}))
}

func statsData(L *lua.LState, s *Stats) *lua.LUserData {
	if s == nil {
		s = StatsOf(nil)
	}
	ud := L.NewUserData()
	ud.Value = s
	L.SetMetatable(ud, L.GetTypeMetatable(statsType))
	return ud
}

func checkStats(L *lua.LState) *Stats {
	if s, ok := L.CheckUserData(1).Value.(*Stats); ok {
		return s
	}
	L.ArgError(1, "statistics expected")
	return nil
}
