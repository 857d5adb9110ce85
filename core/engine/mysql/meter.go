package mysql

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"syscall"
)

// The driver reads a whole row into memory before the engine sees any of
// it, and the server sends a row whatever its size: each value is held to
// max_allowed_packet, the row is not (four values of 16 MB came as one
// 64 MB row on MariaDB 10.11). So every connection to the server is
// metered: while a statement's rows are read, the bytes read since the
// last row are held to what its byte cap allows, and a row that alone
// passes it is refused as it arrives, its connection closed.

// rowSlack is what may be read past a row's values before the meter
// stops it: the packet headers and length prefixes, the driver reading
// ahead into the next row (its buffer keeps up to 256 KB) and a TLS
// record.
const rowSlack = 512 << 10

// maxRow bounds a row read with no byte cap (an export): the largest
// max_allowed_packet the server can have, which one value may fill.
const maxRow = 1 << 30

// errRowTooBig is the read a meter refused.
var errRowTooBig = errors.New("a row larger than the byte cap")

// metered is a connection to the server whose reads can be held to a
// bound. It learns the server's id for the connection from the server's
// greeting, so that the engine finds it from CONNECTION_ID().
type metered struct {
	net.Conn
	e *Engine

	mu      sync.Mutex
	left    int64 // bytes that may still be read; < 0: no bound
	tripped bool  // a read was refused
	greeted bool
	head    []byte // the greeting so far, until it names the id
	id      uint32
}

// dial is the driver's DialFunc: a metered TCP connection.
func (e *Engine) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &metered{Conn: c, e: e, left: -1}, nil
}

func (m *metered) Read(p []byte) (int, error) {
	m.mu.Lock()
	if m.left == 0 {
		m.tripped = true
		m.mu.Unlock()
		return 0, errRowTooBig
	}
	if m.left > 0 && int64(len(p)) > m.left {
		p = p[:m.left]
	}
	m.mu.Unlock()
	n, err := m.Conn.Read(p)
	m.mu.Lock()
	if m.left > 0 {
		m.left -= int64(n)
	}
	if !m.greeted {
		m.greet(p[:n])
	}
	m.mu.Unlock()
	return n, err
}

// greet reads the connection's id from the server's first packet (a
// 4-byte header; protocol version 10, the server's version ending in a
// NUL, then the id in 4 bytes) and registers the connection under it.
func (m *metered) greet(b []byte) {
	m.head = append(m.head, b...)
	if len(m.head) < 5 {
		return
	}
	body := m.head[4:]
	if body[0] != 10 || len(m.head) > 1024 {
		m.greeted, m.head = true, nil // an error packet: no id
		return
	}
	end := 1
	for end < len(body) && body[end] != 0 {
		end++
	}
	if end+5 > len(body) {
		return
	}
	m.id = binary.LittleEndian.Uint32(body[end+1:])
	m.greeted, m.head = true, nil
	m.e.meters.Store(m.id, m)
}

func (m *metered) Close() error {
	m.mu.Lock()
	id, greeted := m.id, m.greeted
	m.mu.Unlock()
	if greeted {
		m.e.meters.CompareAndDelete(id, m)
	}
	return m.Conn.Close()
}

// SyscallConn lets the driver check a pooled connection's liveness
// before it reuses it, as it does a plain TCP connection's.
func (m *metered) SyscallConn() (syscall.RawConn, error) {
	sc, ok := m.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// bound holds the reads from now on to n bytes (n < 0: none).
func (m *metered) bound(n int64) {
	m.mu.Lock()
	m.left = n
	m.mu.Unlock()
}

// refused reports whether a read was refused since the connection was
// bound, and lifts the bound.
func (m *metered) refused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tripped
	m.tripped, m.left = false, -1
	return t
}

// meter is the metered connection of the server's connection id.
func (e *Engine) meter(id int64) *metered {
	if m, ok := e.meters.Load(uint32(id)); ok {
		return m.(*metered)
	}
	return nil
}
