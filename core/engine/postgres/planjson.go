package postgres

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// rawJSON is one value of a JSON text already checked with json.Valid,
// without the space around it. vetPlan reads the plan through it: only
// the strings it looks at are decoded, and nothing else is built.
type rawJSON []byte

// member is one member of a JSON object: its key, decoded, its value,
// and the first error walking the value met.
type member struct {
	key []byte
	val rawJSON
	err error
}

// kind is the value's first byte: '{', '[' or '"' for an object, an
// array or a string; anything else is a number, true, false or null (0
// for no value: a member get did not find).
func (v rawJSON) kind() byte {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// str is what a string value decodes to, as json.Unmarshal decodes it;
// ok is false for any other value.
func (v rawJSON) str() (string, bool) {
	if v.kind() != '"' {
		return "", false
	}
	if raw, plain := v.plain(); plain {
		return string(raw), true
	}
	return v.decode()
}

// decode decodes a string value with json.Unmarshal (escapes, invalid
// UTF-8).
func (v rawJSON) decode() (string, bool) {
	var s string
	err := json.Unmarshal(v, &s)
	return s, err == nil
}

// plain returns a string value's bytes between the quotes when they are
// what it decodes to: no escape and valid UTF-8 (json.Unmarshal replaces
// invalid bytes).
func (v rawJSON) plain() ([]byte, bool) {
	raw := v[1 : len(v)-1]
	return raw, bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}

// is reports whether v is the string s.
func (v rawJSON) is(s string) bool {
	if v.kind() == '"' {
		if raw, plain := v.plain(); plain {
			return string(raw) == s
		}
	}
	got, ok := v.str()
	return ok && got == s
}

// jsonWalk walks a JSON text checked with json.Valid once, in order:
// text is called with each string value, object with each object's
// members once their values were walked, keeping of those that share a
// key only the last (as decoding into a map does). What the value of a
// member named skip holds is not checked, only read for its numbers.
type jsonWalk struct {
	b      []byte
	skip   string
	text   func(v rawJSON) error
	object func(members []member) error
	stack  []member // the members of the objects being walked
	// bigNumber is set when a number does not fit a float64: decoding
	// the text into any fails then.
	bigNumber bool
}

// walk walks the value at b[i]: it returns where the value ends and the
// first error met, an object's own (object) before its members'.
func (w *jsonWalk) walk(i int) (int, error) {
	b := w.b
	switch b[i] {
	case '{':
		base := len(w.stack)
		for i = skipSpace(b, i+1); b[i] != '}'; {
			end := valueEnd(b, i)
			key := rawJSON(b[i:end])
			k, plain := key.plain()
			if !plain {
				s, _ := key.decode()
				k = []byte(s)
			}
			i = skipSpace(b, skipSpace(b, end)+1) // past the colon
			end, err := w.walk(i)
			if string(k) == w.skip {
				err = nil // walked only for its numbers
			}
			w.stack = append(w.stack, member{key: k, val: b[i:end], err: err})
			if i = skipSpace(b, end); b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		ms := w.stack[base:]
		kept := ms[:0]
		for j, m := range ms {
			if !laterKey(ms[j+1:], m.key) {
				kept = append(kept, m)
			}
		}
		err := w.object(kept)
		w.stack = w.stack[:base]
		return i + 1, err
	case '[':
		var first error
		for i = skipSpace(b, i+1); b[i] != ']'; {
			end, err := w.walk(i)
			if first == nil {
				first = err
			}
			if i = skipSpace(b, end); b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return i + 1, first
	case '"':
		end := valueEnd(b, i)
		return end, w.text(b[i:end])
	case 't', 'f', 'n':
		return valueEnd(b, i), nil
	}
	end := valueEnd(b, i)
	// Only an exponent or over 300 digits can be out of range.
	if num := b[i:end]; len(num) > 300 || bytes.ContainsAny(num, "eE") {
		if _, err := strconv.ParseFloat(string(num), 64); err != nil {
			w.bigNumber = true
		}
	}
	return end, nil
}

func laterKey(ms []member, key []byte) bool {
	for _, m := range ms {
		if bytes.Equal(m.key, key) {
			return true
		}
	}
	return false
}

// get is the value of the member named key, or nil.
func get(ms []member, key string) rawJSON {
	for _, m := range ms {
		if string(m.key) == key {
			return m.val
		}
	}
	return nil
}

// valueEnd is the offset just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		return i + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = valueEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
		i++
	}
	return i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// isSpace reports JSON's white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
