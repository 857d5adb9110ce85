package postgres

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/guard"
)

// vetPlanDecoded is vetPlan as it was written over json.Unmarshal into
// maps (its check of a string was what vetPlanText is): the reference the in-place reading must agree with. A map's
// members are walked in random order, so when a plan holds several
// refusals it may return any of them.
func vetPlanDecoded(planJSON []byte, sql string, loc *local) error {
	var plans any
	if err := json.Unmarshal(planJSON, &plans); err != nil {
		return fmt.Errorf("read the plan: %w", err)
	}
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case map[string]any:
			switch x["Node Type"] {
			case "ModifyTable":
				r := refuse(sql)
				if op, ok := x["Operation"].(string); ok {
					r.What = "WITH … " + strings.ToUpper(op)
					r.Reason = r.What + " is not allowed: the database is read-only"
				}
				return r
			case "LockRows":
				return &guard.Rejection{What: "SELECT … FOR UPDATE", Reason: "locking rows (FOR UPDATE, FOR SHARE) is not allowed: the database is read-only", Hint: "drop the FOR UPDATE/FOR SHARE clause"}
			}
			if f, ok := x["Function Name"].(string); ok {
				if err := deniedCall([]token{{kind: 'w', text: strings.ToLower(f)}, {kind: 'p', text: "("}}, "the statement's plan", loc); err != nil {
					return err
				}
			}
			for k, e := range x {
				if k == "Function Name" {
					continue
				}
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		case string:
			return vetPlanText(x, loc)
		}
		return nil
	}
	return walk(plans)
}

// planLocal has a local function, operator and type for the plans below
// to name.
var planLocal = &local{
	opaque: map[string]bool{"mine": true},
	ops:    map[string]string{"###": "op_fn"},
	types:  map[string]string{"evil_t": "cast_fn"},
}

// viewsLocal has only a view that reaches a function: plain plan
// strings must still be looked at for its name.
var viewsLocal = &local{views: map[string]string{"guarded_v": "mine"}}

// samePlanVerdict fails unless vetPlan returns what vetPlanDecoded does
// on plan, with and without local names: no error, or an error it can
// return (its own in one of many runs).
func samePlanVerdict(t *testing.T, plan []byte) {
	t.Helper()
	for _, loc := range []*local{nil, planLocal, viewsLocal} {
		got := vetPlan(plan, "SELECT 1", loc)
		var seen []string
	runs:
		for range 40 {
			want := vetPlanDecoded(plan, "SELECT 1", loc)
			if (got == nil) != (want == nil) {
				t.Fatalf("plan %s (local %v): vetPlan %v, decoded %v", plan, loc != nil, got, want)
			}
			if want == nil {
				break runs
			}
			if w := fmt.Sprintf("%T %+v", want, want); !slices.Contains(seen, w) {
				seen = append(seen, w)
			}
		}
		if g := fmt.Sprintf("%T %+v", got, got); got != nil && !slices.Contains(seen, g) {
			t.Fatalf("plan %s (local %v): vetPlan %s, decoded only %v", plan, loc != nil, g, seen)
		}
	}
}

var planSeeds = []string{
	`[{"Plan": {"Node Type": "Index Scan", "Output": ["oid", "relname"], "Index Cond": "(pg_class.oid = '1259'::oid)", "Plan Rows": 1, "Parallel Aware": false}}]`,
	`[{"Plan": {"Node Type": "ModifyTable", "Operation": "Insert", "Plans": [{"Node Type": "Result", "Output": ["pg_sleep(1)"]}]}}]`,
	`[{"Plan": {"Output": ["pg_sleep(1)"], "Node Type": "ModifyTable"}}]`,
	`[{"Plan": {"Node Type": "LockRows", "Plans": [{"Node Type": "Seq Scan"}]}}]`,
	`[{"Plan": {"Node Type": "Function Scan", "Function Name": "PG_SLEEP"}}]`,
	`[{"Plan": {"Node Type": "Function Scan", "Function Name": "mine", "Output": ["x"]}}]`,
	`[{"Plan": {"Node Type": "Function Scan", "Function Name": 7, "Output": ["x"]}}]`,
	`{"Node Type": "ModifyTable", "Node Type": "Result"}`,
	`{"Node Type": "Result", "Node Type": "ModifyTable", "Operation": "Delete", "Operation": 3}`,
	`{"Node\u0020Type": "Modify\u0054able", "Operation": "upd\u0061te"}`,
	`{"Function\u0020Name": "pg_sleep"}`,
	`{"Function Name": "x(pg_sleep(1))", "Output": ["y"]}`,
	`{"Function Name": ["pg_sleep(1)"]}`,
	`{"Function Name": "pg_sleep", "Function Name": "abs"}`,
	`{"Function Name": "abs", "Function Name": "pg_sleep"}`,
	`{"Filter": "x \u0028 pg_sleep\u0028 1)"}`,
	`{"Filter": "pg_sleep` + "\xff" + `(1)"}`,
	`{"Filter": "a ### b"}`,
	`{"Filter": "x::evil_t"}`,
	`[{"Plan": {"Node Type": "Seq Scan", "Relation Name": "guarded_v"}}]`,
	`{"Filter": "x::\"EVIL_T\""}`,
	`{"Output": ["mine(1)", "abs(2)"], "Output": ["abs(3)"]}`,
	`"pg_sleep(1)"`,
	` [ 1, true, null, -2.5e3, "mine ( 2 )" ] `,
	`[]`, `{}`, `1`, `null`,
	`[{"Plan": {"Node Type": "ModifyTable", "Plan Rows": 1e400}}]`,
	`{"Function Name": [1e309], "Output": ["x"]}`,
	`{"Function Name": {"a": -2e308}}`,
	`[1e-400, -0, 0.5e+3, 123456789012345678901234567890]`,
	`[{"Plan": {"Node Type": "Result"`,
	`{"a": 1,}`,
	``,
}

