// Package lite is a thin layer over SQLite's C API as modernc.org/sqlite
// exposes it: the raw handle of a pooled connection, prepare with its tail,
// step, typed column access and interrupt. It holds no policy; core/guard
// decides what may run and core/query runs it.
package lite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Storage classes returned by Stmt.Type.
const (
	Integer = sqlite3.SQLITE_INTEGER
	Float   = sqlite3.SQLITE_FLOAT
	Text    = sqlite3.SQLITE_TEXT
	Blob    = sqlite3.SQLITE_BLOB
	Null    = sqlite3.SQLITE_NULL
)

// Result codes callers branch on.
const (
	CodeAuth      = sqlite3.SQLITE_AUTH
	CodeInterrupt = sqlite3.SQLITE_INTERRUPT
	CodeNoMem     = sqlite3.SQLITE_NOMEM
	CodeTooBig    = sqlite3.SQLITE_TOOBIG
	CodeReadOnly  = sqlite3.SQLITE_READONLY
	CodeFull      = sqlite3.SQLITE_FULL
	CodeCantOpen  = sqlite3.SQLITE_CANTOPEN

	ExtReadOnlyRollback = sqlite3.SQLITE_READONLY_ROLLBACK
	ExtReadOnlyRecovery = sqlite3.SQLITE_READONLY_RECOVERY
)

// Error is an error SQLite reported, with its primary and extended result
// codes.
type Error struct {
	Code int    // primary result code (extended code & 0xff)
	Ext  int    // extended result code
	Msg  string // sqlite3_errmsg at the time of the error
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Msg, e.Code) }

// Conn is the raw handle of one physical connection plus a TLS of its own.
// It is used by one goroutine at a time; Interrupt is the exception.
type Conn struct {
	tls *libc.TLS
	db  uintptr

	// halts counts the InterruptAfters of c that have fired and are not
	// yet stopped; while it is above zero no statement of c steps.
	halts atomic.Int32
}

// Open opens a connection to uri (a "file:" URI) with the given
// sqlite3_open_v2 flags. The connection is used by one goroutine at a time,
// except for Interrupt.
func Open(uri string, flags int) (*Conn, error) {
	tls := libc.NewTLS()
	z, err := libc.CString(uri)
	if err != nil {
		tls.Close()
		return nil, err
	}
	defer libc.Xfree(tls, z)
	p := tls.Alloc(8)
	defer tls.Free(8)
	*(*uintptr)(cptr(p)) = 0
	rc := sqlite3.Xsqlite3_open_v2(tls, z, p, int32(flags), 0)
	c := &Conn{tls: tls, db: *(*uintptr)(cptr(p))}
	if rc != sqlite3.SQLITE_OK {
		var err error = &Error{Code: int(rc) & 0xff, Ext: int(rc), Msg: libc.GoString(sqlite3.Xsqlite3_errstr(tls, rc))}
		if c.db != 0 {
			err = c.err(rc)
		}
		c.Close()
		return nil, err
	}
	sqlite3.Xsqlite3_extended_result_codes(tls, c.db, 1)
	return c, nil
}

// Open flags.
const (
	OpenReadOnly = sqlite3.SQLITE_OPEN_READONLY
	OpenURI      = sqlite3.SQLITE_OPEN_URI
	OpenNoMutex  = sqlite3.SQLITE_OPEN_NOMUTEX
	// OpenMemory, with OpenReadWrite and OpenCreate (bind.go), opens a
	// private in-memory database of tablewise's own (a scratch copy of a
	// schema), never a file.
	OpenMemory = sqlite3.SQLITE_OPEN_MEMORY
)

// Handle returns the sqlite3* pointer, for use as a map key.
func (c *Conn) Handle() uintptr { return c.db }

// Close closes the connection, finalizing nothing: every statement must
// have been finalized.
func (c *Conn) Close() {
	if c.db != 0 {
		unregisterAuthorizer(c.db)
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	if c.tls != nil {
		c.tls.Close()
		c.tls = nil
	}
}

// Interrupt asks SQLite to abort the statement running on c. It is safe to
// call from any goroutine while another uses c.
func (c *Conn) Interrupt() {
	tls := libc.NewTLS()
	sqlite3.Xsqlite3_interrupt(tls, c.db)
	tls.Close()
}

// Limit sets a run-time limit (sqlite3_limit) and returns the previous value;
// a negative value only reads it.
func (c *Conn) Limit(id, value int) int {
	return int(sqlite3.Xsqlite3_limit(c.tls, c.db, int32(id), int32(value)))
}

func (c *Conn) err(rc int32) error {
	msg := libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))
	if msg == "" {
		msg = libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	}
	return &Error{Code: int(rc) & 0xff, Ext: int(rc), Msg: msg}
}

