package main

import (
	"bytes"
	"os/exec"
	"testing"
	"time"
)

// startGB starts the gb binary without waiting for it.
func startGB(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	skipUnderRace(t)
	cmd := exec.Command(gbBin(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &out, &errb
}

// waitExit waits for cmd, failing the test if it outlives d.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("gb did not exit within %v", d)
	}
}

// runAB runs Apache Bench with a time limit and returns its stdout.
func runAB(ab string, args []string) (string, error) {
	cmd := exec.Command(ab, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	timer := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Run()
	return out.String(), err
}
