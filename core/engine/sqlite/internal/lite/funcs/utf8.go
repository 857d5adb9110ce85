package funcs

// SQLite's reading of UTF-8 (sqlite3Utf8Read and SQLITE_SKIP_UTF8), which
// differs from Go's for invalid input: a lead byte takes every following
// continuation byte, a stray continuation byte is a character of its own,
// and the bytes are read up to a NUL terminator. Reads past the end of a
// slice give 0, as at a C string's terminator.

// utf8Trans1 is sqlite3Utf8Trans1: the payload bits of a lead byte
// 0xc0..0xff.
var utf8Trans1 = func() (t [64]byte) {
	for i := range t {
		switch {
		case i < 32:
			t[i] = byte(i)
		case i < 48:
			t[i] = byte(i - 32)
		case i < 56:
			t[i] = byte(i - 48)
		case i < 60:
			t[i] = byte(i - 56)
		case i < 62:
			t[i] = byte(i - 60)
		}
	}
	return t
}()

func at(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// utf8Read is sqlite3Utf8Read: the character at b[i] and the index after
// it.
func utf8Read(b []byte, i int) (uint32, int) {
	c := uint32(at(b, i))
	i++
	if c >= 0xc0 {
		c = uint32(utf8Trans1[c-0xc0])
		for at(b, i)&0xc0 == 0x80 {
			c = c<<6 + uint32(0x3f&at(b, i))
			i++
		}
		if c < 0x80 || c&0xFFFFF800 == 0xD800 {
			c = 0xFFFD
		}
	}
	return c, i
}

// readChar is the READ_UTF8 shortcut SQLite's loops use: an ASCII byte
// as it is, anything else through utf8Read.
func readChar(b []byte, i int) (uint32, int) {
	if c := at(b, i); c < 0x80 {
		return uint32(c), i + 1
	}
	return utf8Read(b, i)
}

// skipUTF8 is SQLITE_SKIP_UTF8: the index after the character at b[i].
func skipUTF8(b []byte, i int) int {
	c := at(b, i)
	i++
	if c >= 0xc0 {
		for at(b, i)&0xc0 == 0x80 {
			i++
		}
	}
	return i
}

// cString is b up to its first NUL, as C code reading a string sees it.
func cString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// isUpperToLower is sqlite3UpperToLower for ASCII.
func toLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func toUpper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func isXDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexToInt(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
