package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// TestShardProcessesMerge: one load of -n 2001 -c 4 run as two gb
// processes (--shard 0/2 and 1/2, one --start-at), one writing its JSON to
// a file, the other to stdout as a pod's log has it (report, then JSON);
// gb merge makes them one result: the server's count, -n and -c of the
// whole, every point of the series one second of wall-clock time; gb
// report renders the merged file as gb merge printed it, gb compare and
// --threshold accept it.
func TestShardProcessesMerge(t *testing.T) {
	gbBin(t) // built before the --start-at time is taken: building takes seconds
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	at := shardStartAt()
	s0, log1 := filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.log")
	args := func(shard string, out string) []string {
		return []string{"-q", "-k", "-n", "2001", "-c", "4", "--shard", shard, "--start-at", at.Format(time.RFC3339), "--json", out, srv.URL() + "/hello"}
	}
	c0 := exec.Command(gbBin(t), args("0/2", s0)...)
	if err := c0.Start(); err != nil {
		t.Fatal(err)
	}
	r1 := runGB(t, args("1/2", "-")...)
	if err := c0.Wait(); err != nil || r1.code != 0 {
		t.Fatalf("shards: %v; exit %d, %s", err, r1.code, r1.stderr)
	}
	if err := os.WriteFile(log1, []byte(r1.stderr+r1.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	a := readResult(t, s0)
	if a.Load.Shard != (stats.ShardID{Index: 0, Count: 2}) || a.Load.Requests != 1001 || a.Load.Concurrency != 2 || a.Start.Before(at) {
		t.Fatalf("shard 0: target %+v, start %v (start-at %v)", a.Load, a.Start, at)
	}
	all := filepath.Join(dir, "all.json")
	code, out, errs := inProcess("merge", "-o", all, s0, log1)
	if code != 0 || errs != "" || !strings.Contains(out, "Complete requests:      2001\n") || !strings.Contains(out, "Concurrency Level:      4\n") {
		t.Fatalf("gb merge: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	m := readResult(t, all)
	if served := srv.Ledger().HTTP.Requests; m.Complete() != served || m.Load.Requests != 2001 || !m.Load.Shard.IsZero() {
		t.Errorf("merged: complete %d, the server served %d; -n %d, shard %v", m.Complete(), served, m.Load.Requests, m.Load.Shard)
	}
	// The series starts in the whole second the load started in: at, unless
	// the shards started late (a busy machine; gb accepts a --start-at up
	// to 1 s past).
	if first := m.Start.Truncate(time.Second); m.Series == nil || m.Series.Interval != time.Second ||
		len(m.Series.Points) == 0 || !m.Series.Points[0].Start.Equal(first) || first.Before(at) {
		t.Errorf("merged series: %+v, want points from %v (start-at %v)", m.Series, first, at)
	}
	if code, again, errs := inProcess("report", all); code != 0 || again != out {
		t.Errorf("gb report of the merge: exit %d, %s; differs from gb merge's:\n%s", code, errs, again)
	}
	if code, _, errs := inProcess("compare", s0, all); code != 0 {
		t.Errorf("gb compare shard merged: exit %d, %s", code, errs)
	}
	if code, out, _ := inProcess("merge", "--threshold", "p99<1us", s0, log1); code != 99 || !strings.Contains(out, "thresholds:") {
		t.Errorf("failing threshold: exit %d\n%s", code, out)
	}
	if code, _, errs := inProcess("merge", "--threshold", "errors<1%", s0, log1); code != 0 {
		t.Errorf("passing threshold: exit %d, %s", code, errs)
	}

	// Another load is refused, in one line naming the difference.
	other := filepath.Join(dir, "other.json")
	if r := runGB(t, "-q", "-n", "20", "-c", "2", "--shard", "1/2", "--json", other, srv.URL()+"/json"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	code, _, errs = inProcess("merge", s0, other)
	if code != 1 || errs != "gb merge: result 2: another url ("+srv.URL()+"/json, not "+srv.URL()+"/hello)\n" {
		t.Errorf("merge of another load: exit %d, %q", code, errs)
	}
	code, _, errs = inProcess("merge", s0, s0)
	if code != 1 || errs != "gb merge: "+s0+" and "+s0+" are the same file: each part is merged once\n" {
		t.Errorf("one file twice: exit %d, %q", code, errs)
	}
}

// shardStartAt is a --start-at for shard processes started now: a whole
// second 4-5 s ahead. There is no event to wait for here: the time goes on
// the command line before the processes run, and gb refuses a --start-at
// more than 1 s past (exit 22), so the lead is what a process may take to
// start on a busy machine (1.5 s was not: a gb started 2 s late failed).
func shardStartAt() time.Time { return time.Now().Add(5 * time.Second).Truncate(time.Second) }

// runShardFiles runs -n 40 -c 4 as n gb processes (--shard I/n) from one
// --start-at, each writing its JSON into dir, and returns the files in
// shard order.
func runShardFiles(t *testing.T, url, dir string, n int, at time.Time) []string {
	t.Helper()
	files := make([]string, n)
	cmds := make([]*exec.Cmd, n)
	for i := range n {
		files[i] = filepath.Join(dir, fmt.Sprintf("s%d-%d.json", i, at.Unix()))
		cmds[i] = exec.Command(gbBin(t), "-q", "-k", "-n", "40", "-c", "4", "--shard", fmt.Sprintf("%d/%d", i, n),
			"--start-at", at.Format(time.RFC3339), "--json", files[i], url)
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	return files
}

// TestMergeMissingShards: of a load split 4 ways, 3 files are refused in
// one line naming the missing index, unless --allow-partial, whose text
// report and JSON say which shards the merge holds; all 4 merge whole. A
// file twice (one path or two names of one file), a copy of a shard, a
// copy of an unsplit run and a shard of another --start-at are refused.
func TestMergeMissingShards(t *testing.T) {
	gbBin(t) // built before the --start-at time is taken: building takes seconds
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	at := shardStartAt()
	s := runShardFiles(t, srv.URL()+"/hello", dir, 4, at)
	code, out, errs := inProcess("merge", s[0], s[1], s[3])
	if code != 1 || out != "" || errs != "gb merge: shard 2 of 4 missing (have 0,1,3); --allow-partial merges them anyway\n" {
		t.Errorf("3 of 4 shards: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := inProcess("merge", s[3], s[0]); code != 1 || errs != "gb merge: shards 1,2 of 4 missing (have 0,3); --allow-partial merges them anyway\n" {
		t.Errorf("2 of 4 shards: exit %d, %q", code, errs)
	}
	part := filepath.Join(dir, "part.json")
	code, out, errs = inProcess("merge", "--allow-partial", "-o", part, s[0], s[1], s[3])
	p := readResult(t, part)
	if code != 0 || errs != "" || !strings.Contains(out, "Complete requests:      30\n") ||
		!strings.Contains(out, "  partial merge:        shards 0,1,3 of 4 merged, the others missing: the counts above are not the whole load's\n") {
		t.Errorf("--allow-partial: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	if p.Partial == nil || p.Partial.Count != 4 || !slices.Equal(p.Partial.Shards, []int{0, 1, 3}) || p.Complete() != 30 {
		t.Errorf("--allow-partial JSON: partial %+v, complete %d", p.Partial, p.Complete())
	}
	if code, again, errs := inProcess("report", part); code != 0 || again != out {
		t.Errorf("gb report of the partial merge: exit %d, %s; differs from gb merge's:\n%s", code, errs, again)
	}
	whole := filepath.Join(dir, "whole.json")
	if code, out, errs := inProcess("merge", "-o", whole, s[0], s[1], s[2], s[3]); code != 0 || strings.Contains(out, "partial") || readResult(t, whole).Partial != nil {
		t.Errorf("4 of 4 shards: exit %d, %s\n%s", code, errs, out)
	}

	link, copied := filepath.Join(dir, "link.json"), filepath.Join(dir, "copy.json")
	b, _ := os.ReadFile(s[2])
	if os.Link(s[2], link) != nil || os.WriteFile(copied, b, 0o600) != nil {
		t.Fatal("cannot link or copy")
	}
	plain, plainCopy := filepath.Join(dir, "plain.json"), filepath.Join(dir, "plain2.json")
	if r := runGB(t, "-q", "-n", "10", "--json", plain, srv.URL()+"/hello"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	b, _ = os.ReadFile(plain)
	_ = os.WriteFile(plainCopy, b, 0o600)
	later := runShardFiles(t, srv.URL()+"/hello", dir, 4, at.Add(2*time.Second))
	for _, tc := range []struct {
		files []string
		msg   string
	}{
		{[]string{s[0], s[1], s[2], s[3], s[1]}, s[1] + " and " + s[1] + " are the same file: each part is merged once"},
		{[]string{s[0], s[1], s[2], s[3], link}, s[2] + " and " + link + " are the same file: each part is merged once"},
		{[]string{s[0], s[1], s[2], s[3], copied}, "result 5 is result 3 again (the same start, end and count)"},
		{[]string{plain, plainCopy}, "result 2 is result 1 again (the same start, end and count)"},
		{[]string{s[0], s[1], later[2], s[3]}, "result 3: another start_at (" + at.Add(2*time.Second).UTC().Format(time.RFC3339) + ", not " + at.UTC().Format(time.RFC3339) + ")"},
	} {
		code, out, errs := inProcess(append([]string{"merge"}, tc.files...)...)
		if code != 1 || out != "" || errs != "gb merge: "+tc.msg+"\n" {
			t.Errorf("merge %q: exit %d, stdout %q, stderr %q; want %q", tc.files, code, out, errs, tc.msg)
		}
	}
}

// TestShardBadInput: --shard, --start-at, gb merge and gb k8s job refuse
// bad input with one line and exit 22 (1 for an unreadable file), sending
// nothing.
func TestShardBadInput(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "x.txt")
	_ = os.WriteFile(notJSON, []byte("hello\n"), 0o600)
	url := "http://127.0.0.1:1/"
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--shard", "2/2", url}, 22, `gb: --shard: invalid shard "2/2": I must be from 0 to N-1 (1)`},
		{[]string{"--shard", "1", url}, 22, `gb: --shard: invalid shard "1": want I/N, e.g. 0/4`},
		{[]string{"--shard", "0/0", url}, 22, `gb: --shard: invalid shard "0/0": N must be at least 1`},
		{[]string{"--shard", "1/4", "-c", "3", "-n", "100", url}, 22, "gb: --shard 1/4: -c 3 cannot be split 4 ways (each shard needs a connection)"},
		{[]string{"--shard", "1/4", "-c", "4", "-n", "3", url}, 22, "gb: --shard 1/4: -n 3 cannot be split 4 ways"},
		{[]string{"--start-at", "noon", url}, 22, `gb: --start-at "noon": want an RFC 3339 time`},
		{[]string{"--start-at", "2001-02-03T04:05:06Z", url}, 22, "gb: --start-at 2001-02-03T04:05:06Z is "},
		{[]string{"merge"}, 22, "gb merge: want the result files to merge"},
		{[]string{"merge", "--threshold", "p99<<1", "a.json"}, 22, `gb merge: --threshold "p99<<1"`},
		{[]string{"merge", filepath.Join(dir, "none.json")}, 1, "gb merge: " + filepath.Join(dir, "none.json") + ": no such file or directory"},
		{[]string{"merge", notJSON}, 1, "gb merge: " + notJSON + ": not a gb result"},
		{[]string{"k8s"}, 22, "gb k8s: want gb k8s job --parallelism N"},
		{[]string{"k8s", "job", "-c", "4", url}, 22, "gb k8s job: --parallelism N is required"},
		{[]string{"k8s", "job", "--parallelism", "4", "-n", "100", url}, 22, "gb k8s job: --parallelism 4: -c 1 cannot be split 4 ways"},
		{[]string{"k8s", "job", "--parallelism", "2", "-c", "2", "--json", "x.json", url}, 22, "gb k8s job: files written in a pod are lost"},
		{[]string{"k8s", "job", "--parallelism", "2", "-c", "2", "--shard", "0/2", url}, 22, "gb k8s job: --shard, --start-at and --repeat are the Job's to set"},
		{[]string{"k8s", "job", "--parallelism", "2", "-c", "2", "-n", "4", "--name", "Gb", url}, 22, `gb k8s job: invalid job name "Gb"`},
		{[]string{"k8s", "job", "--parallelism", "2", "-c", "2"}, 22, "gb k8s job: want one URL"},
	} {
		code, out, errs := inProcess(tc.args...)
		if code != tc.code || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, tc.msg) {
			t.Errorf("gb %q: exit %d, stdout %q, stderr %q; want %d, %q", tc.args, code, out, errs, tc.code, tc.msg)
		}
	}
}

// TestK8sJob: gb k8s job prints a manifest that decodes strictly into a
// batch/v1 Job whose pods run the user's gb options as shards of the
// whole, from a start time a little in the future; with -o the manifest
// goes to the file and the commands to stdout.
func TestK8sJob(t *testing.T) {
	before := time.Now()
	code, out, errs := inProcess("k8s", "job", "--parallelism", "3", "--image", "reg.example/gb:1", "--cpu", "2", "--start-in", "30s",
		"-k", "-c", "30", "-n", "30000", "http://web.perf.svc:8080/")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, %s", code, errs)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(out), &job); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, out)
	}
	c := job.Spec.Template.Spec.Containers[0]
	i := slices.Index(c.Args, "--start-at")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("no --start-at in %q", c.Args)
	}
	at, err := time.Parse(time.RFC3339, c.Args[i+1])
	if err != nil || at.Before(before.Add(30*time.Second)) {
		t.Errorf("--start-at %s (%v): want 30 s or more after %v", c.Args[i+1], err, before)
	}
	want := []string{"--shard", "$(JOB_COMPLETION_INDEX)/3", "--start-at", c.Args[i+1], "--json", "-", "-q", "-G", "2", "-k", "-c", "30", "-n", "30000", "http://web.perf.svc:8080/"}
	if !slices.Equal(c.Args, want) || c.Image != "reg.example/gb:1" || *job.Spec.Completions != 3 {
		t.Errorf("container: image %s, args %q", c.Image, c.Args)
	}
	if !strings.Contains(out, "#   gb merge -o gb-all.json gb-shard-*.json\n") {
		t.Errorf("no merge command in:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "job.yaml")
	code, out, errs = inProcess("k8s", "job", "--parallelism", "2", "-o", file, "-c", "2", "-t", "10", "http://web/")
	b, err := os.ReadFile(file)
	if code != 0 || err != nil || yaml.UnmarshalStrict(b, &batchv1.Job{}) != nil || !strings.HasPrefix(out, "kubectl apply -f "+file+"\n") {
		t.Errorf("-o: exit %d %s %v, stdout:\n%s", code, errs, err, out)
	}
}
