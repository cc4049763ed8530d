package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// compressedRun runs gb with args against url and returns its result.
func compressedRun(t *testing.T, wantCode int, url string, args ...string) *stats.Result {
	t.Helper()
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, append(append([]string{"-q", "--json", js}, args...), url)...)
	if r.code != wantCode {
		t.Fatalf("gb %v %s: exit %d, want %d: %s", args, url, r.code, wantCode, r.stderr)
	}
	return readResult(t, js)
}

// codedLength is the body length /compressed sends for a query.
func codedLength(t *testing.T, url string) int64 {
	t.Helper()
	c := &http.Client{Timeout: testsupport.Guard, Transport: &http.Transport{DisableCompression: true}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return int64(b.Len())
}

// Every coding, both engines, keep-alive or not, Content-Length or
// chunked: every response decodes to exactly the size the server coded,
// the wire bytes are the coded bodies, and the counts equal the server's.
func TestCompressedDecodesEveryCoding(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	const n, size = 120, 50000
	for _, enc := range []string{"gzip", "br", "zstd"} {
		for _, chunked := range []string{"0", "1"} {
			url := fmt.Sprintf("%s/compressed?enc=%s&size=%d&chunked=%s", s.URL(), enc, size, chunked)
			wire := codedLength(t, url)
			for _, engine := range []string{"loop", "goroutine"} {
				for _, ka := range []bool{true, false} {
					name := fmt.Sprintf("%s chunked=%s %s keepalive=%v", enc, chunked, engine, ka)
					args := []string{"--compressed", "-n", fmt.Sprint(n), "-c", "3", "--engine", engine}
					if ka {
						args = append(args, "-k")
					}
					before := s.Ledger().HTTP.Requests
					r := compressedRun(t, 0, url, args...)
					c := &r.Counts
					if c.Outcomes[stats.OK] != n || c.DecodedIn != n*size || c.BodyIn != n*wire || !r.Load.Compressed {
						t.Errorf("%s: ok %d, decoded %d (want %d), body %d (want %d)", name,
							c.Outcomes[stats.OK], c.DecodedIn, n*size, c.BodyIn, n*wire)
					}
					if got := s.Ledger().HTTP.Requests - before; got != n {
						t.Errorf("%s: the server counted %d requests, gb %d", name, got, n)
					}
					if ka && c.ConnsOpened != 3 {
						t.Errorf("%s: %d connections opened, want 3", name, c.ConnsOpened)
					}
				}
			}
		}
	}
}

// Bodies that frame fine but do not decode end as failed.decode, every
// one of them, and with -k the connections stay open (the body was read
// whole); pipelined, every request of a batch is still answered.
func TestCompressedFailures(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	cases := []struct {
		name, query string
		args        []string
		err         string
	}{
		{"corrupt gzip", "enc=gzip&break=corrupt", nil, "gzip body corrupt"},
		{"zstd cut inside the stream", "enc=zstd&break=cut", nil, "zstd body ends inside the compressed stream"},
		{"br cut inside the stream", "enc=br&break=cut&chunked=1", nil, "br body ends inside the compressed stream"},
		{"gzip with trailing data", "enc=gzip&break=trailing", nil, "gzip body corrupt"},
		{"not asked for", "enc=zstd", []string{"-H", "Accept-Encoding: gzip, br"}, "content-encoding zstd not asked for"},
		{"a coding gb does not decode", "enc=deflate", nil, "unknown content-encoding"},
		{"past --max-decoded", "enc=gzip&size=100000", []string{"--max-decoded", "65536"}, "gzip body decodes past the limit"},
		{"pipelined corrupt", "enc=gzip&break=corrupt", []string{"--pipeline", "4"}, "gzip body corrupt"},
	}
	for _, engine := range []string{"loop", "goroutine"} {
		for _, c := range cases {
			name := c.name + " " + engine
			args := append([]string{"--compressed", "-n", "40", "-c", "2", "-k", "--engine", engine}, c.args...)
			r := compressedRun(t, 1, s.URL()+"/compressed?"+c.query+"&size=20000", args...)
			o := &r.Counts.Outcomes
			if o[stats.FailDecode] != 40 || o.Failed() != 40 || r.Failed() != 40 || r.Breakdown().Exceptions != 40 {
				t.Errorf("%s: outcomes %v, ab's failed %d", name, *o, r.Failed())
			}
			if r.Counts.ConnsOpened != 2 {
				t.Errorf("%s: %d connections opened, want 2 (kept after each undecodable body)", name, r.Counts.ConnsOpened)
			}
			found := false
			for msg := range r.Counts.Errors {
				found = found || strings.Contains(msg, c.err)
			}
			if !found {
				t.Errorf("%s: errors %v, want one with %q", name, r.Counts.Errors, c.err)
			}
		}
	}
}

// Without --compressed nothing is decoded or checked: gb sends no
// Accept-Encoding, and a corrupt coded body is just bytes.
func TestCompressedOffChecksNothing(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	r := compressedRun(t, 0, s.URL()+"/compressed?enc=gzip&break=corrupt", "-n", "20", "-k")
	if r.Counts.Outcomes[stats.OK] != 20 || r.Counts.DecodedIn != 0 || r.Load.Compressed {
		t.Errorf("outcomes %v, decoded %d", r.Counts.Outcomes, r.Counts.DecodedIn)
	}
	out := runGB(t, "-n", "5", s.URL()+"/compressed")
	if strings.Contains(out.stdout, "Decoded body") {
		t.Errorf("a run without --compressed reports decoding:\n%s", out.stdout)
	}
}

// The Accept-Encoding gb sends: its own with --compressed, the user's
// (as written, once) when -H has one, none otherwise.
func TestCompressedAcceptEncoding(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("hello, hello, hello"))
	zw.Close()
	var mu sync.Mutex
	var seen []string
	addr := testsupport.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			mu.Lock()
			seen = append(seen, strings.Join(req.Header.Values("Accept-Encoding"), " | "))
			mu.Unlock()
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", gz.Len(), gz.Bytes())
		}
	})
	for _, c := range []struct {
		args []string
		want string
		ok   int64
	}{
		{[]string{"--compressed"}, "gzip, br, zstd", 2},
		{[]string{"--compressed", "-H", "accept-encoding: gzip;q=1"}, "gzip;q=1", 2},
		{[]string{"--compressed", "-H", "Accept-Encoding: identity"}, "identity", 0}, // gzip was not asked for
		{nil, "", 2},
	} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		code := 0
		if c.ok == 0 {
			code = 1
		}
		r := compressedRun(t, code, "http://"+addr+"/", append([]string{"-n", "2", "-k"}, c.args...)...)
		mu.Lock()
		if len(seen) != 2 || seen[0] != c.want || seen[1] != c.want {
			t.Errorf("%v: server saw Accept-Encoding %q, want %q twice", c.args, seen, c.want)
		}
		mu.Unlock()
		if r.Counts.Outcomes[stats.OK] != c.ok {
			t.Errorf("%v: outcomes %v", c.args, r.Counts.Outcomes)
		}
	}
}

