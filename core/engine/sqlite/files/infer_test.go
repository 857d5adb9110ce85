package files

import "testing"

func TestInferredType(t *testing.T) {
	for _, c := range []struct {
		values []string
		want   string
	}{
		{[]string{"1", "-2", "+3", "9223372036854775807"}, typeInteger},
		{[]string{"1", "2.5", "-1e3", "0.25"}, typeReal},
		{[]string{"1", "9223372036854775808"}, typeReal}, // past int64
		{[]string{"007", "12"}, typeText},                // a code, not a number
		{[]string{"0", "10"}, typeInteger},
		{[]string{"NaN", "1"}, typeText},
		{[]string{"Inf"}, typeText},
		{[]string{"0x1F"}, typeText},
		{[]string{"1_000"}, typeText},
		{[]string{"true", "False", "TRUE"}, typeBoolean},
		{[]string{"true", "yes"}, typeText},
		{[]string{"2024-02-29", "1999-12-31"}, typeDate},
		{[]string{"2023-02-29"}, typeText}, // no such day
		{[]string{"2024-13-01"}, typeText},
		{[]string{"2024-01-01", "2024-01-01T10:00"}, typeDatetime},
		{[]string{"2024-01-01 10:00:59.123", "2024-01-01T10:00:00+05:30", "2024-01-01T10:00:00Z"}, typeDatetime},
		{[]string{"2024-01-01T25:00"}, typeText},
		{[]string{"2024-01-01T10:00:00+5"}, typeText},
		{[]string{"", ""}, typeText},
		{[]string{"", "3"}, typeInteger},
		{[]string{"Ana", "3"}, typeText},
	} {
		g := newGuess()
		for _, v := range c.values {
			g.add(cell{b: []byte(v)})
		}
		if got := g.typ(); got != c.want {
			t.Errorf("%q: %s, want %s", c.values, got, c.want)
		}
	}
}

func TestJSONKindsNarrowTheType(t *testing.T) {
	for _, c := range []struct {
		cells []cell
		want  string
	}{
		{[]cell{{b: []byte("1"), k: kNumber}, {b: []byte("2"), k: kNumber}}, typeInteger},
		{[]cell{{b: []byte("1"), k: kNumber}, {b: []byte("2.5"), k: kNumber}}, typeReal},
		{[]cell{{b: []byte("12"), k: kString}}, typeText},
		{[]cell{{b: []byte("2024-05-01"), k: kString}}, typeDate},
		{[]cell{{b: []byte("true"), k: kBool}, {k: kNull}}, typeBoolean},
		{[]cell{{b: []byte("1"), k: kNumber}, {b: []byte("true"), k: kBool}}, typeText},
		{[]cell{{b: []byte(`{"a":1}`), k: kJSON}}, typeText},
	} {
		g := newGuess()
		for _, v := range c.cells {
			g.add(v)
		}
		if got := g.typ(); got != c.want {
			t.Errorf("%v: %s, want %s", c.cells, got, c.want)
		}
	}
}

func TestDetectDelimiter(t *testing.T) {
	for _, c := range []struct {
		text string
		want rune
	}{
		{"a,b,c\n1,2,3\n", ','},
		{"a;b;c\n1,5;2,5;3\n", ';'}, // decimal commas
		{"a\tb\n1\t2\n", '\t'},
		{"a|b|c\n1|2|3\n", '|'},
		{"a|b|c\n\"x,y\"|2|3\n", '|'},
		{"single\n1\n", ','},
		{"a;b", ';'},
	} {
		if got := detectDelimiter([]byte(c.text)); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}
