package main

import (
	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
)

// setURLs keeps the command line's URLs after the first (each one more
// target) and returns the first; "" when there is none (--targets alone).
func (o *options) setURLs(urls []string) string {
	if len(urls) == 0 {
		return ""
	}
	o.moreURLs = urls[1:]
	return urls[0]
}

// addTargets adds the targets after the first URL to cfg: the other URLs
// of the command line, each with the method and body of the first
// (-m, -i, -p, -u), then --targets' file's, each with its own. -H, -C,
// -A, -T and the rest apply to all of them. With --lazy, the file is
// read as the load goes instead (Config.Targeter), and is the only source
// of targets.
func (o *options) addTargets(cfg *gb.Config) error {
	if o.lazy {
		return o.lazyTargets(cfg)
	}
	for _, u := range o.moreURLs {
		cfg.Targets = append(cfg.Targets, gb.Target{URL: u, Method: cfg.Method, Body: cfg.Body})
	}
	if o.targetsFile == "" {
		return nil
	}
	ts, err := gb.ReadTargetsFormat(o.targetsFile, o.targetsFormat)
	if err != nil {
		return err
	}
	cfg.Targets = append(cfg.Targets, ts...)
	return nil
}

// lazyTargets makes --targets' file (or stream) cfg's Targeter.
func (o *options) lazyTargets(cfg *gb.Config) error {
	if o.targetsFile == "" || cfg.URL != "" || len(o.moreURLs) > 0 {
		return getopt.Errorf(false, "--lazy reads its targets from --targets alone (no URL)")
	}
	tr, err := gb.OpenTargets(o.targetsFile, o.targetsFormat)
	if err != nil {
		return err
	}
	cfg.Targeter = func(t *gb.Target) error {
		return tr.Next(t)
	}
	return nil
}
