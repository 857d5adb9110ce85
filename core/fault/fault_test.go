package fault_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tools"
)

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		err             error
		kind            fault.Kind
		msg, hint, line string
	}{
		{&guard.Rejection{What: "DELETE", Reason: "DELETE is not allowed", Hint: "only SELECT"}, fault.Refused,
			"DELETE is not allowed", "only SELECT", "DELETE is not allowed — only SELECT"},
		{fmt.Errorf("run: %w", &guard.SQLError{Msg: "no such table: custmers", Hint: "did you mean customers?"}), fault.Database,
			"no such table: custmers", "did you mean customers?", "no such table: custmers — did you mean customers?"},
		{&query.LimitError{Kind: "deadline", Msg: "query stopped at the 5s deadline", Hint: "add a LIMIT"}, fault.Limit,
			"query stopped at the 5s deadline", "add a LIMIT", "query stopped at the 5s deadline — add a LIMIT"},
		{&tools.NotFoundError{Kind: "table", Name: "custmers", Nearest: []string{"customers"}}, fault.Usage,
			"no such table: custmers", "did you mean customers? (list_tables shows every table)",
			"no such table: custmers — did you mean customers? (list_tables shows every table)"},
		{&chartspec.SpecError{Field: "y", Msg: `y column "a" is TEXT, not numeric`, Hint: "pick b"}, fault.Usage,
			`y column "a" is TEXT, not numeric`, "pick b", `y column "a" is TEXT, not numeric — pick b`},
		{fmt.Errorf("wrapped: %w", guard.ErrEmpty), fault.Usage,
			"wrapped: " + guard.ErrEmpty.Error(), "give one SELECT, WITH or VALUES statement", ""},
		{fmt.Errorf("%w: x.db", engine.ErrNotFound), fault.Usage, engine.ErrNotFound.Error() + ": x.db", "", engine.ErrNotFound.Error() + ": x.db"},
		{&export.FormatError{Format: "xml"}, fault.Usage, `unknown format "xml"`, "choose csv, json, jsonl, markdown", `unknown format "xml" — choose csv, json, jsonl, markdown`},
		{fault.New(fault.Limit, "server busy", "retry"), fault.Limit, "server busy", "retry", "server busy — retry"},
		{fmt.Errorf("%w: fifo", engine.ErrBadPath), fault.Usage, engine.ErrBadPath.Error() + ": fifo", "", engine.ErrBadPath.Error() + ": fifo"},
		{fmt.Errorf("%w: x.db-journal", engine.ErrNeedsOwner), fault.Database, engine.ErrNeedsOwner.Error() + ": x.db-journal", "", engine.ErrNeedsOwner.Error() + ": x.db-journal"},
		{fmt.Errorf("connect to db.example.com:5432: %w", engine.ErrUnavailable), fault.Database, "connect to db.example.com:5432: " + engine.ErrUnavailable.Error(), "", ""},
		{fmt.Errorf("call: %w", context.DeadlineExceeded), fault.Limit, "the request ran out of time", "ask for less: aggregate or filter in SQL", ""},
		{fmt.Errorf("query cancelled: %w", context.Canceled), fault.Canceled, "the request was cancelled", "", "the request was cancelled"},
		{errors.New("boom"), fault.Internal, "boom", "", "boom"},
	} {
		kind, msg, hint := fault.Explain(tc.err)
		if kind != tc.kind || msg != tc.msg || hint != tc.hint {
			t.Errorf("Explain(%v) = %v, %q, %q; want %v, %q, %q", tc.err, kind, msg, hint, tc.kind, tc.msg, tc.hint)
		}
		if tc.line != "" && fault.Line(tc.err) != tc.line {
			t.Errorf("Line(%v) = %q, want %q", tc.err, fault.Line(tc.err), tc.line)
		}
		// Error() keeps "message — hint" for plain Go use, and says the
		// hint once: Explain does not need to take it apart.
		if tc.line != "" && errors.Unwrap(tc.err) == nil {
			if got := tc.err.Error(); got != tc.line {
				t.Errorf("%T.Error() = %q, want %q", tc.err, got, tc.line)
			}
		}
	}
	if kind, msg, hint := fault.Explain(nil); kind != fault.Internal || msg != "" || hint != "" {
		t.Errorf("Explain(nil) = %v, %q, %q", kind, msg, hint)
	}
}

// TestExplainClipsLongNames: a name the user gave, echoed in a message or
// a hint, is shown by its start and its length, for every kind of error,
// and Line says the same.
func TestExplainClipsLongNames(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	shown := format.ClipRunes(long, format.ShownWord) + " (100,000 characters)"
	for _, err := range []error{
		&guard.SQLError{Msg: "no such table: " + long, Hint: "did you mean " + long + "?"},
		&guard.Rejection{Reason: "no such table: " + long, Hint: "did you mean " + long + "?"},
		&tools.NotFoundError{Kind: "table", Name: long, Nearest: []string{long}},
		fault.New(fault.Usage, "no such table: "+long, "did you mean "+long+"?"),
		errors.New("no such table: " + long + " — did you mean " + long + "?"),
	} {
		_, msg, hint := fault.Explain(err)
		if line := fault.Line(err); len(line) > 1000 || !strings.Contains(line, "no such table: "+shown) || !strings.Contains(line, "did you mean "+shown) {
			t.Errorf("%T: message %.300q, hint %.300q", err, msg, hint)
		}
	}
}
