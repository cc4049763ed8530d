package main

import "github.com/gb-bench/gb"

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
// -A, -T and the rest apply to all of them.
func (o *options) addTargets(cfg *gb.Config) error {
	for _, u := range o.moreURLs {
		cfg.Targets = append(cfg.Targets, gb.Target{URL: u, Method: cfg.Method, Body: cfg.Body})
	}
	if o.targetsFile == "" {
		return nil
	}
	ts, err := gb.ReadTargets(o.targetsFile)
	if err != nil {
		return err
	}
	cfg.Targets = append(cfg.Targets, ts...)
	return nil
}
