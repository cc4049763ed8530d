package report

import (
	"bufio"
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

// abRun is a real ab 2.3 run (apache2-utils) against nginx 1.22.1 on
// loopback, captured into testdata/ab: NAME.txt is ab's stdout, NAME.tsv
// its -g file (ab writes none with -w). The other fields repeat the
// command line.
type abRun struct {
	name      string
	url       string
	conc      int
	keepAlive bool
	body      int64 // -p file size
	o         Options
	html      bool
}

var abRuns = []abRun{
	// ab -k -c 5 -n 200 -g keepalive.tsv http://127.0.0.1:42919/cr
	{name: "keepalive", url: "http://127.0.0.1:42919/cr", conc: 5, keepAlive: true},
	// ab -p body.txt -T text/plain -c 4 -n 200 -g post404.tsv http://127.0.0.1:42919/nope
	{name: "post404", url: "http://127.0.0.1:42919/nope", conc: 4, body: 6},
	// ab -c 5 -n 200 -g https.tsv https://localhost:42920/file
	{name: "https", url: "https://localhost:42920/file", conc: 5},
	// ab -c 20 -n 300 -g busy.tsv https://127.0.0.1:42920/file
	{name: "busy", url: "https://127.0.0.1:42920/file", conc: 20},
	// ab -S -c 5 -n 200 -g noconfidence.tsv http://127.0.0.1:42919/file
	{name: "noconfidence", url: "http://127.0.0.1:42919/file", conc: 5, o: Options{NoConfidence: true}},
	// ab -d -c 3 -n 120 -g nopercentiles.tsv http://127.0.0.1:42919/file
	{name: "nopercentiles", url: "http://127.0.0.1:42919/file", conc: 3, o: Options{NoPercentiles: true}},
	// ab -c 1 -n 1 -g one.tsv http://127.0.0.1:42919/file
	{name: "one", url: "http://127.0.0.1:42919/file", conc: 1},
	// ab -w -k -p body.txt -c 5 -n 200 http://127.0.0.1:42919/cr
	{name: "html", url: "http://127.0.0.1:42919/cr", conc: 5, keepAlive: true, body: 6, html: true},
}

// TestMirrorsAb renders, for each captured ab run, a Result with the same
// counts, bytes and per-request times (from ab's -g file, whole ms) and
// checks that gb's report has ab's lines in ab's order, byte for byte,
// except where the transcript lacks the data: the mean, sd and median
// columns (ab computes them from µs samples; -g keeps ms), the HTML
// Connection Times cells (ab -w writes no -g file), ab's mean/median
// warnings, and the SSL/TLS Protocol value (gb names ciphers as Go does).
// Time taken is the one whole number of µs consistent with ab's printed
// time and rates, which must exist. The -g file gb writes from the same
// samples must equal ab's, byte for byte.
func TestMirrorsAb(t *testing.T) {
	for _, run := range abRuns {
		t.Run(run.name, func(t *testing.T) {
			out := readFile(t, filepath.Join("testdata", "ab", run.name+".txt"))
			marker := "\n\nServer Software:"
			if run.html {
				marker = "\n\n<table"
			}
			i := strings.Index(out, marker)
			if i < 0 {
				t.Fatalf("no report in %s.txt", run.name)
			}
			want := out[i:]
			var samples []stats.Sample
			if !run.html {
				samples = readGnuplot(t, filepath.Join("testdata", "ab", run.name+".tsv"))
			}
			r := mirror(t, labels(want, run.html), run, samples)
			if errs := r.Check(); len(errs) > 0 {
				t.Fatalf("mirrored Result is inconsistent: %v", errs)
			}
			render := func(r *stats.Result) string {
				var b bytes.Buffer
				var err error
				if run.html {
					err = HTML(&b, r, run.o)
				} else {
					err = Text(&b, r, run.o)
				}
				if err != nil {
					t.Fatal(err)
				}
				got, _, _ := strings.Cut(b.String(), "\ngb:\n")
				if run.html { // gb's tables follow ab's
					got, _, _ = strings.Cut(b.String(), "</table>\n")
					got += "</table>\n"
				}
				return got
			}
			if !findElapsed(r, want, run.html) {
				t.Fatalf("no elapsed µs reproduces ab's time and rates:\n%s", want)
			}
			compareLines(t, render(r), want)
			if samples != nil {
				var b bytes.Buffer
				if err := Gnuplot(&b, r, time.UTC); err != nil {
					t.Fatal(err)
				}
				if tsv := readFile(t, filepath.Join("testdata", "ab", run.name+".tsv")); b.String() != tsv {
					t.Errorf("-g file differs from ab's:\n%s\nwant:\n%s", b.String(), tsv)
				}
			}
		})
	}
}

// labels returns ab's "Label: value" pairs (first occurrence of each),
// from text lines or HTML rows.
func labels(report string, html bool) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(report, "\n") {
		if html {
			line = strings.NewReplacer("</th>", "", "</td>", "", "</tr>", "").Replace(line)
			if j := strings.LastIndex(line, ">"); j >= 0 && strings.Contains(line, ":") {
				k := strings.Index(line, ":")
				label := line[strings.LastIndex(line[:k], ">")+1 : k]
				m[label] = strings.TrimSpace(line[j+1:])
			}
			continue
		}
		if k := strings.Index(line, ":"); k > 0 {
			label := line[:k]
			if _, ok := m[label]; !ok {
				m[label] = strings.TrimSpace(line[k+1:])
			}
		}
	}
	return m
}

