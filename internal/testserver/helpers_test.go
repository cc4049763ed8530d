package testserver_test

import (
	"bufio"
	"io"
	"net/http"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
)

// client returns an HTTP client with a hang guard.
func client() *http.Client {
	return &http.Client{Timeout: testsupport.Guard, Transport: &http.Transport{}}
}

// get fetches url and returns the response with its body read.
func get(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// readResponse reads one response from br (for raw tests of the main
// listener).
func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}
