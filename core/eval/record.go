package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/atomicfile"
)

// Files a run writes in its output directory.
const (
	ResultsFile = "results.jsonl"
	SummaryFile = "summary.json"
	ReportFile  = "report.md"
	RunFile     = "run.json"
)

// Outcomes of a question, apart from whether it was right.
const (
	// OutcomeAnswered: an answer resting on SQL; the rules judge it.
	OutcomeAnswered = "answered"
	// OutcomeAbstained: refused, asked back, or answered without running
	// any SQL. Never counted as a wrong answer.
	OutcomeAbstained = "abstained"
	// OutcomeFailed: no answer (provider error, budget, no prediction).
	OutcomeFailed = "failed"
	// OutcomeInvalid: the gold SQL itself failed; the question is left
	// out of every figure and listed in the report.
	OutcomeInvalid = "invalid"
)

// Statuses a record has beyond answer.Status.
const (
	// StatusMissing: --predictions had no line for the question.
	StatusMissing = "missing"
)

// Record is one line of results.jsonl: one question asked once.
type Record struct {
	ID         string `json:"id"`
	Attempt    int    `json:"attempt"` // 1…--repeat
	Question   string `json:"question"`
	DB         string `json:"db,omitempty"`
	Difficulty string `json:"difficulty,omitempty"`
	Set        string `json:"set,omitempty"`
	Expect     string `json:"expect,omitempty"`
	// SQL is what the answer rests on (the prediction).
	SQL     string `json:"sql"`
	GoldSQL string `json:"gold_sql,omitempty"`
	// Status is how the question ended (answer.Status, or "missing").
	Status  string `json:"status"`
	Outcome string `json:"outcome"`
	Verdict
	// Ordered says whether the rules compared rows in order; Top whether
	// the lenient ranking rule applied.
	Ordered  bool   `json:"ordered"`
	Top      bool   `json:"top,omitempty"`
	GoldRows int    `json:"gold_rows"`
	PredRows int    `json:"pred_rows"`
	Error    string `json:"error"`
	// Note says why a question is not right, in words.
	Note    string         `json:"note,omitempty"`
	Answer  string         `json:"answer,omitempty"`
	Usage   answer.Usage   `json:"usage"`
	Timings answer.Timings `json:"timings"`
	// LatencyMS is the wall time of asking, in milliseconds (0 for
	// scored predictions).
	LatencyMS     float64   `json:"latency_ms"`
	TraceID       string    `json:"trace_id"`
	PromptVersion string    `json:"prompt_version"`
	Provider      string    `json:"provider,omitempty"`
	Model         string    `json:"model,omitempty"`
	Time          time.Time `json:"time"`
}

// key names a record among a run's: a question and its attempt.
type key struct {
	id      string
	attempt int
}

func (r *Record) key() key { return key{r.ID, r.Attempt} }

// ReadResults reads a results file. A last line cut short (the run was
// killed while writing it) is ignored; valid reports how many bytes hold
// whole records, so a resumed run can cut the rest off.
func ReadResults(path string) (recs []Record, valid int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			// No newline: the run died mid-write.
			return recs, valid, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read %s: %w", path, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var r Record
			if err := json.Unmarshal(t, &r); err != nil {
				return nil, 0, fmt.Errorf("read %s: line %d: %w", path, len(recs)+1, err)
			}
			recs = append(recs, r)
		}
		valid += int64(len(line))
	}
}

// resultsFile appends records as JSON lines, one Write each, so a killed
// run leaves at most one partial line (which ReadResults ignores).
type resultsFile struct {
	mu sync.Mutex
	f  *os.File
}

// openResults opens dir's results file. Without resume it must not hold
// records yet. With resume, the records kept are returned: a partial last
// line is cut off, and records of questions that ended in an error, or
// that appear twice, are dropped (the file is rewritten) so that they are
// asked again and every question ends with exactly one record.
func openResults(dir string, resume bool) (*resultsFile, []Record, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create the output directory: %w", err)
	}
	path := filepath.Join(dir, ResultsFile)
	var kept []Record
	recs, _, err := ReadResults(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, nil, err
	case !resume && len(recs) > 0:
		return nil, nil, &ExistingRunError{Dir: dir, Records: len(recs)}
	default:
		seen := map[key]bool{}
		for _, r := range recs {
			if seen[r.key()] || r.Status == string(answer.StatusError) {
				continue
			}
			seen[r.key()] = true
			kept = append(kept, r)
		}
	}
	var buf bytes.Buffer
	for i := range kept {
		line, err := json.Marshal(&kept[i])
		if err != nil {
			return nil, nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &resultsFile{f: f}, kept, nil
}

func (w *resultsFile) write(r *Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(line)
	return err
}

func (w *resultsFile) Close() error {
	if err := w.f.Sync(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

// ExistingRunError means the output directory already holds a run.
type ExistingRunError struct {
	Dir     string
	Records int
}

func (e *ExistingRunError) Error() string {
	return fmt.Sprintf("%s already holds a run (%d records): continue it with --resume, or choose another --out", e.Dir, e.Records)
}

// writeJSON writes v to path atomically, indented.
func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(raw, '\n'), 0o644)
}

// readJSON reads path into v.
func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