// mirror builds the Result of an ab run from its report's values and
// samples: one recorder, as a live run with one worker would record it.
func mirror(t *testing.T, ab map[string]string, run abRun, samples []stats.Sample) *stats.Result {
	t.Helper()
	num := func(label string) int64 {
		v, _, _ := strings.Cut(ab[label], " ")
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return n
	}
	complete, non2xx, docLen := num("Complete requests"), num("Non-2xx responses"), num("Document Length")
	var lengthFails int64
	if b := ab["   (Connect"]; b != "" { // "0, Receive: 0, Length: 155, Exceptions: 0"
		_, rest, _ := strings.Cut(b, "Length: ")
		v, _, _ := strings.Cut(rest, ",")
		lengthFails, _ = strconv.ParseInt(v, 10, 64)
	}
	if samples == nil {
		samples = make([]stats.Sample, complete)
	}
	if int64(len(samples)) != complete {
		t.Fatalf("%d samples for %d complete requests", len(samples), complete)
	}
	u, err := url.Parse(run.url)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	shards := record.NewGroups(1)
	rec := record.NewRecorder(shards[0], false, true, len(samples))
	for i, s := range samples {
		status, length := 200, docLen
		if int64(i) < non2xx {
			status = 404
		}
		if i > 0 && int64(i) <= lengthFails {
			length = docLen + 1
		}
		rec.Status(status)
		rec.Response(&record.Timing{stats.Connect: s.Connect, stats.Processing: s.Processing,
			stats.Waiting: s.Waiting, stats.Total: s.Total}, s.Start)
		rec.Body(length, []byte(ab["Server Software"]), int64(i+1))
		if status == 200 {
			rec.End(stats.OK)
		} else {
			rec.End(stats.Non2xx)
		}
	}
	rec.KeepAlive = num("Keep-Alive requests")
	rec.BytesIn, rec.BodyIn, rec.BytesOut = num("Total transferred"), num("HTML transferred"), num("Total body sent")
	target := stats.Load{URL: run.url, Method: "GET", Host: u.Hostname(), Port: port, Path: u.RequestURI(),
		Concurrency: run.conc, Requests: complete, KeepAlive: run.keepAlive, BodyLength: run.body}
	if run.body > 0 {
		target.Method = "POST"
	}
	r := record.Collect(stats.Result{Load: target, StoppedBy: stats.StopCount,
		Counts: stats.Counts{Dispatched: complete}}, []*record.Recorder{rec}, shards)
	if u.Scheme == "https" {
		r.Server.TLSProtocol, r.Server.TLSCipher = "TLS 1.2", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
		r.Server.TLSTempKey, r.Server.TLSServerName = ab["Server Temp Key"], ab["TLS Server Name"]
	}
	return r
}

