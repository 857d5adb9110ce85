package funcs

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
)

// JSON functions whose one call can do far more work than its input's size
// suggests: json_patch compares every label of the patch with every label
// of the target object (quadratic), and the functions that take several
// paths walk the document once per path (a 50 MB document and 99 paths run
// for many seconds). Neither can be interrupted inside SQLite, and their
// exact output (JSON text, JSONB blobs, JSON5 input, error messages) is
// best left to SQLite. So the redefined function estimates the work, fails
// with SQLITE_TOOBIG when it is more than about half a second's worth, and
// otherwise runs SQLite's own function on a private in-memory connection
// that has no redefinitions, with the same arguments.

// Work budgets, in units of roughly a nanosecond.
const (
	// pathBudget bounds document bytes × paths for the several-path forms.
	pathBudget = 250_000_000
	// patchBudget bounds patch labels × target labels for json_patch, and
	// patchMoveBudget patch labels × target bytes (each edit moves the
	// rest of the target).
	patchBudget     = 20_000_000
	patchMoveBudget = 2_000_000_000
)

// severalPaths are the functions taking a document and then paths (or
// path and value pairs); minArgs is the fewest arguments with two paths.
var severalPaths = []struct {
	name    string
	minArgs int
	pairs   bool
}{
	{"json_extract", 3, false}, {"jsonb_extract", 3, false},
	{"json_remove", 3, false}, {"jsonb_remove", 3, false},
	{"json_set", 5, true}, {"jsonb_set", 5, true},
	{"json_insert", 5, true}, {"jsonb_insert", 5, true},
	{"json_replace", 5, true}, {"jsonb_replace", 5, true},
	{"json_array_insert", 5, true}, {"jsonb_array_insert", 5, true},
}

type jsonOverride struct {
	name  string
	nArg  int
	flags int
	id    lite.FuncID
}

const jsonFlags = pure | lite.FuncSubtype | lite.FuncResultSubtype

var (
	jsonOnce sync.Once
	jsonList []jsonOverride
)

// jsonOverrides lists the (name, argument count) pairs redefined.
func jsonOverrides() []jsonOverride {
	jsonOnce.Do(func() {
		for _, name := range []string{"json_patch", "jsonb_patch"} {
			jsonList = append(jsonList, jsonOverride{name, 2, jsonFlags, lite.NewFunc(delegate(name, patchCost))})
		}
		for _, f := range severalPaths {
			id := lite.NewFunc(delegate(f.name, pathsCost))
			for n := f.minArgs; n <= maxFunctionArgs; n++ {
				jsonList = append(jsonList, jsonOverride{f.name, n, jsonFlags, id})
			}
		}
	})
	return jsonList
}

// maxFunctionArgs is the largest argument count redefined: core/db limits
// every connection to 100 arguments (SQLITE_LIMIT_FUNCTION_ARG).
const maxFunctionArgs = 100

// costFunc estimates a call's work, or returns a reason to refuse it.
type costFunc func(name string, args []lite.Value) (refuse string)

func pathsCost(name string, args []lite.Value) string {
	paths := len(args) - 1
	for _, f := range severalPaths {
		if f.name == name && f.pairs {
			paths = (len(args) - 1) / 2
		}
	}
	size := args[0].Bytes()
	if paths < 2 || int64(size)*int64(paths) <= pathBudget {
		return ""
	}
	return fmt.Sprintf("%s: %d paths into a %s document is more work than one call may do; use fewer paths per call", name, paths, sizeText(size))
}

func patchCost(name string, args []lite.Value) string {
	target, patch := args[0], args[1]
	pl := labels(patch)
	tl := labels(target)
	size := target.Bytes()
	if int64(pl)*int64(tl) <= patchBudget && int64(pl)*int64(size) <= patchMoveBudget {
		return ""
	}
	return fmt.Sprintf("%s: merging a patch of about %d labels into a document of about %d labels is more work than one call may do", name, pl, tl)
}

// labels is an upper bound on the number of object labels in a JSON value:
// for text, its colons; for a JSONB blob, the entries of its objects.
func labels(v lite.Value) int {
	switch v.Type() {
	case lite.Blob:
		b := v.Blob()
		if n, ok := jsonbLabels(b); ok {
			return n
		}
		return len(b) / 2
	case lite.Text:
		return bytes.Count(v.Text(), []byte{':'})
	}
	return 0
}

// jsonbLabels counts the labels of the objects in a JSONB value (each
// object entry is a label and a value), or reports false for a blob that is
// not well-formed JSONB.
func jsonbLabels(b []byte) (int, bool) {
	total := 0
	var walk func(b []byte) bool
	walk = func(b []byte) bool {
		for len(b) > 0 {
			typ, hdr, size, ok := jsonbHeader(b)
			if !ok || hdr+size > len(b) {
				return false
			}
			payload := b[hdr : hdr+size]
			switch typ {
			case 11: // array
				if !walk(payload) {
					return false
				}
			case 12: // object: label, value, label, value…
				n := 0
				for p := payload; len(p) > 0; n++ {
					_, h, s, ok := jsonbHeader(p)
					if !ok || h+s > len(p) {
						return false
					}
					if n%2 == 1 && !walk(p[:h+s]) {
						return false
					}
					p = p[h+s:]
				}
				total += n / 2
			}
			b = b[hdr+size:]
		}
		return true
	}
	if !walk(b) {
		return 0, false
	}
	return total, true
}

