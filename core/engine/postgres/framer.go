package postgres

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// errorMaxBytes bounds the server's error or notice read under a byte
// cap: it names the text it could not read (a cast's, for one), which may
// be far longer than the rows the cap allows, and is read whole, then
// clipped (sqlError).
const errorMaxBytes = 16 << 20

// framer reads what the server sends on one connection, below pgproto3's
// buffers, and follows its messages (a type byte, a length, a body) to
// bound them by kind: pgproto3 holds every message to one length, read
// before its type is known to the caller, so that under a byte cap a
// server's error longer than a row may be was taken for a row past the
// cap. A message the framer refuses never reaches pgproto3: the bytes
// before its header are passed on, then the error (the connection is
// lost, as pgconn closes it).
type framer struct {
	r      io.Reader
	rowMax atomic.Int64 // the longest row body (DataRow) read; 0: no bound of the framer's

	// Only the reader touches these.
	hdr  [5]byte // the header being read
	nh   int     // how much of it
	left int     // body bytes still to pass of the current message
	err  error   // the refusal, returned from then on
}

// Read reads from the connection, passing on the bytes before a message
// it refuses.
func (f *framer) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.r.Read(p)
	if k, refused := f.scan(p[:n]); refused != nil {
		f.err = refused
		return k, refused
	}
	return n, err
}

// scan follows the messages in b, the next bytes read, and returns where
// a refused message's header starts in b (0 when it started in an earlier
// read) and why.
func (f *framer) scan(b []byte) (int, error) {
	for i := 0; i < len(b); {
		if f.left > 0 {
			k := min(f.left, len(b)-i)
			f.left -= k
			i += k
			continue
		}
		start := i - f.nh
		k := copy(f.hdr[f.nh:], b[i:])
		f.nh += k
		i += k
		if f.nh < len(f.hdr) {
			break
		}
		f.nh = 0
		f.left = max(int(binary.BigEndian.Uint32(f.hdr[1:]))-4, 0)
		if err := f.refuse(f.hdr[0], f.left); err != nil {
			return max(start, 0), err
		}
	}
	return 0, nil
}

// refuse is why a message of type typ and body length n is not read, nil
// when it is.
func (f *framer) refuse(typ byte, n int) error {
	rowMax := int(f.rowMax.Load())
	if rowMax <= 0 {
		return nil
	}
	switch typ {
	case 'D':
		if n > rowMax {
			return &pgproto3.ExceededMaxBodyLenErr{MaxExpectedBodyLen: rowMax, ActualBodyLen: n}
		}
	case 'E', 'N':
		if n > errorMaxBytes {
			return &query.LimitError{Kind: "memory", Msg: fmt.Sprintf("query stopped: the server's error message is larger than %s", format.Bytes(errorMaxBytes)), Hint: "the server's error names the value it could not read: compute on shorter values"}
		}
	}
	return nil
}

// bound sets the longest message c reads (pgproto3's bound on every
// message), and with rows > 0 the longest row: a longer one is refused as
// it arrives, while the server's error or notice is read up to
// errorMaxBytes.
func bound(c *pgconn.PgConn, all, rows int) {
	c.Frontend().SetMaxBodyLen(all)
	if f := sessionOf(c).framer; f != nil {
		f.rowMax.Store(int64(rows))
	}
}
