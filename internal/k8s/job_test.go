package k8s_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/k8s"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func job() k8s.Job {
	return k8s.Job{
		Name:        "load-1",
		Namespace:   "perf",
		Image:       "registry.example/gb:0.1.0",
		Parallelism: 4,
		StartAt:     time.Date(2026, 11, 24, 21, 0, 0, 0, time.UTC),
		CPU:         "2",
		Memory:      "512Mi",
		Args:        []string{"-k", "-c", "100", "-n", "100000", "-H", `X-Quote: "a" 'b' #c: d`, "http://web.perf.svc:8080/"},
	}
}

// TestManifestDecodesStrictly: the manifest is a batch/v1 Job that the
// Kubernetes API types accept with no unknown or duplicate field, an
// Indexed Job of N pods whose gb takes its shard from the completion
// index, starts at the given time, writes its JSON to the log, and keeps
// every gb argument byte for byte (quotes, '#', ': ').
func TestManifestDecodesStrictly(t *testing.T) {
	j := job()
	b, err := j.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var got batchv1.Job
	if err := yaml.UnmarshalStrict(b, &got); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, b)
	}
	var typo batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(strings.Replace(string(b), "completionMode", "completionMod", 1)), &typo); err == nil {
		t.Error("the strict decoder accepted an unknown field: this test could not fail")
	}
	if got.APIVersion != "batch/v1" || got.Kind != "Job" || got.Name != "load-1" || got.Namespace != "perf" {
		t.Errorf("type/name: %s %s %s/%s", got.APIVersion, got.Kind, got.Namespace, got.Name)
	}
	s := got.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || *s.Completions != 4 || s.Parallelism == nil || *s.Parallelism != 4 {
		t.Errorf("completions %v parallelism %v, want 4 and 4", s.Completions, s.Parallelism)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v, want 0", s.BackoffLimit)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
		t.Fatalf("restartPolicy %q, %d containers", pod.RestartPolicy, len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != j.Image {
		t.Errorf("image %q", c.Image)
	}
	want := append([]string{"--shard", "$(JOB_COMPLETION_INDEX)/4", "--start-at", "2026-11-24T21:00:00Z", "--json", "-", "-q"}, j.Args...)
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n got %q\nwant %q", c.Args, want)
	}
	if len(c.Env) != 1 || c.Env[0].Name != k8s.IndexVar || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("env %+v", c.Env)
	}
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "2", corev1.ResourceMemory: "512Mi"} {
		r, l := c.Resources.Requests[name], c.Resources.Limits[name]
		if r.String() != want || l.String() != want {
			t.Errorf("%s request %s limit %s, want %s", name, r.String(), l.String(), want)
		}
	}
	if sel := got.Spec.Template.Labels["app.kubernetes.io/instance"]; sel != "load-1" {
		t.Errorf("pod label instance=%q", sel)
	}
}

// TestCollect: the commands name the Job, its namespace, every index's
// log (all of it: -l alone keeps 10 lines) and gb merge of them.
func TestCollect(t *testing.T) {
	j := job()
	got := j.Collect("job.yaml")
	for _, want := range []string{
		"kubectl -n perf apply -f job.yaml\n",
		"kubectl -n perf wait --for=condition=complete job/load-1 --timeout=10m0s\n",
		"for i in $(seq 0 3); do\n",
		"kubectl -n perf logs --tail=-1 -l batch.kubernetes.io/job-name=load-1,batch.kubernetes.io/job-completion-index=$i > load-1-shard-$i.json\n",
		"gb merge -o load-1-all.json load-1-shard-*.json\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("commands lack %q:\n%s", want, got)
		}
	}
}

