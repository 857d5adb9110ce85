package offline

import (
	"reflect"
	"strings"
	"testing"
)

func lows(toks []token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.low
	}
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"How many customers are there?", []string{"how", "many", "customers", "are", "there"}},
		{"What's the customer's average?", []string{"what", "is", "the", "customer", "average"}},
		{"Which orders don't have a promo code", []string{"which", "orders", "do", "not", "have", "a", "promo", "code"}},
		{"the customers' orders", []string{"the", "customers", "orders"}},
		{"Décor in São Paulo", []string{"decor", "in", "sao", "paulo"}},
		{"Bedding & Bath", []string{"bedding", "and", "bath"}},
		{"AC/DC albums", []string{"ac", "/", "dc", "albums"}},
		{"over $1,000.50 in 2024", []string{"over", "1,000.50", "in", "2024"}},
		{"mobile_app orders", []string{"mobile", "app", "orders"}},
		{"東京 customers", []string{"東京", "customers"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := lows(tokenize(tt.in)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTokenizeNumbersAndQuotes(t *testing.T) {
	toks := tokenize(`Top ten tracks on 'Let There Be Rock' over 1,000.5 in 2024`)
	byLow := map[string]token{}
	for _, tk := range toks {
		byLow[tk.low] = tk
	}
	if tk := byLow["ten"]; !tk.isNum || tk.num != 10 || !tk.numWord {
		t.Errorf("ten: %+v, want the number word 10", tk)
	}
	if tk := byLow["1,000.5"]; !tk.isNum || tk.num != 1000.5 {
		t.Errorf("1,000.5: %+v, want 1000.5", tk)
	}
	if tk := byLow["2024"]; !isYear(tk) {
		t.Errorf("2024 is not read as a year")
	}
	var quoted []string
	for _, tk := range toks {
		if tk.quote > 0 {
			quoted = append(quoted, tk.raw)
		}
	}
	if got := strings.Join(quoted, " "); got != "Let There Be Rock" {
		t.Errorf("quoted phrase = %q", got)
	}
	// Offsets point into the normalised question.
	q := normQuestion(`Top ten tracks on 'Let There Be Rock' over 1,000.5 in 2024`)
	for _, tk := range toks {
		if tk.end <= tk.pos || q[tk.pos:tk.end] != tk.raw {
			t.Errorf("token %q has span %d:%d = %q", tk.raw, tk.pos, tk.end, q[tk.pos:min(tk.end, len(q))])
		}
	}
}

// Inflections of one word must share a stem; different words must not.
func TestStem(t *testing.T) {
	same := [][]string{
		{"category", "categories"},
		{"country", "countries"},
		{"ship", "shipped", "shipping", "ships"},
		{"hire", "hired", "hiring"},
		{"order", "orders", "ordered", "ordering"},
		{"price", "prices", "priced"},
		{"invoice", "invoices", "invoiced"},
		{"bill", "billed", "billing"},
		{"box", "boxes"},
		{"address", "addresses"},
		{"employee", "employees"},
		{"rating", "ratings", "rated", "rate"},
		{"birth", "born"},
		{"person", "people"},
	}
	for _, g := range same {
		want := stem(g[0])
		for _, w := range g[1:] {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, want %q (as stem(%q))", w, got, want, g[0])
			}
		}
	}
	for _, pair := range [][2]string{{"status", "state"}, {"ship", "shipper"}, {"city", "cite"}, {"order", "border"}} {
		if stem(pair[0]) == stem(pair[1]) {
			t.Errorf("stem(%q) == stem(%q) = %q", pair[0], pair[1], stem(pair[0]))
		}
	}
}

func TestSplitName(t *testing.T) {
	tests := map[string][]string{
		"BillingCountry":   {"billing", "country"},
		"unit_price":       {"unit", "price"},
		"promo codes":      {"promo", "codes"},
		"HTTPStatus":       {"http", "status"},
		"address2":         {"address", "2"},
		"MediaTypeId":      {"media", "type", "id"},
		"marketing_opt_in": {"marketing", "opt", "in"},
		"Order Details":    {"order", "details"},
	}
	for in, want := range tests {
		if got := splitName(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextKey(t *testing.T) {
	pairs := [][2]string{
		{"Bedding & Bath", "bedding and bath"},
		{"mobile_app", "Mobile App"},
		{"Décor", "decor"},
		{"MPEG audio file", "MPEG audio files"},
		{"AC/DC", "ac dc"},
	}
	for _, p := range pairs {
		if textKey(p[0]) != textKey(p[1]) {
			t.Errorf("textKey(%q) = %q, textKey(%q) = %q; want equal", p[0], textKey(p[0]), p[1], textKey(p[1]))
		}
	}
	if textKey("Rock") == textKey("Rock And Roll") {
		t.Error("Rock and Rock And Roll share a key")
	}
}

func TestWordMatch(t *testing.T) {
	tests := []struct {
		q, s string
		min  float64
		max  float64
	}{
		{"customer", "customer", 1, 1},
		{stem("clients"), stem("customer"), 0.85, 0.85},
		{stem("staff"), stem("employees"), 0.85, 0.85},
		{stem("cost"), stem("price"), 0.85, 0.85},
		{stem("shipped"), stem("shipper"), 0.7, 0.7},
		{stem("supplied"), stem("supplier"), 0.7, 0.85},
		{stem("country"), stem("city"), 0, 0},
	}
	for _, tt := range tests {
		if got := wordMatch(tt.q, tt.s); got < tt.min || got > tt.max {
			t.Errorf("wordMatch(%q, %q) = %v, want in [%v, %v]", tt.q, tt.s, got, tt.min, tt.max)
		}
	}
}
