package profile

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"
)

// protoField appends a length-delimited protobuf field.
func protoField(b []byte, field int, payload []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field<<3|2))
	b = binary.AppendUvarint(b, uint64(len(payload)))
	return append(b, payload...)
}

// bulkHead is a valid pprof header: sample type cpu/nanoseconds, one
// location (id 1) and the string table.
func bulkHead() []byte {
	var head []byte
	head = protoField(head, 1, []byte{0x08, 0x01, 0x10, 0x02}) // sample_type {type: "cpu", unit: "nanoseconds"}
	head = protoField(head, 4, []byte{0x08, 0x01})             // location {id: 1}
	for _, s := range []string{"", "cpu", "nanoseconds"} {
		head = protoField(head, 6, []byte(s)) // string_table
	}
	return head
}

// bulkRaw returns an uncompressed profile of about size bytes: bulkHead
// followed by unit repeated.
func bulkRaw(size int, unit []byte) []byte {
	b := bulkHead()
	for len(b) < size {
		b = append(b, unit...)
	}
	return b
}

// bulkProfile returns bulkRaw(size, unit) gzipped, written as a stream so
// that the test holds only the compressed bytes.
func bulkProfile(t *testing.T, size int, unit []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	head := bulkHead()
	zw.Write(head)
	chunk := bytes.Repeat(unit, max(1, min(1<<20, size)/len(unit)))
	for n := len(head); n < size; n += len(chunk) {
		zw.Write(chunk)
	}
	zw.Close()
	return out.Bytes()
}

// hostileUnits are the repeated parts of hostile profiles that cost far
// more memory to parse than they weigh: tiny samples, stacks of a
// million frames, strings, mappings, functions, locations with many lines,
// labels.
func hostileUnits() map[string][]byte {
	long := bytes.Repeat([]byte{1}, 1<<20) // location_id: 1 Mi frames of id 1
	lines := bytes.Repeat(protoField(nil, 4, []byte{0x10, 0x01}), 1<<10)
	return map[string][]byte{
		"tiny samples":  protoField(nil, 2, protoField(nil, 2, []byte{1})), // sample {value: [1]}
		"long stacks":   protoField(nil, 2, append(protoField(nil, 1, long), protoField(nil, 2, []byte{1})...)),
		"many strings":  protoField(nil, 6, []byte("x")),
		"many mappings": protoField(nil, 3, []byte{0x08, 0x02}),
		"functions":     protoField(nil, 5, []byte{0x08, 0x02}),
		"lines":         protoField(nil, 4, append([]byte{0x08, 0x02}, lines...)),
		"labels":        protoField(nil, 2, append(bytes.Repeat(protoField(nil, 3, []byte{0x08, 0x01, 0x10, 0x01}), 64), protoField(nil, 2, []byte{1})...)),
	}
}

// TestEstimateBoundsParse checks estimate's weights: for every hostile
// shape, the bytes allocated while parsing (slack and garbage included)
// stay below the estimate.
func TestEstimateBoundsParse(t *testing.T) {
	for name, unit := range hostileUnits() {
		raw := bulkRaw(2<<20, unit)
		est, err := estimate(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := pprof.ParseUncompressed(raw)
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(p)
		used := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%s: parse allocated %d KiB (err %v), estimate %d KiB, ratio %.2f", name, used>>10, err, est>>10, float64(used)/float64(est))
		if used > est {
			t.Errorf("%s: parsing allocated %d KiB, more than the estimate of %d KiB", name, used>>10, est>>10)
		}
	}
	if _, err := estimate([]byte{0x12, 0x7f, 0x00}); err == nil {
		t.Error("a field longer than the message was accepted")
	}
}

// TestHostileProfileMemory runs a capture of every kind against a pprof
// server that answers each profile with a hostile one within the size
// caps, in a child process, and checks the child's peak RSS: parsing is
// bounded, so a capture stays under 100 MiB whatever the target sends.
func TestHostileProfileMemory(t *testing.T) {
	if url := os.Getenv("GB_PROFILE_CHILD_URL"); url != "" {
		captureChild(t, url)
		return
	}
	if testing.Short() {
		t.Skip("runs captures in child processes")
	}
	if raceEnabled {
		t.Skip("the race detector multiplies the memory a process uses")
	}
	shapes := map[string][]byte{}
	units := hostileUnits()
	for _, name := range []string{"tiny samples", "long stacks", "many strings", "labels"} {
		shapes[name+", 20 MiB"] = bulkProfile(t, 20<<20, units[name])
	}
	// Profiles within the decompressed cap (16 MiB), and ones that fit
	// the memory budget once parsed, a few at a time.
	shapes["tiny samples, 15 MiB"] = bulkProfile(t, 15<<20, units["tiny samples"])
	shapes["tiny samples, 12 MiB parsed"] = bulkProfile(t, 200<<10, units["tiny samples"])
	shapes["labels, 12 MiB parsed"] = bulkProfile(t, 100<<10, units["labels"])
	for name, body := range shapes {
		t.Run(name, func(t *testing.T) {
			srv := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileProfileMemory$", "-test.v")
			cmd.Env = append(os.Environ(), "GB_PROFILE_CHILD_URL="+srv.URL+"/debug/pprof/", "GB_PROFILE_CHILD_DIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			rss := peakOf(t, out)
			t.Logf("peak RSS %d MiB; %s", rss>>20, notesOf(out))
			if rss > 100<<20 {
				t.Errorf("the capture reached %d MiB of RSS", rss>>20)
			}
		})
	}
}

// captureChild is the child's side: a capture of every kind for 2.5 s.
func captureChild(t *testing.T, url string) {
	c, err := Start(context.Background(), Config{URL: url, Dir: filepath.Join(os.Getenv("GB_PROFILE_CHILD_DIR"), "p"),
		Kinds: []Kind{CPU, Heap, Allocs, Goroutine, Block, Mutex}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond)
	sp := c.Stop(100)
	for _, n := range sp.Notes {
		t.Logf("NOTE %s", n)
	}
	// The process's own peak since exec (a fork's rusage would count the
	// parent's pages too).
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			t.Logf("PEAK %s", strings.Fields(l)[1])
		}
	}
}

// peakOf returns the child's peak RSS in bytes from its PEAK line (kB).
func peakOf(t *testing.T, out []byte) int64 {
	t.Helper()
	_, after, ok := strings.Cut(string(out), "PEAK ")
	if !ok {
		t.Skipf("the child reported no peak RSS:\n%s", out)
	}
	kb, err := strconv.ParseInt(strings.Fields(after)[0], 10, 64)
	if err != nil {
		t.Fatalf("child's PEAK line: %v", err)
	}
	return kb << 10
}

// notesOf picks the child's notes from its output.
func notesOf(out []byte) string {
	var notes []string
	for _, l := range strings.Split(string(out), "\n") {
		if _, n, ok := strings.Cut(l, "NOTE "); ok {
			notes = append(notes, n)
		}
	}
	return strings.Join(notes, " | ")
}
