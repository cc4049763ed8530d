package stats

// Merge folds a run's recorders and shards into base and returns it. base
// carries what the recorders do not know (Version, Command, Target, Start,
// End, Elapsed, StoppedBy, Counts.Dispatched). Merge flushes each recorder
// first; call it once, after every worker has stopped.
func Merge(base Result, recs []*Recorder, shards []*Shard) *Result {
	r := base
	if r.Version == 0 {
		r.Version = FormatVersion
	}
	c := &r.Counts
	c.Status = map[int]int64{}
	var first *firstResponse
	var exact [NumPhases]Exact
	for _, rec := range recs {
		rec.Flush()
		for i, v := range rec.Outcomes {
			c.Outcomes[i] += v
		}
		c.Retries += rec.Retries
		c.Late += rec.Late
		c.KeepAlive += rec.KeepAlive
		c.Info += rec.Info
		c.ConnsOpened += rec.ConnsOpened
		c.ConnsClosed += rec.ConnsClosed
		c.BytesIn += rec.BytesIn
		c.BodyIn += rec.BodyIn
		c.BytesOut += rec.BytesOut
		for i := 0; i < rec.nCodes; i++ {
			c.Status[rec.codes[i]] += rec.counts[i]
		}
		c.OtherStatus += rec.other
		mergeErrors(c, rec)
		for p := range exact {
			exact[p].Merge(&rec.exact[p])
		}
		if rec.first.at != 0 && (first == nil || rec.first.at < first.at) {
			first = &rec.first
		}
		r.Samples = append(r.Samples, rec.samples...)
	}
	if first != nil {
		r.Server.Software = first.server
		r.Server.DocumentLength = first.length
		c.LengthMismatch = lengthMismatches(recs, first.length)
	}
	for p := range exact {
		if exact[p].Count == 0 {
			continue
		}
		d := &Dist{Exact: exact[p], Hist: newHist()}
		for _, s := range shards {
			if h := s.hist[p]; h != nil {
				d.Hist.Merge(h)
			}
		}
		r.Latency[p] = d
	}
	return &r
}

// lengthMismatches counts the responses whose body length is not doc.
func lengthMismatches(recs []*Recorder, doc int64) int64 {
	var n int64
	for _, rec := range recs {
		n += rec.exact[Total].Count
		for i := 0; i < rec.nLengths; i++ {
			if rec.lengths[i].length == doc {
				n -= rec.lengths[i].n
			}
		}
	}
	return n
}

// mergeErrors adds a recorder's error messages, keeping at most
// maxRunErrors distinct ones.
func mergeErrors(c *Counts, rec *Recorder) {
	c.OtherErrors += rec.errOther
	for msg, n := range rec.errs {
		if c.Errors == nil {
			c.Errors = map[string]int64{}
		}
		if _, ok := c.Errors[msg]; ok || len(c.Errors) < maxRunErrors {
			c.Errors[msg] += n
		} else {
			c.OtherErrors += n
		}
	}
}