// Prepare compiles the first statement of sql. It returns a nil *Stmt when
// the text up to the tail holds no statement (only whitespace, comments or
// semicolons), and the tail: the text after the compiled statement.
func (c *Conn) Prepare(sql string) (st *Stmt, tail string, err error) {
	if len(sql) == 0 {
		return nil, "", nil
	}
	z, err := libc.CString(sql)
	if err != nil {
		return nil, "", err
	}
	defer libc.Xfree(c.tls, z)
	out := c.tls.Alloc(16)
	defer c.tls.Free(16)
	pStmt, pTail := out, out+8
	*(*uintptr)(cptr(pStmt)) = 0
	*(*uintptr)(cptr(pTail)) = 0
	rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, z, int32(len(sql)), pStmt, pTail)
	p := *(*uintptr)(cptr(pStmt))
	t := *(*uintptr)(cptr(pTail))
	if t >= z && t <= z+uintptr(len(sql)) {
		tail = sql[t-z:]
	}
	if rc != sqlite3.SQLITE_OK {
		if p != 0 {
			sqlite3.Xsqlite3_finalize(c.tls, p)
		}
		return nil, tail, c.err(rc)
	}
	if p == 0 {
		return nil, tail, nil
	}
	return &Stmt{c: c, p: p}, tail, nil
}

// Stmt is a prepared statement.
type Stmt struct {
	c *Conn
	p uintptr
}

// Finalize releases the statement. It is safe to call twice.
func (s *Stmt) Finalize() {
	if s.p != 0 {
		sqlite3.Xsqlite3_finalize(s.c.tls, s.p)
		s.p = 0
	}
}

// Readonly reports sqlite3_stmt_readonly.
func (s *Stmt) Readonly() bool { return sqlite3.Xsqlite3_stmt_readonly(s.c.tls, s.p) != 0 }

// ColumnCount is the number of result columns.
func (s *Stmt) ColumnCount() int { return int(sqlite3.Xsqlite3_column_count(s.c.tls, s.p)) }

// ColumnName is the name of result column i.
func (s *Stmt) ColumnName(i int) string {
	return libc.GoString(sqlite3.Xsqlite3_column_name(s.c.tls, s.p, int32(i)))
}

// DeclType is the declared type of result column i, "" for expressions.
func (s *Stmt) DeclType(i int) string {
	return libc.GoString(sqlite3.Xsqlite3_column_decltype(s.c.tls, s.p, int32(i)))
}

// Step advances to the next row. It returns false, nil when the statement is
// done.
func (s *Stmt) Step() (bool, error) {
	if s.c.halts.Load() > 0 {
		// An interrupt reaches only a running statement: one that starts
		// after the deadline would answer.
		return false, &Error{Code: CodeInterrupt, Ext: CodeInterrupt, Msg: "interrupted"}
	}
	switch rc := sqlite3.Xsqlite3_step(s.c.tls, s.p); rc {
	case sqlite3.SQLITE_ROW:
		return true, nil
	case sqlite3.SQLITE_DONE:
		return false, nil
	default:
		// With sqlite3_prepare_v2 step returns the specific error code.
		return false, s.c.err(rc)
	}
}

// value is column i of the current row, in place: the sqlite3_value
// (Mem) in the statement's result row that the sqlite3_column_* functions
// read, found as they find it. Those functions also take the connection's
// mutex and, after the read, turn a failed allocation into the statement's
// error; a connection is used by one goroutine at a time, and the readers
// below read through value only what needs no conversion and so no
// allocation, answering as the functions would without two calls per cell
// of every row. It is nil when there is no row or no column i, which the
// column functions answer (recording SQLITE_RANGE).
func (s *Stmt) value(i int) *sqlite3.TMem {
	v := (*sqlite3.TVdbe)(cptr(s.p))
	if v.FpResultRow == 0 || uint(i) >= uint(v.FnResColumn) {
		return nil
	}
	return (*sqlite3.TMem)(cptr(v.FpResultRow + uintptr(i)*unsafe.Sizeof(sqlite3.TMem{})))
}

