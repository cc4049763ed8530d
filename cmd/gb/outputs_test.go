package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestHTMLAndPNGOutputs: --html writes one self-contained page with its
// charts inlined; gb ramp --plot file.png draws the curve without gnuplot
// and --html writes the ramp's page.
func TestHTMLAndPNGOutputs(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	page := filepath.Join(dir, "run.html")
	if code, _, errs := inProcess("-q", "-k", "-c", "2", "-n", "200", "--html", page, srv.URL()+"/hello"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("<!DOCTYPE html>")) || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("--html page: %v, %d bytes, starts %.60q", err, len(b), b)
	}
	png, rpage := filepath.Join(dir, "ramp.png"), filepath.Join(dir, "ramp.html")
	code, _, errs := inProcess("ramp", "-k", "--from", "1", "--to", "2", "--per-user", "50", "--pause", "0",
		"--plot", png, "--html", rpage, srv.URL()+"/hello")
	if code != 0 {
		t.Fatalf("ramp: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("--plot %s: %v, %.8q", png, err, b)
	}
	if b, err := os.ReadFile(rpage); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("ramp --html: %v", err)
	}
	if code, _, errs := inProcess("ramp", "--from", "1", "--to", "2", "--plot", filepath.Join(dir, "p.gp"), srv.URL()); code != 22 || !strings.Contains(errs, "--plot file.gp needs --csv") {
		t.Errorf("--plot p.gp without --csv: exit %d, %q", code, errs)
	}
}
