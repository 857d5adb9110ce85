package chartspec

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

func TestValidate(t *testing.T) {
	cols := []query.Column{{Name: "name", Type: "TEXT"}, {Name: "total", Type: "REAL"}, {Name: "qty", Type: "INTEGER"}, {Name: "region", Type: "TEXT"}}
	rows := []query.Row{
		{"alpha", 10.5, int64(3), "north"},
		{"beta", nil, int64(4), "south"},
		{"gamma", "7.25", nil, "north"},
	}
	tests := []struct {
		name      string
		spec      answer.ChartSpec
		rows      []query.Row
		field     string   // "" means valid
		wantInMsg []string // substrings of Error()
	}{
		{name: "valid bar", spec: answer.ChartSpec{Kind: "bar", X: "name", Y: "total"}},
		{name: "kind is case-insensitive", spec: answer.ChartSpec{Kind: "HBar", X: "name", Y: "qty"}},
		{name: "numeric-looking text counts as numeric", spec: answer.ChartSpec{Kind: "line", X: "name", Y: "total"}},
		{name: "series", spec: answer.ChartSpec{Kind: "bar", X: "name", Y: "total", Series: "region"}},
		{name: "histogram needs only x", spec: answer.ChartSpec{Kind: "histogram", X: "qty"}},
		{name: "scatter of numbers", spec: answer.ChartSpec{Kind: "scatter", X: "qty", Y: "total"}},
		{
			name: "unknown kind", spec: answer.ChartSpec{Kind: "donut", X: "name", Y: "total"},
			field: "kind", wantInMsg: []string{`unknown chart kind "donut"`, "bar, hbar, line, scatter, pie, histogram"},
		},
		{name: "missing kind", spec: answer.ChartSpec{X: "name", Y: "total"}, field: "kind", wantInMsg: []string{"kind is required"}},
		{
			name: "unknown x lists the columns", spec: answer.ChartSpec{Kind: "bar", X: "nmae", Y: "total"},
			field: "x", wantInMsg: []string{`x column "nmae" is not in the result`, "available columns: name, total, qty, region"},
		},
		{
			name: "non-numeric y names column and type", spec: answer.ChartSpec{Kind: "bar", X: "total", Y: "name"},
			field: "y", wantInMsg: []string{`y column "name" is TEXT, not numeric — pick a numeric column such as "qty"`},
		},
		{
			name: "y with one bad value names the row", spec: answer.ChartSpec{Kind: "bar", X: "name", Y: "total"},
			rows: []query.Row{{"a", 1.0, int64(1), "x"}, {"b", "n/a", int64(2), "y"}}, field: "y",
			wantInMsg: []string{`y column "total" holds a non-numeric value "n/a" in row 2`},
		},
		{name: "missing y", spec: answer.ChartSpec{Kind: "line", X: "name"}, field: "y", wantInMsg: []string{"y column is required for a line chart", `such as "total"`}},
		{
			name: "histogram x must be numeric", spec: answer.ChartSpec{Kind: "histogram", X: "region"},
			field: "x", wantInMsg: []string{`x column "region" is TEXT, not numeric`, "a histogram bins numbers"},
		},
		{name: "scatter x must be numeric", spec: answer.ChartSpec{Kind: "scatter", X: "name", Y: "total"}, field: "x", wantInMsg: []string{`x column "name" is TEXT`}},
		{name: "pie refuses series", spec: answer.ChartSpec{Kind: "pie", X: "name", Y: "qty", Series: "region"}, field: "series"},
		{name: "series must be a column", spec: answer.ChartSpec{Kind: "bar", X: "name", Y: "qty", Series: "zone"}, field: "series", wantInMsg: []string{`series column "zone"`}},
		{name: "series must differ from x", spec: answer.ChartSpec{Kind: "bar", X: "name", Y: "qty", Series: "name"}, field: "series"},
		{
			name: "pie refuses negatives", spec: answer.ChartSpec{Kind: "pie", X: "name", Y: "total"},
			rows: []query.Row{{"a", 3.0}, {"b", -1.5}}, field: "y", wantInMsg: []string{"cannot be negative", "-1.50 in row 2"},
		},
		{name: "no rows", spec: answer.ChartSpec{Kind: "bar", X: "name", Y: "total"}, rows: []query.Row{}, field: "rows"},
		{name: "only NULL y", spec: answer.ChartSpec{Kind: "bar", X: "name", Y: "qty"}, rows: []query.Row{{"a", 1.0, nil}, {"b", 2.0, nil}}, field: "y", wantInMsg: []string{"only NULL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rows
			if tt.rows != nil {
				r = tt.rows
			}
			err := Validate(tt.spec, cols, r)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v, want nil", err)
				}
				return
			}
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("Validate: %v (%T), want *SpecError", err, err)
			}
			if se.Field != tt.field {
				t.Errorf("Field = %q, want %q (%v)", se.Field, tt.field, err)
			}
			for _, want := range tt.wantInMsg {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestValidateTooManyPoints(t *testing.T) {
	cols := []query.Column{{Name: "x", Type: "REAL"}, {Name: "y", Type: "REAL"}}
	rows := make([]query.Row, MaxScatterPoints+1)
	for i := range rows {
		rows[i] = query.Row{float64(i), float64(i % 7)}
	}
	err := Validate(answer.ChartSpec{Kind: answer.KindScatter, X: "x", Y: "y"}, cols, rows)
	var se *SpecError
	if !errors.As(err, &se) || !errors.Is(err, ErrTooManyPoints) {
		t.Fatalf("Validate = %v, want a *SpecError wrapping ErrTooManyPoints", err)
	}
	if se.Field != "rows" || !strings.Contains(se.Msg, "10,001") {
		t.Errorf("SpecError = %+v, want field rows and the count 10,001", se)
	}
	// Exactly at the limit is fine, and a line of the same rows is
	// downsampled rather than refused.
	if err := Validate(answer.ChartSpec{Kind: answer.KindScatter, X: "x", Y: "y"}, cols, rows[:MaxScatterPoints]); err != nil {
		t.Errorf("scatter of %d points: %v", MaxScatterPoints, err)
	}
	if err := Validate(answer.ChartSpec{Kind: answer.KindLine, X: "x", Y: "y"}, cols, rows); err != nil {
		t.Errorf("line of %d points: %v", len(rows), err)
	}
}

func TestSpecErrorMessage(t *testing.T) {
	e := &SpecError{Field: "y", Msg: "y column \"a\" is TEXT, not numeric", Hint: "pick b"}
	if got, want := e.Error(), `y column "a" is TEXT, not numeric — pick b`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (&SpecError{Msg: "m"}).Error(); got != "m" {
		t.Errorf("Error() without hint = %q, want %q", got, "m")
	}
}

func TestValidateMostlyTextIsNotNumeric(t *testing.T) {
	cols := []query.Column{{Name: "name", Type: "NVARCHAR(200)"}, {Name: "ms", Type: "INTEGER"}}
	rows := []query.Row{{"Balls to the Wall", int64(1)}, {"2112", int64(2)}, {"Fast As a Shark", int64(3)}}
	err := Validate(answer.ChartSpec{Kind: "bar", X: "ms", Y: "name"}, cols, rows)
	if err == nil || !strings.Contains(err.Error(), `y column "name" is NVARCHAR(200), not numeric`) || !strings.Contains(err.Error(), "no other numeric column") {
		t.Fatalf("got %v", err)
	}
}

func TestParseNumber(t *testing.T) {
	ok := map[string]float64{"12": 12, " -3.5 ": -3.5, "1e6": 1e6, "1,234.50": 1234.5, ".5": 0.5, "+7": 7}
	for s, want := range ok {
		if got, isNum := parseNumber(s); !isNum || got != want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", s, got, isNum, want)
		}
	}
	for _, s := range []string{"", "abc", "0x10", "inf", "NaN", "1_000", "12,34", "1.2.3", "1e", "-", "2024-01-02", "1,2345"} {
		if v, isNum := parseNumber(s); isNum {
			t.Errorf("parseNumber(%q) = %v, want not a number", s, v)
		}
	}
}

func TestParseDate(t *testing.T) {
	ok := map[string]time.Time{
		"2024-03":                   time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
		"2024-03-15":                time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC),
		"2024-03-15 13:45:10":       time.Date(2024, 3, 15, 13, 45, 10, 0, time.UTC),
		"2024-03-15T13:45:10Z":      time.Date(2024, 3, 15, 13, 45, 10, 0, time.UTC),
		"2024-03-15 13:45":          time.Date(2024, 3, 15, 13, 45, 0, 0, time.UTC),
		"2009-01-01 00:00:00.000":   time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC),
		"2024-03-15T13:45:10+02:00": time.Date(2024, 3, 15, 11, 45, 10, 0, time.UTC),
	}
	for s, want := range ok {
		got, isDate := parseDate(s)
		if !isDate || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", s, got, isDate, want)
		}
	}
	for _, s := range []string{"2024", "2024-13", "March 2024", "2024/03/15", "12345-01-01", "2024-03-15 25:00:00"} {
		if _, isDate := parseDate(s); isDate {
			t.Errorf("parseDate(%q) is a date, want not", s)
		}
	}
}

func TestSanitize(t *testing.T) {
	tests := map[string]string{
		"plain":                  "plain",
		"two\nlines":             "two lines",
		"esc\x1b[31mred\x1b[0m":  "esc [31mred [0m",
		"  tabs\t\tand  spaces ": "tabs and spaces",
		"bad\xffutf8":            "bad utf8",
	}
	for in, want := range tests {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