// MayRunLong reports whether the statement's program holds an
// instruction that one step can spend seconds in, where no interrupt
// reaches: a sorter's (it sorts every row in one instruction, and frees
// them one by one when the statement ends) or a virtual table's filter
// (json_each parses its whole document in it, an FTS5 prefix query merges
// every matching term's list).
func (s *Stmt) MayRunLong() bool {
	v := (*sqlite3.TVdbe)(cptr(s.p))
	if v.FaOp == 0 || v.FnOp <= 0 {
		return false
	}
	for _, op := range unsafe.Slice((*sqlite3.TVdbeOp)(cptr(v.FaOp)), v.FnOp) {
		switch op.Fopcode {
		case sqlite3.OP_SorterOpen, sqlite3.OP_VFilter:
			return true
		}
	}
	return false
}

// Type is the storage class of column i in the current row.
func (s *Stmt) Type(i int) int {
	if m := s.value(i); m != nil {
		return int(sqlite3.Xsqlite3_value_type(s.c.tls, uintptr(unsafe.Pointer(m))))
	}
	return int(sqlite3.Xsqlite3_column_type(s.c.tls, s.p, int32(i)))
}

// Int64 reads column i as an integer.
func (s *Stmt) Int64(i int) int64 {
	if m := s.value(i); m != nil && m.Fflags&(sqlite3.MEM_Int|sqlite3.MEM_IntReal) != 0 {
		return *(*int64)(unsafe.Pointer(&m.Fu))
	}
	return sqlite3.Xsqlite3_column_int64(s.c.tls, s.p, int32(i))
}

// Float64 reads column i as a float.
func (s *Stmt) Float64(i int) float64 {
	if m := s.value(i); m != nil {
		switch {
		case m.Fflags&sqlite3.MEM_Real != 0:
			return m.Fu.Fr
		case m.Fflags&(sqlite3.MEM_Int|sqlite3.MEM_IntReal) != 0:
			return float64(*(*int64)(unsafe.Pointer(&m.Fu)))
		}
	}
	return sqlite3.Xsqlite3_column_double(s.c.tls, s.p, int32(i))
}

// RawText returns column i as UTF-8 bytes owned by SQLite: valid only until
// the next Step, Finalize or type conversion of that column. Copy to keep.
func (s *Stmt) RawText(i int) []byte {
	// Text already held as UTF-8 is read where it is (sqlite3_column_text
	// would add a terminating NUL first, which may copy it); numbers, blobs
	// and UTF-16 are left to sqlite3_column_text, which converts them.
	// An ephemeral copy of another register's text that is not
	// terminated is copied by sqlite3_column_text, which then owns it: it
	// is left to that function too.
	if m := s.value(i); m != nil && m.Fflags&(sqlite3.MEM_Str|sqlite3.MEM_Null|sqlite3.MEM_Zero) == sqlite3.MEM_Str && m.Fenc == sqlite3.SQLITE_UTF8 &&
		m.Fflags&(sqlite3.MEM_Ephem|sqlite3.MEM_Term) != sqlite3.MEM_Ephem {
		return rawBytes(m.Fz, m.Fn)
	}
	return s.raw(sqlite3.Xsqlite3_column_text(s.c.tls, s.p, int32(i)), i)
}

// RawBlob is like RawText for a blob.
func (s *Stmt) RawBlob(i int) []byte {
	// A zeroblob not yet expanded, and text, are left to
	// sqlite3_column_blob.
	if m := s.value(i); m != nil && m.Fflags&(sqlite3.MEM_Blob|sqlite3.MEM_Zero) == sqlite3.MEM_Blob {
		return rawBytes(m.Fz, m.Fn)
	}
	return s.raw(sqlite3.Xsqlite3_column_blob(s.c.tls, s.p, int32(i)), i)
}

// raw is the value of column i at p, its length read after p (the call
// that gave p may have converted it): nil when empty.
func (s *Stmt) raw(p uintptr, i int) []byte {
	return rawBytes(p, sqlite3.Xsqlite3_column_bytes(s.c.tls, s.p, int32(i)))
}

// rawBytes is the n bytes at p in SQLite's memory: nil when empty.
func rawBytes(p uintptr, n int32) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(cptr(p)), n)
}

// Text reads column i as a Go string (a copy).
func (s *Stmt) Text(i int) string { return string(s.RawText(i)) }

// Blob reads column i as a byte slice (a copy, never nil for a blob).
func (s *Stmt) Blob(i int) []byte { return append([]byte{}, s.RawBlob(i)...) }

