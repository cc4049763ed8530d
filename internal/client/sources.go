package client

import "net"

// local returns the source address of the next connection's dialer:
// LocalAddrs in turn (each worker's dialer takes the next one), else
// LocalAddr; nil = any.
func (c *Config) local() *net.TCPAddr {
	if n := len(c.LocalAddrs); n > 0 {
		return c.LocalAddrs[(c.nextLocal.Add(1)-1)%uint32(n)]
	}
	a, _ := c.LocalAddr.(*net.TCPAddr)
	return a
}