func TestVetPlanReadsAsDecoded(t *testing.T) {
	for _, s := range planSeeds {
		samePlanVerdict(t, []byte(s))
	}
	// A deep plan (a join of 1,500 tables nests as deep), with what is
	// refused at the bottom: each byte is read once, not once per level.
	node := `{"Node Type": "Nested Loop", "Output": ["a.x", "b.y"], "Filter": "(a.x = b.y)", "Plans": [`
	samePlanVerdict(t, []byte("["+strings.Repeat(node, 1500)+`{"Node Type": "LockRows"}`+strings.Repeat("]}", 1500)+"]"))
	// Random plans made of the keys and values the guard looks at.
	r := rand.New(rand.NewSource(1))
	keys := []string{`"Node Type"`, `"Operation"`, `"Function Name"`, `"Plans"`, `"Output"`, `"Filter"`, `"Node\u0020Type"`, `"Function\u0020Name"`, `"Plan"`}
	strs := []string{`"ModifyTable"`, `"LockRows"`, `"Insert"`, `"Seq Scan"`, `"pg_sleep"`, `"mine"`, `"abs"`, `"abs(x)"`, `"pg_sleep(1)"`,
		`"pg_sleep\u0028"`, `"Modify\u0054able"`, `"a ### b"`, `"x::evil_t"`, `"mine (x)"`, `"\"mine\"(x)"`, `"x ( y"`, "\"\xfe(\"", `""`}
	var gen func(depth int) string
	gen = func(depth int) string {
		switch n := r.Intn(10); {
		case n < 3 && depth < 4:
			var b strings.Builder
			b.WriteString("{")
			for i := range r.Intn(5) {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(keys[r.Intn(len(keys))] + ": " + gen(depth+1))
			}
			return b.String() + "}"
		case n < 5 && depth < 4:
			parts := make([]string, r.Intn(4))
			for i := range parts {
				parts[i] = gen(depth + 1)
			}
			return "[" + strings.Join(parts, ",") + "]"
		case n < 9:
			return strs[r.Intn(len(strs))]
		default:
			return []string{"1", "true", "null", "2.5", "-1e400", "1e-400"}[r.Intn(6)]
		}
	}
	for range 3000 {
		samePlanVerdict(t, []byte(gen(0)))
	}
}

func FuzzVetPlan(f *testing.F) {
	for _, s := range planSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(samePlanVerdict)
}

// pointPlan is what EXPLAIN (VERBOSE, FORMAT JSON) prints for the point
// query of BenchmarkPointQuery.
const pointPlan = `[
  {
    "Plan": {
      "Node Type": "Index Scan",
      "Parallel Aware": false,
      "Async Capable": false,
      "Scan Direction": "Forward",
      "Index Name": "customers_pkey",
      "Relation Name": "customers",
      "Schema": "public",
      "Alias": "customers",
      "Startup Cost": 0.28,
      "Total Cost": 8.30,
      "Plan Rows": 1,
      "Plan Width": 105,
      "Output": ["customer_id", "name", "email", "phone", "type", "company", "city", "country_id", "signup_date", "marketing_opt_in"],
      "Index Cond": "(customers.customer_id = 7)"
    }
  }
]`

// BenchmarkVetPlan is the plan check of one point query, read in place
// (inPlace) and decoded into maps as it was (decoded).
func BenchmarkVetPlan(b *testing.B) {
	for _, v := range []struct {
		name string
		vet  func([]byte, string, *local) error
	}{{"inPlace", vetPlan}, {"decoded", vetPlanDecoded}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := v.vet([]byte(pointPlan), "SELECT 1", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRedactErrHidesThePassword: connecting passes the configuration's
// password itself, which a driver's error may hold as it is; it is hidden,
// and so is a URL's.
func TestRedactErrHidesThePassword(t *testing.T) {
	err := errors.New("auth failed for password S3cret/Pw?x at postgres://u:An0ther@h:5432/db")
	got := redactErr(err, "S3cret/Pw?x")
	if strings.Contains(got, "S3cret") || strings.Contains(got, "An0ther") || !strings.Contains(got, "xxxxx") {
		t.Errorf("redactErr: %q", got)
	}
}

func TestURLPassword(t *testing.T) {
	if p := urlPassword("postgres://u:p%40ss@h/db"); p != "p@ss" {
		t.Errorf("urlPassword: %q, want the decoded p@ss", p)
	}
}
