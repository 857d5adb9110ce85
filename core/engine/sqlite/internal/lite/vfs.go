package lite

import (
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// ReadOnlyVFS is the name of a VFS that wraps the platform's default one
// so that it cannot create, write or delete a file: the database, its
// rollback journal and its -wal file are opened read-only and never
// created, any other file (temporary databases and journals, which a
// connection with temp_store=MEMORY never needs) is refused, and xDelete
// always fails. Name it with the "vfs" URI parameter. The -shm file does
// not pass through xOpen: the "readonly_shm=1" URI parameter keeps SQLite
// from creating or writing it.
const ReadOnlyVFS = "tablewise-ro"

var (
	vfsOnce sync.Once
	vfsErr  error
)

// RegisterReadOnlyVFS registers ReadOnlyVFS once per process.
func RegisterReadOnlyVFS() error {
	vfsOnce.Do(func() {
		tls := libc.NewTLS()
		defer tls.Close()
		base := sqlite3.Xsqlite3_vfs_find(tls, 0)
		if base == 0 {
			vfsErr = &Error{Code: sqlite3.SQLITE_ERROR, Msg: "no default VFS"}
			return
		}
		size := unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})
		p := libc.Xcalloc(tls, 1, uint64(size)) // lives as long as the process
		name, err := libc.CString(ReadOnlyVFS)
		if p == 0 || err != nil {
			vfsErr = &Error{Code: sqlite3.SQLITE_NOMEM, Msg: "out of memory"}
			return
		}
		v := (*sqlite3.Tsqlite3_vfs)(cptr(p))
		*v = *(*sqlite3.Tsqlite3_vfs)(cptr(base))
		v.FpNext = 0
		v.FzName = name
		v.FpAppData = base
		v.FxOpen = cFuncPointer(roOpen)
		v.FxDelete = cFuncPointer(roDelete)
		if rc := sqlite3.Xsqlite3_vfs_register(tls, p, 0); rc != sqlite3.SQLITE_OK {
			vfsErr = &Error{Code: int(rc), Msg: libc.GoString(sqlite3.Xsqlite3_errstr(tls, rc))}
		}
	})
	return vfsErr
}

// File types SQLite may ask ReadOnlyVFS to open, and the flags it strips.
const (
	openTypes    = 0x0FFF00
	readOnlyOK   = sqlite3.SQLITE_OPEN_MAIN_DB | sqlite3.SQLITE_OPEN_MAIN_JOURNAL | sqlite3.SQLITE_OPEN_WAL
	writingFlags = sqlite3.SQLITE_OPEN_READWRITE | sqlite3.SQLITE_OPEN_CREATE | sqlite3.SQLITE_OPEN_EXCLUSIVE | sqlite3.SQLITE_OPEN_DELETEONCLOSE
)

func roOpen(tls *libc.TLS, pVfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	if zName == 0 || flags&openTypes&^readOnlyOK != 0 {
		return sqlite3.SQLITE_CANTOPEN
	}
	flags = flags&^writingFlags | sqlite3.SQLITE_OPEN_READONLY
	base := (*sqlite3.Tsqlite3_vfs)(cptr(pVfs)).FpAppData
	xOpen := (*sqlite3.Tsqlite3_vfs)(cptr(base)).FxOpen
	return (*(*func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{xOpen})))(tls, base, zName, pFile, flags, pOutFlags)
}

func roDelete(_ *libc.TLS, _, _ uintptr, _ int32) int32 {
	return sqlite3.SQLITE_IOERR_DELETE
}