// Value reads column i as nil, int64, float64, string or []byte.
func (s *Stmt) Value(i int) any {
	switch s.Type(i) {
	case Integer:
		return s.Int64(i)
	case Float:
		return s.Float64(i)
	case Text:
		return s.Text(i)
	case Blob:
		return s.Blob(i)
	default:
		return nil
	}
}

// DBConfig sets a boolean sqlite3_db_config option and reports whether it
// took effect.
func (c *Conn) DBConfig(op int, on bool) bool {
	v := int32(0)
	if on {
		v = 1
	}
	ok, now := c.dbConfig(op, v)
	return ok && now == v
}

// dbConfig calls sqlite3_db_config for the boolean option op with v (1
// on, 0 off, -1 only read) and reports whether the call succeeded and the
// option's value after it (-1 when SQLite did not say).
func (c *Conn) dbConfig(op int, v int32) (ok bool, now int32) {
	out := c.tls.Alloc(8)
	defer c.tls.Free(8)
	*(*int32)(cptr(out)) = -1
	va := libc.NewVaList(v, out)
	defer libc.Xfree(c.tls, va)
	rc := sqlite3.Xsqlite3_db_config(c.tls, c.db, int32(op), va)
	return rc == sqlite3.SQLITE_OK, *(*int32)(cptr(out))
}

// db_config options.
const (
	ConfigDefensive          = sqlite3.SQLITE_DBCONFIG_DEFENSIVE
	ConfigTrustedSchema      = sqlite3.SQLITE_DBCONFIG_TRUSTED_SCHEMA
	ConfigDQSDML             = sqlite3.SQLITE_DBCONFIG_DQS_DML
	ConfigDQSDDL             = sqlite3.SQLITE_DBCONFIG_DQS_DDL
	ConfigLoadExtension      = sqlite3.SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION
	ConfigEnableTrigger      = sqlite3.SQLITE_DBCONFIG_ENABLE_TRIGGER
	ConfigEnableAttachCreate = sqlite3.SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE
	ConfigNoCkptOnClose      = sqlite3.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE
)

// Limit ids for Conn.Limit.
const (
	LimitLength            = sqlite3.SQLITE_LIMIT_LENGTH
	LimitSQLLength         = sqlite3.SQLITE_LIMIT_SQL_LENGTH
	LimitColumn            = sqlite3.SQLITE_LIMIT_COLUMN
	LimitExprDepth         = sqlite3.SQLITE_LIMIT_EXPR_DEPTH
	LimitCompoundSelect    = sqlite3.SQLITE_LIMIT_COMPOUND_SELECT
	LimitVDBEOp            = sqlite3.SQLITE_LIMIT_VDBE_OP
	LimitFunctionArg       = sqlite3.SQLITE_LIMIT_FUNCTION_ARG
	LimitAttached          = sqlite3.SQLITE_LIMIT_ATTACHED
	LimitLikePatternLength = sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH
	LimitVariableNumber    = sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER
	LimitTriggerDepth      = sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH
	LimitWorkerThreads     = sqlite3.SQLITE_LIMIT_WORKER_THREADS
)

// Authorizer decides each action SQLite presents while compiling a
// statement; it returns AuthOK, AuthDeny or AuthIgnore. The strings are
// empty where SQLite passes NULL.
type Authorizer func(action int, arg1, arg2, dbName, trigger string) int

// Authorizer results and the actions core/guard names.
const (
	AuthOK     = sqlite3.SQLITE_OK
	AuthDeny   = sqlite3.SQLITE_DENY
	AuthIgnore = sqlite3.SQLITE_IGNORE

	ActionSelect    = sqlite3.SQLITE_SELECT
	ActionRead      = sqlite3.SQLITE_READ
	ActionFunction  = sqlite3.SQLITE_FUNCTION
	ActionRecursive = sqlite3.SQLITE_RECURSIVE
	ActionPragma    = sqlite3.SQLITE_PRAGMA
	ActionAttach    = sqlite3.SQLITE_ATTACH
	ActionDetach    = sqlite3.SQLITE_DETACH
)

var authorizers sync.Map // db handle -> Authorizer