// findElapsed sets r.Elapsed to a whole number of µs within ab's printed
// "Time taken for tests" for which the rate lines equal ab's, as ab's own
// elapsed time is; it reports whether there is one.
func findElapsed(r *stats.Result, want string, html bool) bool {
	render := func(r *stats.Result) string { // the lines that depend on Elapsed only
		var b bytes.Buffer
		if html {
			t := htmlTable{w: &b, td: defaultCellAttrs}
			t.rows(r)
			t.rates(r)
		} else {
			writeCounts(&b, r)
			writeRates(&b, r)
		}
		return b.String()
	}
	rates := func(s string) string {
		var b strings.Builder
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "Time taken") || strings.Contains(line, "Requests per second") ||
				strings.Contains(line, "Time per request") || strings.Contains(line, "Transfer rate") ||
				strings.Contains(line, "kb/s") {
				b.WriteString(line + "\n")
			}
		}
		return b.String()
	}
	wantRates := rates(want)
	secs := labels(want, html)["Time taken for tests"]
	f, err := strconv.ParseFloat(strings.TrimSuffix(secs, " seconds"), 64)
	if err != nil {
		return false
	}
	mid := int64(f * 1e6)
	for us := max(mid-500, 1); us <= mid+500; us++ {
		r.Elapsed = time.Duration(us) * time.Microsecond
		if rates(render(r)) == wantRates {
			return true
		}
	}
	return false
}

// compareLines checks got against ab's report line by line, see
// TestMirrorsAb for what is not compared.
func compareLines(t *testing.T, got, want string) {
	t.Helper()
	g, w := comparable(got), comparable(want)
	if len(g) != len(w) {
		t.Fatalf("%d lines, ab has %d:\n%s\nab:\n%s", len(g), len(w), strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	for i := range w {
		if g[i] != w[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, g[i], w[i])
		}
	}
}

// comparable reduces a report to what the transcript determines.
func comparable(report string) []string {
	var out []string
	skip := false
	for _, line := range strings.Split(report, "\n") {
		switch {
		case skip:
			skip = false
			continue
		case strings.HasPrefix(line, "ERROR:") || strings.HasPrefix(line, "WARNING:"):
			skip = true
			continue
		case strings.HasPrefix(line, "SSL/TLS Protocol:"):
			line = "SSL/TLS Protocol:"
		case strings.HasPrefix(line, "<tr ") && strings.Contains(line, "<td ") && strings.Contains(line, ":</th>") &&
			strings.Count(line, "<td ") == 3: // HTML Connection Times row: ab -w writes no -g file
			line, _, _ = strings.Cut(line, "<td ")
		}
		for _, row := range []string{"Connect:", "Processing:", "Waiting:", "Total:"} {
			if f := strings.Fields(line); strings.HasPrefix(line, row) && len(f) >= 4 {
				line = f[0] + " " + f[1] + " " + f[len(f)-1] // min and max
			}
		}
		out = append(out, line)
	}
	return out
}

// readGnuplot reads an ab -g file back into samples (ms become µs).
func readGnuplot(t *testing.T, path string) []stats.Sample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	var samples []stats.Sample
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 6 {
			t.Fatalf("bad -g row %q", sc.Text())
		}
		var v [5]int64
		for i := range v {
			if v[i], err = strconv.ParseInt(cols[i+1], 10, 64); err != nil {
				t.Fatal(err)
			}
		}
		samples = append(samples, stats.Sample{Start: v[0] * 1e6, Connect: v[1] * 1000,
			Processing: v[2] * 1000, Total: v[3] * 1000, Waiting: v[4] * 1000})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return samples
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