// nginx's own gzip (chunked, as nginx frames it): gb's bytes in equal
// nginx's bytes_sent, its decoded bytes the file's size times the
// requests, and its counts nginx's log.
func TestCompressedNginxGzip(t *testing.T) {
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{Extra: "gzip on; gzip_types text/plain; gzip_min_length 0;"})
	text := strings.Repeat("All work and no play makes gb a dull benchmark.\n", 2000) // 98000 bytes
	if err := os.WriteFile(filepath.Join(ngx.Root, "big.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var requests int64
	for _, args := range [][]string{{"-k"}, {}, {"-k", "--engine", "goroutine"}} {
		const n = 300
		r := compressedRun(t, 0, ngx.URL+"/big.txt", append([]string{"--compressed", "-n", fmt.Sprint(n), "-c", "4"}, args...)...)
		log := ngx.Settled(t, testsupport.LogTotals{Requests: requests}, n)
		requests += n
		c := &r.Counts
		if c.Outcomes[stats.OK] != n || c.DecodedIn != n*int64(len(text)) || log.Requests != requests {
			t.Errorf("%v: ok %d, decoded %d (want %d), nginx log %d", args, c.Outcomes[stats.OK], c.DecodedIn, n*len(text), log.Requests)
		}
		if c.BodyIn >= c.DecodedIn/10 || c.BodyIn == 0 {
			t.Errorf("%v: %d bytes on the wire for %d decoded: nginx did not compress?", args, c.BodyIn, c.DecodedIn)
		}
		// nginx's body_bytes_sent counts the chunk framing too: compare
		// everything on the wire.
		entries := ngx.Entries(t)
		var sent int64
		for _, e := range entries[len(entries)-n:] {
			sent += e.BytesSent
		}
		if c.BytesIn != sent {
			t.Errorf("%v: gb read %d bytes, nginx sent %d", args, c.BytesIn, sent)
		}
	}
}

// The report's line beside ab's HTML transferred.
func TestCompressedReportLine(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	url := s.URL() + "/compressed?enc=gzip&size=10000"
	wire := codedLength(t, url)
	r := runGB(t, "--compressed", "-n", "10", url)
	want := fmt.Sprintf("HTML transferred:       %d bytes\nDecoded body:           100000 bytes (%.2f× the %d on the wire)\n",
		10*wire, 100000/float64(10*wire), 10*wire)
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d; want the lines\n%s\nin\n%s", r.code, want, r.stdout)
	}
}

