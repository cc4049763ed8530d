package gb

// Sharded returns the Config of c's shard (c.Shard), as NewPlan runs it:
// its share of Requests, Rate.Freq and Concurrency. A share that would be
// 0 is a *ConfigError; an unsharded c is returned as is.
func (c Config) Sharded() (Config, error) {
	s := c.Shard
	if s.IsZero() {
		return c, nil
	}
	if s.Index < 0 || s.Count < 1 || s.Index >= s.Count {
		return c, configErr("Shard", "invalid {Shard} %d/%d", s.Index, s.Count)
	}
	if n := int64(c.concurrency()); n < int64(s.Count) {
		return c, configErr("Shard", "{Shard} %s: {Concurrency} %d cannot be split %d ways (each shard needs a connection)", s, n, s.Count)
	}
	if c.Requests > 0 && c.Requests < int64(s.Count) {
		return c, configErr("Shard", "{Shard} %s: {Requests} %d cannot be split %d ways (each shard needs a request)", s, c.Requests, s.Count)
	}
	if c.Rate.Freq > 0 && c.Rate.Freq < int64(s.Count) {
		return c, configErr("Shard", "{Shard} %s: {Rate} %d/%v cannot be split %d ways (each shard needs a request per period)", s, c.Rate.Freq, c.Rate.pacer().Per, s.Count)
	}
	c.Concurrency = int(s.Share(int64(c.concurrency())))
	c.Requests = s.Share(c.Requests)
	c.Rate.Freq = s.Share(c.Rate.Freq)
	return c, nil
}
