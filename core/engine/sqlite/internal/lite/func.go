package lite

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Func is a scalar SQL function written in Go. It reads its arguments and
// sets one result through ctx; setting none leaves the result NULL.
type Func func(ctx *Context, args []Value)

// FuncID names a Func registered with NewFunc.
type FuncID int

var (
	funcMu sync.Mutex
	funcs  atomic.Pointer[[]Func] // copied on write: read on every call
)

// NewFunc registers fn for use with Conn.CreateFunction, once per process
// (call it from a package-level variable).
func NewFunc(fn Func) FuncID {
	funcMu.Lock()
	defer funcMu.Unlock()
	var list []Func
	if old := funcs.Load(); old != nil {
		list = append(list, *old...)
	}
	list = append(list, fn)
	funcs.Store(&list)
	return FuncID(len(list))
}

// registered returns the Func with this id, or nil.
func registered(id uintptr) Func {
	if list := funcs.Load(); list != nil && id >= 1 && id <= uintptr(len(*list)) {
		return (*list)[id-1]
	}
	return nil
}

// Function flags for CreateFunction.
const (
	FuncDeterministic = sqlite3.SQLITE_DETERMINISTIC
	FuncInnocuous     = sqlite3.SQLITE_INNOCUOUS
	FuncResultSubtype = sqlite3.SQLITE_RESULT_SUBTYPE
	FuncSubtype       = sqlite3.SQLITE_SUBTYPE
)

// CreateFunction defines (or redefines: a built-in of the same name and
// argument count is replaced on this connection) the scalar function name
// with nArg arguments (-1: any number), UTF-8, with the given flags.
func (c *Conn) CreateFunction(name string, nArg int, flags int, id FuncID) error {
	z, err := libc.CString(name)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, z)
	rc := sqlite3.Xsqlite3_create_function_v2(c.tls, c.db, z, int32(nArg), int32(sqlite3.SQLITE_UTF8|flags), uintptr(id), cFuncPointer(funcTrampoline), 0, 0, 0)
	if rc != sqlite3.SQLITE_OK {
		return c.err(rc)
	}
	return nil
}

func funcTrampoline(tls *libc.TLS, pCtx uintptr, argc int32, argv uintptr) {
	id := sqlite3.Xsqlite3_user_data(tls, pCtx)
	fn := registered(id)
	if fn == nil {
		fn = registered(uintptr(likeAlias(id)))
	}
	call := calls.Get().(*funcCall)
	defer calls.Put(call)
	ctx := &call.ctx
	*ctx = Context{tls: tls, p: pCtx}
	if fn == nil {
		ctx.ResultError("no implementation registered for this function", sqlite3.SQLITE_ERROR)
		return
	}
	args := call.args[:0]
	for i := range int(argc) {
		args = append(args, Value{tls: tls, p: *(*uintptr)(cptr(argv + uintptr(i)*8))})
	}
	defer func() {
		if r := recover(); r != nil {
			ctx.ResultError(fmt.Sprintf("internal error in a function: %v", r), sqlite3.SQLITE_INTERNAL)
		}
	}()
	fn(ctx, args)
}

// funcCall is the memory of one call, reused: functions run once per row.
type funcCall struct {
	ctx  Context
	args []Value
}

var calls = sync.Pool{New: func() any { return &funcCall{args: make([]Value, 0, 8)} }}

// Value is one argument of a Func, valid during the call.
type Value struct {
	tls *libc.TLS
	p   uintptr
}

// Type is the argument's storage class (Integer, Float, Text, Blob, Null).
func (v Value) Type() int { return int(sqlite3.Xsqlite3_value_type(v.tls, v.p)) }

// Text returns the argument converted to text as SQLite converts it (for
// a blob, its bytes), or nil for NULL. The bytes are SQLite's: valid until
// the call returns or the argument is converted again; copy to keep.
func (v Value) Text() []byte {
	p := sqlite3.Xsqlite3_value_text(v.tls, v.p)
	if p == 0 {
		return nil
	}
	n := sqlite3.Xsqlite3_value_bytes(v.tls, v.p)
	if n <= 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(cptr(p)), n)
}

// Blob returns the argument as bytes (text: its UTF-8), or nil for NULL.
// Same lifetime as Text.
func (v Value) Blob() []byte {
	p := sqlite3.Xsqlite3_value_blob(v.tls, v.p)
	n := sqlite3.Xsqlite3_value_bytes(v.tls, v.p)
	if p == 0 || n <= 0 {
		if v.Type() == Null {
			return nil
		}
		return []byte{}
	}
	return unsafe.Slice((*byte)(cptr(p)), n)
}

// Bytes is sqlite3_value_bytes: the size of the argument as text or blob
// (converting a number to text first).
func (v Value) Bytes() int { return int(sqlite3.Xsqlite3_value_bytes(v.tls, v.p)) }

