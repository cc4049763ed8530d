// Package k8s writes the Kubernetes manifest that runs one gb load as the
// shards of an Indexed Job, and the commands that gather its results. It
// writes YAML text from plain Go values: gb links no Kubernetes library.
package k8s

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// IndexVar is the environment variable in which an Indexed Job gives each
// pod its completion index (0 to completions-1).
const IndexVar = "JOB_COMPLETION_INDEX"

// indexAnnotation is the pod annotation the index is read from.
const indexAnnotation = "batch.kubernetes.io/job-completion-index"

// Job is an Indexed Job of Parallelism pods, each running gb as one shard
// of the load (--shard $(JOB_COMPLETION_INDEX)/Parallelism), all starting
// at StartAt and writing their JSON result to the pod log (--json -).
// Fields with a zero value take the default written beside them.
type Job struct {
	Name        string    // the Job's name (a DNS label); "" = "gb"
	Namespace   string    // "" = the namespace kubectl uses
	Image       string    // the container image holding gb at /gb; required
	Parallelism int       // shards, all run at once; at least 1
	StartAt     time.Time // when the shards start; required
	CPU         string    // CPU request and limit of each pod, e.g. "1"; "" = "1"
	Memory      string    // memory request and limit, e.g. "256Mi"; "" = "256Mi"
	Args        []string  // gb's own options and the URL, after the shard options
	// Wait is how long the printed kubectl wait waits for the Job; 0 = 10 minutes.
	Wait time.Duration
	// MetricsPort is the port of gb's --metrics-addr in Args; 0 = none.
	// The container then exposes it (named "metrics") and Prometheus finds
	// the pods as Scrape says.
	MetricsPort int
	Scrape      string // ScrapeAnnotations ("" too) or ScrapePodMonitor
}

// How Prometheus finds a Job's metrics ports (Job.Scrape).
const (
	// ScrapeAnnotations: the pods carry prometheus.io/scrape, port and
	// path, which the usual kubernetes_sd scrape configuration follows.
	ScrapeAnnotations = "annotations"
	// ScrapePodMonitor: a PodMonitor (the Prometheus Operator's) selects
	// the Job's pods, written after the Job in the same manifest.
	ScrapePodMonitor = "podmonitor"
)

// dnsLabel matches an RFC 1123 label; compiled at first use.
var dnsLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })

// check refuses a Job that Kubernetes would refuse, with one line.
func (j *Job) check() error {
	switch {
	case len(j.name()) > 63 || !dnsLabel().MatchString(j.name()):
		return fmt.Errorf("invalid job name %q: want a DNS label (lowercase letters, digits, '-', at most 63)", j.name())
	case j.Namespace != "" && !dnsLabel().MatchString(j.Namespace):
		return fmt.Errorf("invalid namespace %q", j.Namespace)
	case j.Image == "":
		return errors.New("no image")
	case j.Parallelism < 1:
		return fmt.Errorf("invalid parallelism %d: want at least 1", j.Parallelism)
	case j.StartAt.IsZero():
		return errors.New("no start time")
	case len(j.Args) == 0:
		return errors.New("no URL")
	case j.MetricsPort < 0 || j.MetricsPort > 65535:
		return fmt.Errorf("invalid metrics port %d", j.MetricsPort)
	case j.Scrape != "" && j.Scrape != ScrapeAnnotations && j.Scrape != ScrapePodMonitor:
		return fmt.Errorf("invalid scrape %q: want %s or %s", j.Scrape, ScrapeAnnotations, ScrapePodMonitor)
	}
	return nil
}

func (j *Job) name() string { return or(j.Name, "gb") }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Command returns the container's arguments: gb's, shard options first.
// The first is the shard, which Kubernetes expands from IndexVar.
func (j *Job) Command() []string {
	args := []string{
		"--shard", "$(" + IndexVar + ")/" + strconv.Itoa(j.Parallelism),
		"--start-at", j.StartAt.UTC().Format(time.RFC3339),
		"--json", "-", "-q",
	}
	return append(args, j.Args...)
}