// TestRefused: what Kubernetes would refuse is refused here, one line each.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		edit func(*k8s.Job)
		msg  string
	}{
		{func(j *k8s.Job) { j.Name = "Load_1" }, `invalid job name "Load_1"`},
		{func(j *k8s.Job) { j.Name = strings.Repeat("a", 64) }, "invalid job name"},
		{func(j *k8s.Job) { j.Namespace = "-x" }, `invalid namespace "-x"`},
		{func(j *k8s.Job) { j.Parallelism = 0 }, "invalid parallelism 0"},
		{func(j *k8s.Job) { j.Image = "" }, "no image"},
		{func(j *k8s.Job) { j.StartAt = time.Time{} }, "no start time"},
		{func(j *k8s.Job) { j.Args = nil }, "no URL"},
	} {
		j := job()
		tc.edit(&j)
		if _, err := j.Manifest(); err == nil || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v, want one line with %q", j, err, tc.msg)
		}
	}
}

// TestManifestMetrics: with a metrics port the container exposes it as
// "metrics"; by default the pods carry Prometheus' scrape annotations;
// with ScrapePodMonitor they do not, and a PodMonitor selecting the Job's
// pods on that port follows the Job (and the cleanup deletes it).
func TestManifestMetrics(t *testing.T) {
	for _, scrape := range []string{"", k8s.ScrapeAnnotations, k8s.ScrapePodMonitor} {
		j := job()
		j.MetricsPort, j.Scrape = 9100, scrape
		b, err := j.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		docs := strings.Split(string(b), "\n---\n")
		var got batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(docs[0]), &got); err != nil {
			t.Fatalf("%q: strict decode: %v\n%s", scrape, err, b)
		}
		tpl := got.Spec.Template
		ports := tpl.Spec.Containers[0].Ports
		if len(ports) != 1 || ports[0].Name != "metrics" || ports[0].ContainerPort != 9100 || ports[0].Protocol != corev1.ProtocolTCP {
			t.Errorf("%q: ports %+v", scrape, ports)
		}
		ann := tpl.Annotations
		if scrape != k8s.ScrapePodMonitor {
			if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != "9100" || ann["prometheus.io/path"] != "/metrics" || len(docs) != 1 {
				t.Errorf("%q: annotations %v, %d documents", scrape, ann, len(docs))
			}
			continue
		}
		if len(ann) != 0 || len(docs) != 2 {
			t.Fatalf("podmonitor: annotations %v, %d documents", ann, len(docs))
		}
		var pm podMonitor
		if err := yaml.UnmarshalStrict([]byte(docs[1]), &pm); err != nil {
			t.Fatalf("podmonitor: strict decode: %v\n%s", err, docs[1])
		}
		sel := pm.Spec.Selector.MatchLabels["app.kubernetes.io/instance"]
		if pm.APIVersion != "monitoring.coreos.com/v1" || pm.Kind != "PodMonitor" || pm.Metadata.Name != "load-1" || pm.Metadata.Namespace != "perf" ||
			sel != tpl.Labels["app.kubernetes.io/instance"] || len(pm.Spec.PodMetricsEndpoints) != 1 ||
			pm.Spec.PodMetricsEndpoints[0].Port != "metrics" || pm.Spec.PodMetricsEndpoints[0].Path != "/metrics" {
			t.Errorf("podmonitor %+v", pm)
		}
		if !strings.Contains(j.Collect("job.yaml"), "delete job/load-1 podmonitor/load-1\n") {
			t.Errorf("the cleanup leaves the PodMonitor:\n%s", j.Collect("job.yaml"))
		}
	}
	j := job()
	j.MetricsPort, j.Scrape = 9100, "servicemonitor"
	if _, err := j.Manifest(); err == nil || !strings.Contains(err.Error(), "invalid scrape") {
		t.Errorf("scrape servicemonitor: %v", err)
	}
}

// podMonitor is the part of the Prometheus Operator's PodMonitor
// (monitoring.coreos.com/v1) that the manifest writes, by the CRD's field
// names, for a strict decode.
type podMonitor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		PodMetricsEndpoints []struct {
			Port string `json:"port"`
			Path string `json:"path"`
		} `json:"podMetricsEndpoints"`
	} `json:"spec"`
}