// jsonbHeader decodes a JSONB element header: its type, header length and
// payload size.
func jsonbHeader(b []byte) (typ, hdr, size int, ok bool) {
	if len(b) == 0 {
		return 0, 0, 0, false
	}
	typ = int(b[0] & 0x0f)
	switch n := int(b[0] >> 4); {
	case n < 12:
		return typ, 1, n, true
	case n == 12 && len(b) >= 2:
		return typ, 2, int(b[1]), true
	case n == 13 && len(b) >= 3:
		return typ, 3, int(b[1])<<8 | int(b[2]), true
	case n == 14 && len(b) >= 5:
		return typ, 5, int(b[1])<<24 | int(b[2])<<16 | int(b[3])<<8 | int(b[4]), true
	case n == 15 && len(b) >= 9:
		var s uint64
		for _, c := range b[1:9] {
			s = s<<8 | uint64(c)
		}
		if s > 1<<31 {
			return 0, 0, 0, false
		}
		return typ, 9, int(s), true
	}
	return 0, 0, 0, false
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// jsonSubtype is SQLite's subtype for JSON text ('J').
const jsonSubtype = 74

// delegate returns a Func that checks cost and runs SQLite's own function
// name on a private connection.
func delegate(name string, cost costFunc) lite.Func {
	return func(ctx *lite.Context, args []lite.Value) {
		if why := cost(name, args); why != "" {
			ctx.ResultError(why, lite.CodeTooBig)
			return
		}
		h, err := getHelper()
		if err != nil {
			ctx.ResultError(err.Error(), 1)
			return
		}
		defer putHelper(h)
		h.call(ctx, name, args)
	}
}

// helper is a private in-memory connection that runs SQLite's built-in
// JSON functions on bound values. It has no schema and never sees SQL
// text from outside this file; an authorizer lets it run only a SELECT of
// JSON functions.
type helper struct {
	c     *lite.Conn
	stmts map[string]*lite.Stmt
}

var helpers = make(chan *helper, 4)

func getHelper() (*helper, error) {
	select {
	case h := <-helpers:
		return h, nil
	default:
	}
	c, err := lite.Open(":memory:", lite.OpenReadOnly|lite.OpenNoMutex)
	if err != nil {
		return nil, fmt.Errorf("open the JSON helper: %w", err)
	}
	err = c.SetAuthorizer(func(action int, _, fn, _, _ string) int {
		switch {
		case action == lite.ActionSelect:
			return lite.AuthOK
		case action == lite.ActionFunction && (strings.HasPrefix(fn, "json") || fn == "subtype"):
			return lite.AuthOK
		}
		return lite.AuthDeny
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	return &helper{c: c, stmts: map[string]*lite.Stmt{}}, nil
}

func putHelper(h *helper) {
	select {
	case helpers <- h:
	default:
		h.close()
	}
}

func (h *helper) close() {
	for _, st := range h.stmts {
		st.Finalize()
	}
	h.c.Close()
}

// call runs name(args…) on h and sets ctx's result to it, or SQLite's
// error. Arguments with the JSON subtype are passed through json() so that
// SQLite reads them as JSON, as it would have in the caller's statement.
func (h *helper) call(ctx *lite.Context, name string, args []lite.Value) {
	sql := buildCall(name, args)
	st, ok := h.stmts[sql]
	if !ok {
		if len(h.stmts) >= 64 {
			for k, old := range h.stmts {
				old.Finalize()
				delete(h.stmts, k)
			}
		}
		var err error
		if st, _, err = h.c.Prepare(sql); err != nil {
			ctx.ResultError(err.Error(), 1)
			return
		}
		h.stmts[sql] = st
	}
	defer st.Reset()
	for _, id := range []int{lite.LimitLength, lite.LimitFunctionArg} {
		h.c.Limit(id, ctx.Limit(id))
	}
	for i, a := range args {
		if err := st.BindValue(i+1, a); err != nil {
			ctx.ResultError(err.Error(), 1)
			return
		}
	}
	if _, err := st.Step(); err != nil {
		if le, ok := err.(*lite.Error); ok {
			ctx.ResultError(le.Msg, le.Ext)
		} else {
			ctx.ResultError(err.Error(), 1)
		}
		return
	}
	ctx.ResultColumn(st, 0)
}

// buildCall is the statement that calls name with args as parameters.
func buildCall(name string, args []lite.Value) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(name)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		if a.Subtype() == jsonSubtype {
			fmt.Fprintf(&b, "json(?%d)", i+1)
		} else {
			fmt.Fprintf(&b, "?%d", i+1)
		}
	}
	b.WriteByte(')')
	return b.String()
}
