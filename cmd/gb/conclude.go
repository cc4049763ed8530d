package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// base is the part of the result that the engine does not know.
func (p *plan) base() stats.Result {
	o, t := p.o, p.target
	return stats.Result{
		Version:   stats.FormatVersion,
		GBVersion: version,
		Command:   redactArgs(p.args),
		Target: stats.Target{
			URL:            t.url.Redacted(),
			Method:         p.method,
			Host:           t.host,
			Port:           t.port,
			Path:           t.path,
			Proxy:          o.proxy,
			Concurrency:    o.concurrency,
			Requests:       p.load.Requests,
			TimeLimit:      o.timeLimit,
			Timeout:        o.timeout,
			KeepAlive:      o.keepAlive,
			BodyLength:     p.bodyLen,
			VariableLength: o.variableLength,
			TLSVerify:      t.tls && !o.insecure,
			Engine:         "h1",
			Rate:           rateOf(o),
			Pipeline:       o.pipeline,
		},
	}
}

// conclude checks, prints and writes the result, and returns the exit code.
func (p *plan) conclude(res *stats.Result, stdout, stderr io.Writer) int {
	if info, ok := p.client.TLSSession(); ok {
		res.Server.TLSProtocol, res.Server.TLSCipher = info.Version, info.Cipher
		res.Server.TLSTempKey, res.Server.TLSServerName = info.TempKey, info.ServerName
		res.Server.TLSKeyBits = info.KeyBits
	}
	for _, err := range res.Check() {
		fmt.Fprintf(stderr, "gb: BUG: accounting invariant broken: %v (please report this)\n", err)
	}
	if res.StoppedBy == stats.StopError {
		fmt.Fprintf(stderr, "\nTest aborted: %s%s\n\n", res.StopError, hint(res.StopError))
	}
	ro := report.Options{NoPercentiles: p.o.noPercentiles, NoConfidence: p.o.noConfidence,
		TableAttrs: p.o.tableAttrs, RowAttrs: p.o.rowAttrs, CellAttrs: p.o.cellAttrs}
	if p.o.html && res.StoppedBy != stats.StopSignal {
		_ = report.HTML(stdout, res, ro)
	} else {
		_ = report.Text(stdout, res, ro)
	}
	if p.o.verbosity >= 2 {
		gcSummary(stderr, res.Elapsed)
	}
	code := exitOK
	if err := p.writeFiles(res); err != nil {
		fmt.Fprintf(stderr, "gb: %v\n", err)
		code = exitFailure
	}
	if res.StoppedBy == stats.StopSignal || res.StoppedBy == stats.StopError {
		code = exitFailure
	}
	return code
}

// writeFiles writes the -e, -g and --json files (ab writes -e and -g only
// when a request completed).
func (p *plan) writeFiles(res *stats.Result) error {
	type file struct {
		flag, path string
		write      func(io.Writer) error
	}
	files := []file{{"--json", p.o.jsonFile, func(w io.Writer) error { return report.JSON(w, res) }}}
	if res.Complete() > 0 {
		files = append(files,
			file{"-e", p.o.csvFile, func(w io.Writer) error { return report.CSV(w, res) }},
			file{"-g", p.o.gnuplotFile, func(w io.Writer) error { return report.Gnuplot(w, res, nil) }})
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := outfile.Write(f.path, 0o600, f.write); err != nil {
			return fmt.Errorf("cannot write %s %s: %v", f.flag, f.path, err)
		}
	}
	return nil
}

// rateOf returns -R in requests per second, 0 in a closed loop.
func rateOf(o *options) float64 {
	if o.rate.Freq == 0 {
		return 0
	}
	return o.rate.Rate()
}

// hint suggests the option that fixes a certificate failure.
func hint(stopErr string) string {
	if strings.Contains(stopErr, "x509:") || strings.Contains(stopErr, "certificate") {
		return " (use --cacert FILE to trust its CA, or --insecure)"
	}
	return ""
}
