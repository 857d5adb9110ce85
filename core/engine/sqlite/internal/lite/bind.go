package lite

import (
	"strings"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Open flags for a connection that fills an in-memory database.
const (
	OpenReadWrite = sqlite3.SQLITE_OPEN_READWRITE
	OpenCreate    = sqlite3.SQLITE_OPEN_CREATE
)

// Binder binds the parameters of one prepared statement, row after row,
// for bulk inserts: text is copied into an arena in SQLite's memory that
// lives until Exec, so a row costs one copy of its bytes and no
// allocation once the arena is big enough.
type Binder struct {
	s     *Stmt
	arena uintptr
	size  int
	used  int
	old   []uintptr // arenas outgrown during the current row
}

// NewBinder binds s's parameters.
func (s *Stmt) NewBinder() *Binder { return &Binder{s: s} }

func (b *Binder) check(rc int32) error {
	if rc != sqlite3.SQLITE_OK {
		return b.s.c.err(rc)
	}
	return nil
}

// Int binds parameter i (from 1) to v.
func (b *Binder) Int(i int, v int64) error {
	return b.check(sqlite3.Xsqlite3_bind_int64(b.s.c.tls, b.s.p, int32(i), v))
}

// Float binds parameter i to v.
func (b *Binder) Float(i int, v float64) error {
	return b.check(sqlite3.Xsqlite3_bind_double(b.s.c.tls, b.s.p, int32(i), v))
}

// Null binds parameter i to NULL.
func (b *Binder) Null(i int) error {
	return b.check(sqlite3.Xsqlite3_bind_null(b.s.c.tls, b.s.p, int32(i)))
}

// Text binds parameter i to the UTF-8 text v (copied).
func (b *Binder) Text(i int, v []byte) error {
	p, err := b.put(v)
	if err != nil {
		return err
	}
	return b.check(sqlite3.Xsqlite3_bind_text(b.s.c.tls, b.s.p, int32(i), p, int32(len(v)), 0))
}

// Blob binds parameter i to the bytes v (copied).
func (b *Binder) Blob(i int, v []byte) error {
	p, err := b.put(v)
	if err != nil {
		return err
	}
	return b.check(sqlite3.Xsqlite3_bind_blob(b.s.c.tls, b.s.p, int32(i), p, int32(len(v)), 0))
}

// put copies v into the arena and returns its address there.
func (b *Binder) put(v []byte) (uintptr, error) {
	if b.used+len(v) > b.size {
		size := max(2*b.size, 64<<10, len(v)+1)
		p := libc.Xmalloc(b.s.c.tls, uint64(size))
		if p == 0 {
			return 0, &Error{Code: CodeNoMem, Ext: CodeNoMem, Msg: "out of memory"}
		}
		if b.arena != 0 {
			b.old = append(b.old, b.arena)
		}
		b.arena, b.size, b.used = p, size, 0
	}
	p := b.arena + uintptr(b.used)
	copy(unsafe.Slice((*byte)(cptr(p)), len(v)), v)
	b.used += len(v)
	return p, nil
}

// Exec runs the statement with the bound values, expecting no row, and
// readies it for the next row.
func (b *Binder) Exec() error {
	more, err := b.s.Step()
	sqlite3.Xsqlite3_reset(b.s.c.tls, b.s.p)
	b.used = 0
	for _, p := range b.old {
		libc.Xfree(b.s.c.tls, p)
	}
	b.old = b.old[:0]
	if err == nil && more {
		err = &Error{Code: sqlite3.SQLITE_MISUSE, Ext: sqlite3.SQLITE_MISUSE, Msg: "insert returned a row"}
	}
	return err
}

// Close frees the arena; the statement is the caller's to finalize.
func (b *Binder) Close() {
	sqlite3.Xsqlite3_clear_bindings(b.s.c.tls, b.s.p)
	for _, p := range append(b.old, b.arena) {
		if p != 0 {
			libc.Xfree(b.s.c.tls, p)
		}
	}
	b.arena, b.old, b.size, b.used = 0, nil, 0, 0
}

// SetSizeLimit sets the largest size in bytes the connection's main
// database may grow to (SQLITE_FCNTL_SIZE_LIMIT; an in-memory database
// is 1 GiB by default) and returns the limit in force.
func (c *Conn) SetSizeLimit(n int64) int64 {
	z, _ := libc.CString("main")
	defer libc.Xfree(c.tls, z)
	p := c.tls.Alloc(8)
	defer c.tls.Free(8)
	*(*int64)(cptr(p)) = n
	sqlite3.Xsqlite3_file_control(c.tls, c.db, z, sqlite3.SQLITE_FCNTL_SIZE_LIMIT, p)
	return *(*int64)(cptr(p))
}

// memStore is the store of the main database when it is a memdb one, nil
// otherwise. The layout of the memdb structures is modernc's translation
// of SQLite's memdb.c (TMemFile, TMemStore): a change there fails to
// compile, and TestImageStoresWhatInsertStores checks the effect.
func (c *Conn) memStore() *sqlite3.TMemStore {
	z, _ := libc.CString("main")
	defer libc.Xfree(c.tls, z)
	p := c.tls.Alloc(8)
	defer c.tls.Free(8)
	*(*uintptr)(cptr(p)) = 0
	if sqlite3.Xsqlite3_file_control(c.tls, c.db, z, sqlite3.SQLITE_FCNTL_VFSNAME, p) != sqlite3.SQLITE_OK {
		return nil
	}
	name := *(*uintptr)(cptr(p))
	isMemdb := strings.HasPrefix(libc.GoString(name), "memdb(")
	sqlite3.Xsqlite3_free(c.tls, name)
	if !isMemdb {
		return nil
	}
	*(*uintptr)(cptr(p)) = 0
	if sqlite3.Xsqlite3_file_control(c.tls, c.db, z, sqlite3.SQLITE_FCNTL_FILE_POINTER, p) != sqlite3.SQLITE_OK {
		return nil
	}
	f := *(*uintptr)(cptr(p))
	if f == 0 {
		return nil
	}
	return (*sqlite3.TMemStore)(cptr((*sqlite3.TMemFile)(cptr(f)).FpStore))
}
