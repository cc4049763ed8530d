package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/metrics"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// prometheusBin returns Debian's prometheus server, skipping the test
// when there is none unless GB_REQUIRE_PROMETHEUS=1 makes that a failure.
func prometheusBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("GB_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal("prometheus is required (GB_REQUIRE_PROMETHEUS=1) but not installed (apt-get install prometheus)")
		}
		t.Skip("prometheus not installed")
	}
	return p
}

// freePort returns a loopback address whose port was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startPrometheus runs a Prometheus server on a free loopback port with a
// temporary storage, scraping target every second; it returns its address
// and stops it (by its PID) at the test's end.
func startPrometheus(t *testing.T, target string, flags ...string) string {
	t.Helper()
	bin := prometheusBin(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	// A scrape that times out is retried at the next; the test waits for
	// one after the load, so the timeout only needs to be generous.
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: gb\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	cmd := exec.Command(bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Args = append(cmd.Args, flags...)
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	waitFor(t, "prometheus ready", func() bool {
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return addr
}

// waitFor polls cond every 100 ms, failing the test after a minute (a
// hang, never a verdict on speed).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// promQuery returns the value of PromQL query q's single sample; ok is
// false when the result is not exactly one sample.
func promQuery(t *testing.T, prom, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get("http://" + prom + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, b)
	}
	if len(r.Data.Result) != 1 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// geometric returns bucket bounds from lo, each factor times the last, up
// to hi, as --metrics-buckets takes them, and their values in seconds.
func geometric(lo time.Duration, factor float64, hi time.Duration) (string, []float64) {
	var list []string
	var bounds []float64
	for d := float64(lo); d <= float64(hi); d *= factor {
		us := int64(d / 1e3)
		list = append(list, strconv.FormatInt(us, 10)+"us")
		bounds = append(bounds, float64(us)/1e6)
	}
	return strings.Join(list, ","), bounds
}

// bucketOf returns the bounds (lo, hi] of the classic bucket holding v
// seconds; hi is +Inf past the last bound.
func bucketOf(bounds []float64, v float64) (lo, hi float64) {
	lo = 0
	for _, b := range bounds {
		if v <= b {
			return lo, b
		}
		lo = b
	}
	return lo, math.Inf(1)
}

// TestMetricsPrometheus: a real Prometheus server scrapes a real rate-mode
// run through --metrics-addr (every second). After the load, PromQL's request total
// equals gb's count, bytes and status classes equal gb's, and the p99 of
// histogram_quantile over the classic buckets lies in the bucket that
// holds gb's p99, for the service and the corrected latency.
func TestMetricsPrometheus(t *testing.T) { promRun(t, false) }

// TestMetricsPrometheusNative is TestMetricsPrometheus with Prometheus
// ingesting the native histograms (which it then takes instead of the
// classic buckets): histogram_quantile over them lies in the native bucket
// (about 9% wide) that holds gb's p99.
func TestMetricsPrometheusNative(t *testing.T) { promRun(t, true) }

func promRun(t *testing.T, native bool) {
	prometheusBin(t)
	srv := testsupport.Server(t, testserver.Options{})
	maddr := freePort(t)
	var flags []string
	if native {
		flags = append(flags, "--enable-feature=native-histograms")
	}
	prom := startPrometheus(t, maddr, flags...)
	list, bounds := geometric(50*time.Microsecond, 1.25, 10*time.Second)
	jsonFile := filepath.Join(t.TempDir(), "run.json")
	const n = 3000
	args := []string{"-n", strconv.Itoa(n), "-c", "4", "-k", "-R", "1500", "-q", "--json", jsonFile,
		"--metrics-addr", maddr, "--metrics-buckets", list, "--metrics-linger", "120s", srv.URL() + "/"}
	var out, errb lockedBuffer
	sig := make(chan os.Signal, 1)
	done := make(chan int, 1)
	go func() { done <- run(args, &out, &errb, sig) }()
	ended := false
	defer func() {
		if !ended {
			sig <- os.Interrupt
			<-done
		}
	}()

	// The load's end: every request counted, every response in the
	// histogram (the closed intervals hold the whole run after the merge).
	var seen string
	defer func() {
		if t.Failed() {
			up, _ := promQuery(t, prom, `up`)
			dur, _ := promQuery(t, prom, `scrape_duration_seconds`)
			t.Logf("last seen: %s; up %g, scrape duration %gs", seen, up, dur)
		}
	}()
	waitFor(t, "a scrape after the load's end", func() bool {
		total, ok1 := promQuery(t, prom, `sum(gb_requests_total)`)
		hist, ok2 := promQuery(t, prom, countQuery(native))
		resp, ok3 := promQuery(t, prom, `sum(gb_requests_total{outcome=~"ok|non2xx"})`)
		seen = fmt.Sprintf("total %g (%v), service count %g (%v), responses %g (%v)", total, ok1, hist, ok2, resp, ok3)
		return ok1 && ok2 && ok3 && total == n && hist == resp
	})
	q := func(expr string) float64 {
		v, ok := promQuery(t, prom, expr)
		if !ok {
			t.Fatalf("PromQL %s: no single sample", expr)
		}
		t.Logf("PromQL %s = %g", expr, v)
		return v
	}
	total := q(`sum(gb_requests_total)`)
	bytesIn := q(`sum(gb_received_bytes_total)`)
	ok2xx := q(`sum(gb_responses_total{class="2xx"})`)
	p99 := map[string]float64{}
	for _, phase := range []string{"service", "corrected"} {
		p99[phase] = q(quantileQuery(native, phase))
	}
	sig <- os.Interrupt // ends the linger
	code := <-done
	ended = true
	if code != 0 {
		t.Fatalf("gb exited %d: %s", code, errb.String())
	}

	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Counts struct {
			Outcomes map[string]int64
			BytesIn  int64 `json:"bytes_in"`
			Status   map[string]int64
		}
		Latency map[string]struct {
			P99 int64 `json:"p99_us"`
		}
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var count int64
	for _, v := range res.Counts.Outcomes {
		count += v
	}
	t.Logf("gb: %d requests, %d bytes in, status %v, p99 total %d µs, corrected %d µs",
		count, res.Counts.BytesIn, res.Counts.Status, res.Latency["total"].P99, res.Latency["corrected"].P99)
	if int64(total) != count || count != n {
		t.Errorf("PromQL request total %g, gb counted %d (of -n %d)", total, count, n)
	}
	if int64(bytesIn) != res.Counts.BytesIn {
		t.Errorf("PromQL bytes in %g, gb %d", bytesIn, res.Counts.BytesIn)
	}
	if int64(ok2xx) != res.Counts.Status["200"] {
		t.Errorf("PromQL 2xx responses %g, gb's 200s %d", ok2xx, res.Counts.Status["200"])
	}
	for phase, key := range map[string]string{"service": "total", "corrected": "corrected"} {
		gbP99 := float64(res.Latency[key].P99) / 1e6
		lo, hi := bucketOf(bounds, gbP99)
		if native {
			i := float64(metrics.NativeIndex(gbP99))
			lo, hi = math.Pow(2, (i-1)/8), math.Pow(2, i/8)
		}
		// gb's percentile is HdrHistogram's, within 0.1% of the sample.
		if got := p99[phase]; got < lo*(1-1e-3) || got > hi*(1+1e-3) {
			t.Errorf("%s p99: PromQL %gs, gb %gs: not in gb's bucket (%g, %g]", phase, got, gbP99, lo, hi)
		}
	}
}

// countQuery is PromQL for the service histogram's sample count.
func countQuery(native bool) string {
	if native {
		return `sum(histogram_count(gb_latency_seconds{phase="service"}))`
	}
	return `sum(gb_latency_seconds_count{phase="service"})`
}

// quantileQuery is PromQL for the p99 of phase's histogram.
func quantileQuery(native bool, phase string) string {
	if native {
		return fmt.Sprintf(`histogram_quantile(0.99, sum(gb_latency_seconds{phase=%q}))`, phase)
	}
	return fmt.Sprintf(`histogram_quantile(0.99, sum by (le) (gb_latency_seconds_bucket{phase=%q}))`, phase)
}

// TestMetricsAddrBadInput: a malformed address is a usage error (22); a
// port in use or an address not on this machine is one line and exit 1,
// before any request.
func TestMetricsAddrBadInput(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	listenBadInput(t, srv.URL(), "--metrics-addr", "9100", true)
	if r := runGB(t, "-n", "5", "--metrics-buckets", "1ms,0", srv.URL()+"/"); r.code != exitUsage {
		t.Errorf("--metrics-buckets 1ms,0: exit %d, %q", r.code, r.stderr)
	}
}

// TestK8sMetricsAddr: gb k8s job takes the metrics port from gb's
// --metrics-addr :PORT, refuses one only the pod itself could reach, and
// --scrape without it; the pods linger a minute for the last scrape.
func TestK8sMetricsAddr(t *testing.T) {
	r := runGB(t, "k8s", "job", "--parallelism", "2", "-c", "2", "-n", "10", "--metrics-addr", ":9100", "http://web:8080/")
	if r.code != 0 || !strings.Contains(r.stdout, "containerPort: 9100") || !strings.Contains(r.stdout, `prometheus.io/port: "9100"`) ||
		!strings.Contains(r.stdout, "- \"--metrics-linger\"\n            - \"1m\"") {
		t.Errorf("exit %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	for _, args := range [][]string{
		{"--metrics-addr", "127.0.0.1:9100"},
		{"--metrics-addr", ":0"},
		{"--scrape", "podmonitor"},
		{"--scrape", "servicemonitor", "--metrics-addr", ":9100"},
	} {
		r := runGB(t, append(append([]string{"k8s", "job", "--parallelism", "2", "-c", "2", "-n", "10"}, args...), "http://web:8080/")...)
		if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