// SetAuthorizer installs fn as the connection's authorizer. The C side is
// fail-closed: if SQLite asks and no Go function is registered, it denies.
func (c *Conn) SetAuthorizer(fn Authorizer) error {
	authorizers.Store(c.db, fn)
	if rc := sqlite3.Xsqlite3_set_authorizer(c.tls, c.db, cFuncPointer(authTrampoline), c.db); rc != sqlite3.SQLITE_OK {
		authorizers.Delete(c.db)
		return c.err(rc)
	}
	return nil
}

func unregisterAuthorizer(db uintptr) { authorizers.Delete(db) }

func authTrampoline(_ *libc.TLS, db uintptr, action int32, z1, z2, z3, z4 uintptr) int32 {
	v, ok := authorizers.Load(db)
	if !ok {
		return sqlite3.SQLITE_DENY
	}
	return int32(v.(Authorizer)(int(action), libc.GoString(z1), libc.GoString(z2), libc.GoString(z3), libc.GoString(z4)))
}

// stepGranularity is how many virtual-machine instructions run between
// two calls of a step budget's progress handler.
const stepGranularity = 1000

// steps holds each connection's step budget, by db handle.
var steps sync.Map // db handle -> *stepBudget

type stepBudget struct {
	limit, used int64
	hit         bool
}

// LimitSteps interrupts the statements c runs once they have executed
// about n virtual-machine instructions in all (to stepGranularity): a
// budget of work that, unlike a deadline, does not depend on how busy the
// machine is, so what a bounded read finds is the same on every run. stop
// removes the budget and reports whether it was spent and how many
// instructions ran.
func (c *Conn) LimitSteps(n int64) (stop func() (hit bool, used int64)) {
	b := &stepBudget{limit: n}
	steps.Store(c.db, b)
	sqlite3.Xsqlite3_progress_handler(c.tls, c.db, stepGranularity, cFuncPointer(progressTrampoline), c.db)
	var once sync.Once
	return func() (bool, int64) {
		once.Do(func() {
			sqlite3.Xsqlite3_progress_handler(c.tls, c.db, 0, 0, 0)
			steps.Delete(c.db)
		})
		return b.hit, b.used
	}
}

func progressTrampoline(_ *libc.TLS, db uintptr) int32 {
	v, ok := steps.Load(db)
	if !ok {
		return 0
	}
	b := v.(*stepBudget)
	b.used += stepGranularity
	if b.used >= b.limit {
		b.hit = true
		return 1
	}
	return 0
}

// cFuncPointer turns a top-level Go function into the value a transpiled C
// function pointer holds (see modernc.org/sqlite's function of that name).
func cFuncPointer[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f}))
}

var heapStatus atomic.Bool

// init switches memory statistics on before anything in the process can
// initialize SQLite (this build has SQLITE_DEFAULT_MEMSTATUS=0, and the
// setting is accepted only before initialization): without them the hard
// heap limit is not enforced.
func init() {
	tls := libc.NewTLS()
	defer tls.Close()
	va := libc.NewVaList(int32(1))
	heapStatus.Store(sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_MEMSTATUS, va) == sqlite3.SQLITE_OK)
	libc.Xfree(tls, va)
}

// ConfigureHeap sets the process-wide hard heap limit in bytes.
func ConfigureHeap(limit int64) { hardHeapLimit(limit) }

// HeapLimitEnforced reports whether memory statistics were switched on
// before SQLite initialized, so that the hard heap limit is enforced.
func HeapLimitEnforced() bool { return heapStatus.Load() }

// HeapLimit reports the current hard heap limit (0: none).
func HeapLimit() int64 { return hardHeapLimit(-1) }

// hardHeapLimit calls sqlite3_hard_heap_limit64 with n (negative: only
// read) and returns the limit before the call.
func hardHeapLimit(n int64) int64 {
	tls := libc.NewTLS()
	defer tls.Close()
	return sqlite3.Xsqlite3_hard_heap_limit64(tls, n)
}

// MemoryUsed is the memory SQLite holds across the process.
func MemoryUsed() int64 {
	tls := libc.NewTLS()
	defer tls.Close()
	return sqlite3.Xsqlite3_memory_used(tls)
}

// Version is SQLite's version string.
func Version() string {
	tls := libc.NewTLS()
	defer tls.Close()
	return libc.GoString(sqlite3.Xsqlite3_libversion(tls))
}

// cptr turns an address in SQLite's (non-Go) memory into a pointer.
func cptr(p uintptr) unsafe.Pointer { return unsafe.Add(nil, p) }