// Subtype is the argument's subtype (74, 'J', for JSON), 0 when none.
func (v Value) Subtype() uint32 { return sqlite3.Xsqlite3_value_subtype(v.tls, v.p) }

// Context is the call a Func answers.
type Context struct {
	tls   *libc.TLS
	p     uintptr
	work  int
	abort bool
}

func (ctx *Context) db() uintptr { return sqlite3.Xsqlite3_context_db_handle(ctx.tls, ctx.p) }

// Limit reads one of the calling connection's limits (LimitLength, …).
func (ctx *Context) Limit(id int) int {
	return int(sqlite3.Xsqlite3_limit(ctx.tls, ctx.db(), int32(id), -1))
}

// pollEvery is how much work passes between two interrupt checks: a few
// hundred microseconds of simple loop iterations.
const pollEvery = 1 << 16

// Interrupted counts n units of work and, every pollEvery units, asks
// whether the statement was interrupted (the deadline passed, or it was
// cancelled). Once it reports true it keeps doing so; the Func should
// stop at once and call ResultInterrupted.
func (ctx *Context) Interrupted(n int) bool {
	if ctx.abort {
		return true
	}
	ctx.work += n
	if ctx.work < pollEvery {
		return false
	}
	ctx.work = 0
	ctx.abort = sqlite3.Xsqlite3_is_interrupted(ctx.tls, ctx.db()) != 0
	return ctx.abort
}

// ResultInterrupted ends the call with SQLITE_INTERRUPT, as if SQLite had
// been interrupted between two steps.
func (ctx *Context) ResultInterrupted() {
	sqlite3.Xsqlite3_result_error_code(ctx.tls, ctx.p, sqlite3.SQLITE_INTERRUPT)
}

// ResultInt sets an integer result.
func (ctx *Context) ResultInt(v int64) { sqlite3.Xsqlite3_result_int64(ctx.tls, ctx.p, v) }

// ResultNull sets a NULL result.
func (ctx *Context) ResultNull() { sqlite3.Xsqlite3_result_null(ctx.tls, ctx.p) }

// ResultText sets a text result (a copy of b, which may hold any bytes).
func (ctx *Context) ResultText(b []byte) { ctx.NewText(len(b), func(dst []byte) { copy(dst, b) }) }

// ResultBlob sets a blob result (a copy of b).
func (ctx *Context) ResultBlob(b []byte) {
	p, ok := ctx.alloc(len(b))
	if !ok {
		return
	}
	copy(unsafe.Slice((*byte)(cptr(p)), len(b)+1), b)
	sqlite3.Xsqlite3_result_blob64(ctx.tls, ctx.p, p, uint64(len(b)), cFuncPointer(sqlite3.Xsqlite3_free))
}

// NewText allocates n bytes in SQLite's memory, lets fill write them and
// sets them as a text result. Results live in SQLite's memory, within its
// heap limit: a failed allocation sets SQLITE_NOMEM, and n over the
// connection's length limit SQLITE_TOOBIG.
func (ctx *Context) NewText(n int, fill func(b []byte)) {
	p, ok := ctx.alloc(n)
	if !ok {
		return
	}
	b := unsafe.Slice((*byte)(cptr(p)), n+1)
	fill(b[:n])
	b[n] = 0
	sqlite3.Xsqlite3_result_text64(ctx.tls, ctx.p, p, uint64(n), cFuncPointer(sqlite3.Xsqlite3_free), sqlite3.SQLITE_UTF8)
}

// alloc allocates n+1 bytes for a result, or sets the error and reports
// false.
func (ctx *Context) alloc(n int) (uintptr, bool) {
	if n > ctx.Limit(LimitLength) {
		ctx.ResultTooBig()
		return 0, false
	}
	p := sqlite3.Xsqlite3_malloc64(ctx.tls, uint64(n)+1)
	if p == 0 {
		ctx.ResultNoMem()
		return 0, false
	}
	return p, true
}

// ResultError sets an error result with SQLite's message and code.
func (ctx *Context) ResultError(msg string, code int) {
	z, err := libc.CString(msg)
	if err != nil {
		ctx.ResultNoMem()
		return
	}
	defer libc.Xfree(ctx.tls, z)
	sqlite3.Xsqlite3_result_error(ctx.tls, ctx.p, z, -1)
	if code != sqlite3.SQLITE_ERROR {
		sqlite3.Xsqlite3_result_error_code(ctx.tls, ctx.p, int32(code))
	}
}

// ResultTooBig sets SQLite's "string or blob too big" error.
func (ctx *Context) ResultTooBig() { sqlite3.Xsqlite3_result_error_toobig(ctx.tls, ctx.p) }

