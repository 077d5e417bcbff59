package main

import (
	"net"
	"sync/atomic"
	"time"
)

// The responders' connections (the echo's and the workers') count their
// reads and writes, so that a phase reports how many a message its
// responder made: whether it writes its answers one by one or several
// together. The process's system calls (kernel) count everyone's: the
// server's, the requesters', the file store's.

// respIO counts the reads and writes of the responders' connections.
var respIO struct{ reads, writes atomic.Int64 }

// countingDialer dials TCP as nats.go does and counts the connection's
// reads and writes in respIO.
type countingDialer struct{ d net.Dialer }

func (c *countingDialer) Dial(network, address string) (net.Conn, error) {
	conn, err := c.d.Dial(network, address)
	if err != nil {
		return nil, err
	}
	return countingConn{conn}, nil
}

// newCountingDialer returns a dialer with nats.go's default timeout.
func newCountingDialer() *countingDialer {
	return &countingDialer{d: net.Dialer{Timeout: 2 * time.Second}}
}

type countingConn struct{ net.Conn }

func (c countingConn) Read(b []byte) (int, error) {
	respIO.reads.Add(1)
	return c.Conn.Read(b)
}

func (c countingConn) Write(b []byte) (int, error) {
	respIO.writes.Add(1)
	return c.Conn.Write(b)
}
