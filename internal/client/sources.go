package client

import "net"

// local returns the source address of the next connection's dialer:
// LocalAddrs in turn (each worker's dialer takes the next one); nil = any.
func (c *Config) local() *net.TCPAddr {
	n := len(c.LocalAddrs)
	if n == 0 {
		return nil
	}
	return c.LocalAddrs[(c.nextLocal.Add(1)-1)%uint32(n)]
}
