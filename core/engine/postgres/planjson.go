package postgres

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// rawJSON is one value of a JSON text already checked with json.Valid,
// without the space around it. vetPlan reads the plan through it: only
// the strings it looks at are decoded, and nothing else is built.
type rawJSON []byte

// member is one member of a JSON object: its key, decoded, and its value.
type member struct {
	key []byte
	val rawJSON
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

// members appends an object's members to buf, in order, keeping of those
// that share a key only the last, as decoding into a map does.
func (v rawJSON) members(buf []member) []member {
	i := skipSpace(v, 1)
	for v[i] != '}' {
		end := valueEnd(v, i)
		key := rawJSON(v[i:end])
		k, plain := key.plain()
		if !plain {
			s, _ := key.str()
			k = []byte(s)
		}
		i = skipSpace(v, skipSpace(v, end)+1) // past the colon
		end = valueEnd(v, i)
		buf = append(buf, member{key: k, val: v[i:end]})
		i = skipSpace(v, end)
		if v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
	out := buf[:0]
	for j, m := range buf {
		if !laterKey(buf[j+1:], m.key) {
			out = append(out, m)
		}
	}
	return out
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

// elements calls f with each element of an array, in order, until f
// returns an error.
func (v rawJSON) elements(f func(rawJSON) error) error {
	i := skipSpace(v, 1)
	for v[i] != ']' {
		end := valueEnd(v, i)
		if err := f(v[i:end]); err != nil {
			return err
		}
		i = skipSpace(v, end)
		if v[i] == ',' {
			i = skipSpace(v, i+1)
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