// A decompression bomb: 256 MiB of zstd in a body of under 100 KB.
// Decoding stops at the limit (--max-decoded) and gb's memory stays that
// of a normal run: decoded bytes go to a fixed scratch buffer.
func TestCompressedBombBounded(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	// 256 MiB bodies decoded against a 16 MiB --max-decoded: the same bomb
	// as 1 GiB against the default limit, at a sixteenth of the server's
	// cost to code it (the 1 GiB one took over 10 s under CI's load).
	const limit = 16 << 20
	url := s.URL() + "/compressed?enc=zstd&size=256m"
	wire := codedLength(t, url) // the server codes it once, before gb runs
	js := filepath.Join(t.TempDir(), "r.json")
	p := gbProcess(t, "--compressed", "--max-decoded", fmt.Sprint(limit), "-n", "4", "-c", "2", "-k", "-q", "--json", js, url)
	if p.code != 1 {
		t.Fatalf("exit %d: %s", p.code, p.stderr)
	}
	r := readResult(t, js)
	if r.Counts.Outcomes[stats.FailDecode] != 4 || r.Counts.BodyIn != 4*wire {
		t.Errorf("outcomes %v, body %d (want %d)", r.Counts.Outcomes, r.Counts.BodyIn, 4*wire)
	}
	if d := r.Counts.DecodedIn; d <= 4*limit || d > 4*(limit+1<<20) {
		t.Errorf("decoded %d bytes, want just past 4 × %d", d, limit)
	}
	if rss := r.Client.MaxRSS; rss == 0 || rss > 100<<20 {
		t.Errorf("gb's peak RSS %d MiB while decoding 256 MiB bodies", rss>>20)
	}
}

// --max-decoded without --compressed is a usage error, before any load.
func TestMaxDecodedNeedsCompressed(t *testing.T) {
	r := runGB(t, "--max-decoded", "1000", "-n", "1", "http://127.0.0.1:1/")
	if r.code != 22 || r.stderr != "gb: --max-decoded needs --compressed (gb decodes nothing without it)\n" {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// Over TLS, on both engines: the same decoded bytes, the server's counts.
func TestCompressedTLS(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{TLS: true})
	url := s.TLSURL() + "/compressed?size=30000&chunked=1"
	for _, engine := range []string{"loop", "goroutine"} {
		before := s.Ledger().TLS.Requests
		r := compressedRun(t, 0, url, "--compressed", "--insecure", "-n", "60", "-c", "2", "-k", "--engine", engine)
		if r.Counts.Outcomes[stats.OK] != 60 || r.Counts.DecodedIn != 60*30000 || s.Ledger().TLS.Requests-before != 60 {
			t.Errorf("%s: outcomes %v, decoded %d, server %d", engine, r.Counts.Outcomes, r.Counts.DecodedIn, s.Ledger().TLS.Requests-before)
		}
	}
}
