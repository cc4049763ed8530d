package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandIsAShell: cmd/gb maps flags to gb.Config and renders; it
// never builds requests, TLS configurations, dialers or recorders, so it
// imports none of the packages that do (the engine is gb's), and the
// product binary links no test code.
func TestCommandIsAShell(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range strings.Fields(string(out)) {
		switch imp {
		case "crypto/tls", "crypto/x509", "net/http",
			"github.com/gb-bench/gb/internal/client", "github.com/gb-bench/gb/internal/load",
			"github.com/gb-bench/gb/internal/h1", "github.com/gb-bench/gb/internal/evloop",
			"github.com/gb-bench/gb/internal/pace", "github.com/gb-bench/gb/internal/profile":
			t.Errorf("cmd/gb imports %s: that work belongs to package gb", imp)
		}
	}
	deps, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range strings.Fields(string(deps)) {
		if d == "testing" {
			t.Error("the gb binary links package testing")
		}
	}
}