// InterruptAfter interrupts c's running statement once d has passed or
// ctx is done, and keeps interrupting every few milliseconds until stop is
// called (SQLite forgets an interrupt that arrives before a statement
// starts running), and once it has fired no statement of c steps until
// stop is called: it fails as interrupted. Until then it costs a runtime
// timer and a context callback, no goroutine: a statement that ends in
// time never starts one. A ctx already ended, or d not positive, fires at
// once. stop waits for the interrupting goroutine to end, so no interrupt can
// reach a later statement, and reports whether the deadline (or ctx)
// fired; it may be called more than once.
func (c *Conn) InterruptAfter(d time.Duration, ctx context.Context) (stop func() bool) {
	it := &interrupter{c: c, quit: make(chan struct{})}
	if d <= 0 || ctx.Err() != nil {
		it.fire()
	}
	t := time.AfterFunc(d, it.fire)
	unhook := context.AfterFunc(ctx, it.fire)
	var once sync.Once
	return func() bool {
		once.Do(func() {
			t.Stop()
			unhook()
			it.mu.Lock()
			it.stopped = true
			done := it.done
			it.mu.Unlock()
			if done != nil {
				close(it.quit)
				<-done
				c.halts.Add(-1)
			}
		})
		it.mu.Lock()
		defer it.mu.Unlock()
		return it.fired
	}
}

// interrupter is one InterruptAfter: once fired (and not yet stopped) a
// goroutine interrupts c until quit is closed.
type interrupter struct {
	c    *Conn
	quit chan struct{}

	mu      sync.Mutex
	stopped bool
	fired   bool
	done    chan struct{} // closed when the goroutine ends; nil until fired
}

func (it *interrupter) fire() {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.stopped || it.fired {
		return
	}
	it.fired = true
	it.c.halts.Add(1)
	it.done = make(chan struct{})
	go func() {
		defer close(it.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			it.c.Interrupt()
			select {
			case <-it.quit:
				return
			case <-tick.C:
			}
		}
	}()
}

// Exec prepares and steps one fixed statement of the caller's own (never
// user text), for connection set-up.
func (c *Conn) Exec(sql string) error { return c.Each(sql, nil) }

// Each prepares the first statement of sql and steps it to its end,
// calling row (when not nil) on each row it returns, until a step or row
// fails. sql is text the caller wrote or vetted: Each runs it as it is.
func (c *Conn) Each(sql string, row func(*Stmt) error) error {
	st, _, err := c.Prepare(sql)
	if err != nil || st == nil {
		return err
	}
	defer st.Finalize()
	for {
		more, err := st.Step()
		if err != nil || !more {
			return err
		}
		if row != nil {
			if err := row(st); err != nil {
				return err
			}
		}
	}
}

// ReadOnly reports sqlite3_db_readonly for the main database.
func (c *Conn) ReadOnly() bool {
	z, _ := libc.CString("main")
	defer libc.Xfree(c.tls, z)
	return sqlite3.Xsqlite3_db_readonly(c.tls, c.db, z) == 1
}

// DBConfigGet reads a boolean sqlite3_db_config option.
func (c *Conn) DBConfigGet(op int) bool {
	_, now := c.dbConfig(op, -1)
	return now == 1
}

// Lookaside sets the connection's lookaside memory
// (SQLITE_DBCONFIG_LOOKASIDE), the per-connection pool SQLite serves
// small allocations from without taking the global memory mutex: count
// slots of size bytes; 0, 0 turns it off. It fails while a slot is in use.
func (c *Conn) Lookaside(size, count int) bool {
	va := libc.NewVaList(uintptr(0), int32(size), int32(count))
	defer libc.Xfree(c.tls, va)
	return sqlite3.Xsqlite3_db_config(c.tls, c.db, sqlite3.SQLITE_DBCONFIG_LOOKASIDE, va) == sqlite3.SQLITE_OK
}

// Counters DBStatus reads.
const (
	StatusLookasideUsed     = sqlite3.SQLITE_DBSTATUS_LOOKASIDE_USED
	StatusLookasideMissFull = sqlite3.SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL
)

// DBStatus reads one of the connection's counters (sqlite3_db_status): its
// current value and its highest since the connection opened.
func (c *Conn) DBStatus(op int) (cur, hi int) {
	p := c.tls.Alloc(8)
	defer c.tls.Free(8)
	sqlite3.Xsqlite3_db_status(c.tls, c.db, int32(op), p, p+4, 0)
	return int(*(*int32)(cptr(p))), int(*(*int32)(cptr(p + 4)))
}
