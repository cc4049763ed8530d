package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/k8s"
	"github.com/gb-bench/gb/internal/outfile"
)

const k8sUsage = `Usage: gb k8s job --parallelism N [job options] [gb options] URL
  Prints a Kubernetes Indexed Job that runs the load as N shards, one pod
  each (gb --shard I/N), all starting together, each writing its JSON result
  to its pod log; then the kubectl commands that gather the logs into
  gb merge. -n, -R and -c are the whole load's: each pod does its share.
Job options:
    --parallelism N   Shards (pods), all running at once
    --image image     Container image whose entrypoint is gb
                      (default ` + defaultImage + `)
    --name name       The Job's name (default gb)
    --namespace ns    Its namespace (default kubectl's)
    --cpu n           Each pod's CPU request and limit (default 1; a whole
                      number is also gb's -G unless -G is given)
    --memory size     Each pod's memory request and limit (default 256Mi)
    --start-in d      Start the load this long after now (default 1m): time
                      to apply the Job and pull the image
    --scrape how      With gb's --metrics-addr :PORT: annotations (default;
                      prometheus.io/scrape on the pods) or podmonitor (a
                      Prometheus Operator PodMonitor after the Job); the pods
                      linger 1m after the load unless --metrics-linger is given
    -o file           Write the manifest to file and the commands to stdout
                      (default: both on stdout, the commands as comments)
`

// defaultImage is the image gb k8s job names when --image is not given:
// the release image of this gb (Dockerfile).
const defaultImage = "ghcr.io/gb-bench/gb:" + gb.Version

// k8sOptions is gb k8s job's own command line.
type k8sOptions struct {
	job     k8s.Job
	startIn time.Duration
	out     string
}

var k8sSpecs = []getopt.Spec[k8sOptions]{
	getopt.New(0, "parallelism", "N", "", func(o *k8sOptions, v string) (err error) {
		o.job.Parallelism, err = getopt.Positive(v)
		return err
	}),
	getopt.New(0, "image", "image", "", func(o *k8sOptions, v string) error { o.job.Image = v; return nil }),
	getopt.New(0, "name", "name", "", func(o *k8sOptions, v string) error { o.job.Name = v; return nil }),
	getopt.New(0, "namespace", "ns", "", func(o *k8sOptions, v string) error { o.job.Namespace = v; return nil }),
	getopt.New(0, "cpu", "n", "", func(o *k8sOptions, v string) error { o.job.CPU = v; return nil }),
	getopt.New(0, "memory", "size", "", func(o *k8sOptions, v string) error { o.job.Memory = v; return nil }),
	getopt.New(0, "start-in", "d", "", func(o *k8sOptions, v string) (err error) {
		o.startIn, err = time.ParseDuration(v)
		if err == nil && o.startIn <= 0 {
			err = getopt.Errorf(false, "--start-in %s: want a positive duration, e.g. 1m", v)
		}
		return err
	}),
	getopt.New(0, "scrape", "how", "", func(o *k8sOptions, v string) error {
		if v != k8s.ScrapeAnnotations && v != k8s.ScrapePodMonitor {
			return getopt.Errorf(false, "--scrape %q: want %s or %s", v, k8s.ScrapeAnnotations, k8s.ScrapePodMonitor)
		}
		o.job.Scrape = v
		return nil
	}),
	getopt.New('o', "output", "file", "", func(o *k8sOptions, v string) error { o.out = v; return nil }),
}

// k8sCmd is gb k8s: for now its one subcommand, job.
func k8sCmd(args []string, stdout, stderr io.Writer, _ <-chan os.Signal) int {
	if len(args) == 0 || args[0] != "job" {
		fmt.Fprintf(stderr, "gb k8s: want gb k8s job --parallelism N [options] URL (gb k8s --help)\n")
		return exitUsage
	}
	ko := k8sOptions{job: k8s.Job{Name: "gb", Image: defaultImage}, startIn: time.Minute}
	if err := parseK8s(args[1:], &ko); err != nil {
		return failAs(stderr, "gb k8s job", asUsage(err), nil)
	}
	ko.job.StartAt = time.Now().Add(ko.startIn).Truncate(time.Second).Add(time.Second)
	ko.job.Wait = ko.startIn + 10*time.Minute
	manifest, err := ko.job.Manifest()
	if err != nil {
		return failAs(stderr, "gb k8s job", asUsage(err), nil)
	}
	if ko.out == "" {
		fmt.Fprintf(stdout, "%s# Save this as %[2]s-job.yaml, then:\n", manifest, ko.job.Name)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(ko.job.Collect(ko.job.Name+"-job.yaml"), "\n"), "\n") {
			fmt.Fprintf(stdout, "#   %s", line)
		}
		fmt.Fprintln(stdout)
		return exitOK
	}
	if err := outfile.Write(ko.out, 0o644, func(w io.Writer) error { _, err := w.Write(manifest); return err }); err != nil {
		fmt.Fprintf(stderr, "gb k8s job: cannot write %s: %v\n", ko.out, err)
		return exitFailure
	}
	fmt.Fprint(stdout, ko.job.Collect(ko.out))
	return exitOK
}