// ResultNoMem sets SQLite's out-of-memory error.
func (ctx *Context) ResultNoMem() { sqlite3.Xsqlite3_result_error_nomem(ctx.tls, ctx.p) }

// ResultSubtype sets the result's subtype.
func (ctx *Context) ResultSubtype(t uint32) { sqlite3.Xsqlite3_result_subtype(ctx.tls, ctx.p, t) }

// ResultColumn sets the result to a copy of column i of st's current row
// (another connection's statement: how a Func hands work to SQLite's own
// implementation on a private connection).
func (ctx *Context) ResultColumn(st *Stmt, i int) {
	sqlite3.Xsqlite3_result_value(ctx.tls, ctx.p, sqlite3.Xsqlite3_column_value(st.c.tls, st.p, int32(i)))
}

// BindValue binds argument v to parameter i (1-based) of st, a statement
// of another connection.
func (st *Stmt) BindValue(i int, v Value) error {
	if rc := sqlite3.Xsqlite3_bind_value(st.c.tls, st.p, int32(i), v.p); rc != sqlite3.SQLITE_OK {
		return st.c.err(rc)
	}
	return nil
}

// Reset resets st to run again and clears its bindings.
func (st *Stmt) Reset() {
	sqlite3.Xsqlite3_reset(st.c.tls, st.p)
	sqlite3.Xsqlite3_clear_bindings(st.c.tls, st.p)
}

var (
	likeMu      sync.Mutex
	likeInfo    = map[[4]byte]uintptr{}       // wildcards → their C copy
	likeAliases atomic.Pointer[[]likeAliasOf] // that C copy → the FuncID it stands for
)

type likeAliasOf struct {
	info uintptr
	id   FuncID
}

// likeAlias returns the FuncID a C copy of wildcards stands for, 0 if
// none.
func likeAlias(info uintptr) FuncID {
	if list := likeAliases.Load(); list != nil {
		for _, a := range *list {
			if a.info == info {
				return a.id
			}
		}
	}
	return 0
}

// MarkLike tells SQLite's query planner that the function name with nArg
// arguments, defined on c by CreateFunction, is LIKE or GLOB with the
// given wildcards (matchSet 0 for none), so that its prefix optimisation
// (an index range for x LIKE 'abc%') still applies. The public API cannot
// set this (SQLITE_FUNC_LIKE is internal), so it finds the function's
// FuncDef in the connection's hash of functions, as this version of the
// library lays it out, and sets the flag and the wildcards SQLite reads
// from its user data. It changes nothing and reports false when it does
// not find a FuncDef it can positively identify as the one
// CreateFunction made; the function then works without the optimisation.
// The function must implement LIKE's or GLOB's semantics exactly.
func (c *Conn) MarkLike(name string, nArg int, matchAll, matchOne, matchSet byte, caseSensitive bool) bool {
	hash := (*sqlite3.Tsqlite3)(cptr(c.db)).FaFunc
	for e := hash.Ffirst; e != 0; {
		elem := (*sqlite3.THashElem)(cptr(e))
		e = elem.Fnext
		if libc.GoString(elem.FpKey) != name {
			continue
		}
		for p := elem.Fdata; p != 0; {
			def := (*sqlite3.TFuncDef)(cptr(p))
			p = def.FpNext
			if int(def.FnArg) != nArg || def.FxSFunc != cFuncPointer(funcTrampoline) || registered(def.FpUserData) == nil {
				continue
			}
			noCase := byte(1)
			if caseSensitive {
				noCase = 0
			}
			info := likeWildcards([4]byte{matchAll, matchOne, matchSet, noCase}, FuncID(def.FpUserData))
			if info == 0 {
				return false
			}
			def.FpUserData = info
			def.FfuncFlags |= sqlite3.SQLITE_FUNC_LIKE
			if caseSensitive {
				def.FfuncFlags |= sqlite3.SQLITE_FUNC_CASE
			}
			return true
		}
	}
	return false
}

// likeWildcards returns a C copy of w (SQLite's compareInfo) that stands
// for id in funcTrampoline.
func likeWildcards(w [4]byte, id FuncID) uintptr {
	likeMu.Lock()
	defer likeMu.Unlock()
	if p, ok := likeInfo[w]; ok {
		if likeAlias(p) == id {
			return p
		}
		return 0
	}
	tls := libc.NewTLS()
	defer tls.Close()
	p := libc.Xmalloc(tls, 4) // lives as long as the process
	if p == 0 {
		return 0
	}
	copy(unsafe.Slice((*byte)(cptr(p)), 4), w[:])
	likeInfo[w] = p
	var list []likeAliasOf
	if old := likeAliases.Load(); old != nil {
		list = append(list, *old...)
	}
	list = append(list, likeAliasOf{p, id})
	likeAliases.Store(&list)
	return p
}
