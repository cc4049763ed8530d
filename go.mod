module github.com/gb-bench/gb

go 1.26.8

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)

require golang.org/x/text v0.14.0 // indirect
