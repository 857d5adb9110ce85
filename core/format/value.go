package format

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// maxBlobBytes is how many bytes of a blob Value and Blob show.
const maxBlobBytes = 16

// Value is a database value (nil, int64, float64, string, []byte) as text
// for people: NULL, integers, REALs as SQLite shows them (AppendFloat),
// text as it is, and blobs as Blob shows them. The text of a string is not
// made printable: renderers pass it through PrintableLine or Printable.
func Value(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return Float(x)
	case string:
		return x
	case []byte:
		return Blob(x)
	}
	return fmt.Sprint(v)
}

// Blob is a blob as text for people: an SQL literal x'00ff10' when it is
// at most 16 bytes, else the literal of its first 16 bytes followed by its
// size: x'89504e470d0a1a0a0000000d49484452…' (1,204 bytes).
func Blob(b []byte) string {
	if len(b) <= maxBlobBytes {
		return "x'" + hex.EncodeToString(b) + "'"
	}
	return "x'" + hex.EncodeToString(b[:maxBlobBytes]) + "…' (" + Plural(int64(len(b)), "byte") + ")"
}

// IsNumericType reports whether a declared column type holds numbers:
// INTEGER, REAL, NUMERIC, DECIMAL, FLOAT, DOUBLE and their spellings
// (BIGINT, DOUBLE PRECISION, NUMERIC(10,2)…), in any case.
func IsNumericType(decl string) bool {
	t := strings.ToUpper(decl)
	return strings.Contains(t, "INT") || strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") ||
		strings.Contains(t, "DOUB") || strings.Contains(t, "NUM") || strings.Contains(t, "DEC")
}