// Manifest returns the Job as YAML (batch/v1), with a comment saying when
// it must be applied by; with a MetricsPort and ScrapePodMonitor, the
// PodMonitor follows it as a second document.
func (j *Job) Manifest() ([]byte, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	var b strings.Builder
	w := func(indent int, format string, a ...any) {
		b.WriteString(strings.Repeat("  ", indent))
		fmt.Fprintf(&b, format, a...)
		b.WriteByte('\n')
	}
	n := j.Parallelism
	w(0, "# gb: %d shards of one load, starting together at %s.", n, j.StartAt.UTC().Format(time.RFC3339))
	w(0, "# Apply it before then; a pod that starts later fails (its start time is past).")
	w(0, "apiVersion: batch/v1")
	w(0, "kind: Job")
	j.metadata(w)
	w(0, "spec:")
	w(1, "completionMode: Indexed")
	w(1, "completions: %d", n)
	w(1, "parallelism: %d", n)
	w(1, "backoffLimit: 0 # a retried shard would start late: fail instead")
	w(1, "template:")
	w(2, "metadata:")
	w(3, "labels:")
	w(4, "app.kubernetes.io/name: gb")
	w(4, "app.kubernetes.io/instance: %s", q(j.name()))
	if j.MetricsPort > 0 && j.Scrape != ScrapePodMonitor {
		w(3, "annotations:")
		w(4, "prometheus.io/scrape: \"true\"")
		w(4, "prometheus.io/port: %s", q(strconv.Itoa(j.MetricsPort)))
		w(4, "prometheus.io/path: \"/metrics\"")
	}
	w(2, "spec:")
	w(3, "restartPolicy: Never")
	w(3, "affinity: # one shard per node where the cluster has room")
	w(4, "podAntiAffinity:")
	w(5, "preferredDuringSchedulingIgnoredDuringExecution:")
	w(6, "- weight: 100")
	w(7, "podAffinityTerm:")
	w(8, "topologyKey: kubernetes.io/hostname")
	w(8, "labelSelector:")
	w(9, "matchLabels:")
	w(10, "app.kubernetes.io/instance: %s", q(j.name()))
	w(3, "containers:")
	w(4, "- name: gb")
	w(5, "image: %s", q(j.Image))
	w(5, "args:")
	for _, a := range j.Command() {
		w(6, "- %s", q(a))
	}
	if j.MetricsPort > 0 {
		w(5, "ports:")
		w(6, "- name: metrics")
		w(7, "containerPort: %d", j.MetricsPort)
		w(7, "protocol: TCP")
	}
	w(5, "env:")
	w(6, "- name: %s", IndexVar)
	w(7, "valueFrom:")
	w(8, "fieldRef:")
	w(9, "fieldPath: %s", q("metadata.annotations['"+indexAnnotation+"']"))
	cpu, mem := q(or(j.CPU, "1")), q(or(j.Memory, "256Mi"))
	w(5, "resources:")
	w(6, "requests: {cpu: %s, memory: %s}", cpu, mem)
	w(6, "limits: {cpu: %s, memory: %s}", cpu, mem)
	if j.MetricsPort > 0 && j.Scrape == ScrapePodMonitor {
		j.podMonitor(w)
	}
	return []byte(b.String()), nil
}

// metadata writes the metadata of the Job and of its PodMonitor: the
// Job's name, namespace and labels.
func (j *Job) metadata(w func(indent int, format string, a ...any)) {
	w(0, "metadata:")
	w(1, "name: %s", q(j.name()))
	if j.Namespace != "" {
		w(1, "namespace: %s", q(j.Namespace))
	}
	w(1, "labels:")
	w(2, "app.kubernetes.io/name: gb")
	w(2, "app.kubernetes.io/instance: %s", q(j.name()))
}

// podMonitor writes, as a second YAML document, the PodMonitor that has
// the Prometheus Operator scrape the Job's pods on their metrics port.
func (j *Job) podMonitor(w func(indent int, format string, a ...any)) {
	w(0, "---")
	w(0, "apiVersion: monitoring.coreos.com/v1")
	w(0, "kind: PodMonitor")
	j.metadata(w)
	w(0, "spec:")
	w(1, "selector:")
	w(2, "matchLabels:")
	w(3, "app.kubernetes.io/instance: %s", q(j.name()))
	w(1, "podMetricsEndpoints:")
	w(2, "- port: metrics")
	w(3, "path: /metrics")
}

// Collect returns the shell commands that apply the manifest (saved as
// file), wait for the Job, save each shard's pod log and merge them with
// gb merge.
func (j *Job) Collect(file string) string {
	ns := ""
	if j.Namespace != "" {
		ns = " -n " + j.Namespace
	}
	name := j.name()
	wait := j.Wait
	if wait <= 0 {
		wait = 10 * time.Minute
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kubectl%s apply -f %s\n", ns, file)
	fmt.Fprintf(&b, "kubectl%s wait --for=condition=complete job/%s --timeout=%s\n", ns, name, wait)
	fmt.Fprintf(&b, "for i in $(seq 0 %d); do\n", j.Parallelism-1)
	fmt.Fprintf(&b, "  kubectl%s logs --tail=-1 -l batch.kubernetes.io/job-name=%s,%s=$i > %s-shard-$i.json\n", ns, name, indexAnnotation, name)
	fmt.Fprintf(&b, "done\n")
	fmt.Fprintf(&b, "gb merge -o %s-all.json %s-shard-*.json\n", name, name)
	if j.MetricsPort > 0 && j.Scrape == ScrapePodMonitor {
		fmt.Fprintf(&b, "kubectl%s delete job/%s podmonitor/%s\n", ns, name, name)
	} else {
		fmt.Fprintf(&b, "kubectl%s delete job/%s\n", ns, name)
	}
	return b.String()
}

// q quotes s as a YAML double-quoted scalar (JSON's string syntax is
// YAML's).
func q(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