// parseK8s splits args into the job's options and gb's, checks gb's as
// gb would (one URL; the whole load splits into Parallelism shares) and
// fills ko.
func parseK8s(args []string, ko *k8sOptions) error {
	own, rest := splitK8sArgs(args)
	if _, err := getopt.Parse(own, k8sSpecs, ko); err != nil {
		return err
	}
	if ko.job.Parallelism == 0 {
		return getopt.Errorf(false, "--parallelism N is required")
	}
	o := defaultOptions()
	urls, err := parseAll(rest, abSpecs, &o)
	switch {
	case err != nil:
		return err
	case len(urls) != 1:
		return getopt.Errorf(false, "want one URL after the options (gb k8s --help)")
	case !o.cfg.Shard.IsZero() || !o.cfg.StartAt.IsZero() || o.repeat > 0:
		return getopt.Errorf(false, "--shard, --start-at and --repeat are the Job's to set")
	case o.jsonFile+o.gnuplotFile+o.csvFile+o.htmlFile+o.hgrmFile+o.hlogFile+o.junitFile+o.benchOut != "":
		return getopt.Errorf(false, "files written in a pod are lost: write them from the merged result (gb merge -o, gb report)")
	}
	cfg := o.cfg
	if cfg.Duration > 0 && !o.requestsSet {
		cfg.Requests = 0
	}
	cfg.Shard = gb.Shard{Index: ko.job.Parallelism - 1, Count: ko.job.Parallelism} // the smallest share
	if _, err := cfg.Sharded(); err != nil {
		_, why, _ := strings.Cut(explain(err), ": ")
		return getopt.Errorf(false, "--parallelism %d: %s", ko.job.Parallelism, why)
	}
	if err := k8sMetrics(&o.metrics, ko, &rest); err != nil {
		return err
	}
	if n, err := strconv.Atoi(or(ko.job.CPU, "1")); err == nil && n > 0 && o.cfg.CPUs == 0 {
		rest = append([]string{"-G", strconv.Itoa(n)}, rest...)
	}
	ko.job.Args = rest
	return nil
}

// splitK8sArgs separates the job's options (--parallelism N,
// --image=x, -o file...) from gb's, keeping each list in order.
func splitK8sArgs(args []string) (own, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case a == "--":
			return own, append(rest, args[i:]...)
		case a == "-o" || strings.HasPrefix(a, "--") && getopt.FindLong(k8sSpecs, name) != nil:
			own = append(own, a)
			if !hasValue && i+1 < len(args) {
				own, i = append(own, args[i+1]), i+1
			}
		default:
			rest = append(rest, a)
		}
	}
	return own, rest
}

// k8sMetrics sets the Job's metrics port from gb's --metrics-addr, which in
// a pod must listen on every address, and makes the pods linger a minute
// after the load (a scrape must see its end) unless --metrics-linger says.
func k8sMetrics(m *metricsFlags, ko *k8sOptions, rest *[]string) error {
	if m.addr == "" {
		if ko.job.Scrape != "" {
			return getopt.Errorf(false, "--scrape needs gb's --metrics-addr :PORT")
		}
		return nil
	}
	host, port, _ := net.SplitHostPort(m.addr) // checked by the flag
	n, err := strconv.Atoi(port)
	if host != "" && host != "0.0.0.0" && host != "::" || err != nil || n < 1 || n > 65535 {
		return getopt.Errorf(false, "--metrics-addr %s: in a pod, give :PORT (every address, a fixed port) so that Prometheus reaches it", m.addr)
	}
	ko.job.MetricsPort = n
	if m.linger == 0 {
		*rest = append([]string{"--metrics-linger", "1m"}, *rest...)
	}
	return nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
