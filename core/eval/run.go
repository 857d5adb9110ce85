package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/trace"
)

// Asker answers a question about a database, in a conversation when conv
// is not empty: core/ask's Service behind a one-line adapter in the CLI.
type Asker interface {
	Ask(ctx context.Context, d *db.DB, question, conv string) (*answer.Bundle, error)
}

// Databases opens the database each case is about, once, and keeps it
// open for the run. It is safe for concurrent use.
type Databases struct {
	// Default is the database of cases without a db (--db), with its
	// label; empty Default with cases that need it is an error.
	Default, DefaultLabel string
	// Dir holds the databases cases name (--db-dir, or the benchmark's
	// own folder): Dir/NAME/NAME.sqlite, Dir/NAME.sqlite or Dir/NAME.db.
	Dir string

	mu   sync.Mutex
	open map[string]*db.DB
}

// Get opens (once) the database of case c.
func (x *Databases) Get(ctx context.Context, name string) (*db.DB, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if d, ok := x.open[name]; ok {
		return d, nil
	}
	path, label, err := x.path(name)
	if err != nil {
		return nil, err
	}
	d, err := db.Open(ctx, path, db.Options{Label: label})
	if err != nil {
		return nil, err
	}
	if x.open == nil {
		x.open = map[string]*db.DB{}
	}
	x.open[name] = d
	return d, nil
}

// ErrNoDatabase means a case's database could not be found.
var ErrNoDatabase = errors.New("database not found")

func (x *Databases) path(name string) (path, label string, err error) {
	if name == "" {
		if x.Default == "" {
			return "", "", fmt.Errorf("%w: the suite's questions name no database; give --db", ErrNoDatabase)
		}
		return x.Default, x.DefaultLabel, nil
	}
	if x.Dir == "" {
		return "", "", fmt.Errorf("%w: a question is about database %q; give --db-dir, the folder that holds it", ErrNoDatabase, name)
	}
	tries := []string{
		filepath.Join(x.Dir, name, name+".sqlite"),
		filepath.Join(x.Dir, name+".sqlite"),
		filepath.Join(x.Dir, name, name+".db"),
		filepath.Join(x.Dir, name+".db"),
	}
	for _, p := range tries {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, name, nil
		}
	}
	return "", "", fmt.Errorf("%w: database %q is not in %s (looked for %s/%s.sqlite and %s.sqlite); give --db-dir", ErrNoDatabase, name, x.Dir, name, name, name)
}

// Close closes every database opened.
func (x *Databases) Close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, d := range x.open {
		d.Close()
	}
	x.open = nil
}

// RunInfo describes a run; it is saved as run.json beside the results so
// that --resume continues the same run and --regrade finds its suite.
type RunInfo struct {
	// Suite is what --suite named, with paths made absolute; Name is how
	// the user wrote it, for reports.
	Suite       string `json:"suite"`
	Name        string `json:"name,omitempty"`
	DB          string `json:"db,omitempty"`
	DBDir       string `json:"db_dir,omitempty"`
	Provider    string `json:"provider,omitempty"`
	Model       string `json:"model,omitempty"`
	Prompt      string `json:"prompt,omitempty"`
	Predictions string `json:"predictions,omitempty"`
	Limit       int    `json:"limit,omitempty"`
	Seed        uint64 `json:"seed,omitempty"`
	Repeat      int    `json:"repeat"`
	// Evidence says whether BIRD's evidence was sent with the questions.
	Evidence bool `json:"evidence"`
	// Questions is how many questions the run asks (after --limit).
	Questions int       `json:"questions"`
	Started   time.Time `json:"started"`
}

// title is how reports name the suite.
func (r RunInfo) title() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Suite
}

// differences reports what differs between the settings of two runs, for a
// resumed run that must continue the run it resumes.
func (r RunInfo) differences(o RunInfo) []string {
	var out []string
	check := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %v (was %v)", name, a, b))
		}
	}
	check("suite", r.Suite, o.Suite)
	check("db", r.DB, o.DB)
	check("db-dir", r.DBDir, o.DBDir)
	check("provider", r.Provider, o.Provider)
	check("model", r.Model, o.Model)
	check("prompt", r.Prompt, o.Prompt)
	check("predictions", r.Predictions, o.Predictions)
	check("limit", r.Limit, o.Limit)
	check("seed", r.Seed, o.Seed)
	check("repeat", max(r.Repeat, 1), max(o.Repeat, 1))
	check("evidence", r.Evidence, o.Evidence)
	return out
}

// LoadRunInfo reads the run.json of a run's directory.
func LoadRunInfo(dir string) (RunInfo, error) {
	var info RunInfo
	err := readJSON(filepath.Join(dir, RunFile), &info)
	return info, err
}

// Options configure Run.
type Options struct {
	// Asker answers the questions; nil when Predictions is set.
	Asker Asker
	// Predictions, when not nil, are scored instead of asking anyone:
	// question id → SQL. A question without a line is "missing"; an empty
	// SQL is an abstention.
	Predictions map[string]string
	DBs         *Databases
	// Concurrency is how many questions are asked at once; default 1.
	Concurrency int
	// Out is the directory the run writes to.
	Out string
	// Resume continues the run in Out.
	Resume bool
	Info   RunInfo
	// Progress, when set, is called after each record is written, from
	// one goroutine at a time.
	Progress func(Progress)
	// MaxErrorsInARow stops the run when that many questions in a row end
	// in an error (a provider down, a bad key); default 5.
	MaxErrorsInARow int
}

// Progress is how far a run is.
type Progress struct {
	// Done counts the records of this run, Total all it will have;
	// Resumed were already there when it started.
	Done, Total, Resumed int
	// Correct counts records right under BIRD's rule so far.
	Correct int
	Elapsed time.Duration
	Last    *Record
}

// ETA is the time the rest of the run should take at this run's pace.
func (p Progress) ETA() time.Duration {
	n := p.Done - p.Resumed
	if n <= 0 {
		return 0
	}
	return time.Duration(float64(p.Elapsed) / float64(n) * float64(p.Total-p.Done))
}

// ErrorsInARowError stops a run whose questions keep failing.
type ErrorsInARowError struct {
	N    int
	Last string
}

func (e *ErrorsInARowError) Error() string {
	return fmt.Sprintf("stopped: %d questions in a row ended in an error (the last: %s); fix the cause and continue with --resume", e.N, e.Last)
}

// Run asks every case Info.Repeat times (or scores Predictions), writing
// one record per answer to Out/results.jsonl as it goes, then the summary
// and the report. When ctx ends, the questions in flight are not recorded
// (a resumed run asks them), the summary and report cover what was done,
// and the error is ctx's.
func Run(ctx context.Context, cases []Case, opt Options) (*Summary, error) {
	if opt.Concurrency <= 0 {
		opt.Concurrency = 1
	}
	if opt.Info.Repeat <= 0 {
		opt.Info.Repeat = 1
	}
	if opt.MaxErrorsInARow <= 0 {
		opt.MaxErrorsInARow = 5
	}
	if opt.Asker == nil && opt.Predictions == nil {
		return nil, errors.New("eval: nothing to score: no asker and no predictions")
	}
	if opt.DBs == nil {
		return nil, errors.New("eval: no databases")
	}
	opt.Info.Questions = len(cases)
	if opt.Resume {
		prev, err := LoadRunInfo(opt.Out)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			if diff := opt.Info.differences(prev); len(diff) > 0 {
				return nil, &ResumeMismatchError{Dir: opt.Out, Diff: diff}
			}
			opt.Info.Started = prev.Started
		}
	}
	out, kept, err := openResults(opt.Out, opt.Resume)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	if opt.Info.Started.IsZero() {
		opt.Info.Started = time.Now().UTC()
	}
	if err := writeJSON(filepath.Join(opt.Out, RunFile), opt.Info); err != nil {
		return nil, fmt.Errorf("write %s: %w", RunFile, err)
	}

	done := map[key]bool{}
	prog := Progress{Total: len(cases) * opt.Info.Repeat}
	for _, r := range kept {
		done[r.key()] = true
	}
	type job struct {
		c       Case
		attempt int
	}
	var jobs []job
	for _, c := range cases {
		for a := 1; a <= opt.Info.Repeat; a++ {
			if done[key{c.ID, a}] {
				prog.Done++
				prog.Resumed++
				continue
			}
			jobs = append(jobs, job{c, a})
		}
	}
	for _, r := range kept {
		if r.Correct {
			prog.Correct++
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := time.Now()
	var (
		mu       sync.Mutex
		inARow   int
		writeErr error
	)
	queue := make(chan job)
	var wg sync.WaitGroup
	for range min(opt.Concurrency, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				rec := opt.one(ctx, j.c, j.attempt)
				if ctx.Err() != nil {
					return // not recorded: a resumed run asks it again
				}
				mu.Lock()
				if err := out.write(rec); err != nil && writeErr == nil {
					writeErr = err
					cancel(err)
				}
				if rec.Status == string(answer.StatusError) {
					inARow++
					if inARow >= opt.MaxErrorsInARow {
						cancel(&ErrorsInARowError{N: inARow, Last: rec.Error})
					}
				} else {
					inARow = 0
				}
				prog.Done++
				if rec.Correct {
					prog.Correct++
				}
				prog.Elapsed, prog.Last = time.Since(start), rec
				if opt.Progress != nil {
					opt.Progress(prog)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if err := out.Close(); err != nil && writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		return nil, fmt.Errorf("write results: %w", writeErr)
	}
	sum, err := Finish(opt.Out, cases, opt.Info)
	if err != nil {
		return nil, err
	}
	if cause := context.Cause(ctx); cause != nil {
		return sum, cause
	}
	return sum, nil
}

// ResumeMismatchError means --resume was given settings that differ from
// the run it would continue.
type ResumeMismatchError struct {
	Dir  string
	Diff []string
}

func (e *ResumeMismatchError) Error() string {
	return fmt.Sprintf("%s holds a run with other settings: %s; --resume continues a run with its own settings (leave them out), or choose another --out", e.Dir, joinList(e.Diff))
}

func joinList(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// Finish reads the records of the run in dir back and writes its summary
// and report; cases gives the suite order and the questions the run asks.
func Finish(dir string, cases []Case, info RunInfo) (*Summary, error) {
	recs, _, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		return nil, err
	}
	sum := Summarize(cases, recs, info)
	if err := writeJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		return nil, fmt.Errorf("write %s: %w", SummaryFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ReportFile), []byte(sum.Markdown()), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", ReportFile, err)
	}
	return sum, nil
}

// one asks (or looks up) case c once and scores the answer.
func (opt *Options) one(ctx context.Context, c Case, attempt int) *Record {
	rec := &Record{ID: c.ID, Attempt: attempt, Question: c.Question, DB: c.DB, Difficulty: c.Difficulty, Set: c.Set,
		Expect: c.Expect, GoldSQL: c.GoldSQL, PromptVersion: opt.Info.Prompt, TraceID: trace.NewID()}
	defer func() { rec.Time = time.Now().UTC() }()
	d, err := opt.DBs.Get(ctx, c.DB)
	if err != nil {
		rec.Status, rec.Outcome, rec.Error = string(answer.StatusError), OutcomeFailed, err.Error()
		return rec
	}
	if c.check != nil {
		opt.runBehaviour(ctx, d, c, rec)
		return rec
	}
	if opt.Predictions != nil {
		sql, ok := opt.Predictions[c.ID]
		if !ok {
			rec.Status, rec.Outcome, rec.Note = StatusMissing, OutcomeFailed, "no prediction for this id"
			return rec
		}
		rec.SQL = sql
		status := answer.StatusAnswered
		if sql == "" {
			status = answer.StatusRefused
		}
		score(ctx, d, d, c, status, rec)
		return rec
	}
	b, err := opt.ask(ctx, d, c.Prompt(), "", rec)
	if err != nil {
		return rec
	}
	rec.SQL = b.SQL
	score(ctx, d, d, c, b.Status, rec)
	return rec
}

// ask asks one question with rec's trace id in ctx (so the model-call and
// tool-call lines of the trace carry it) and copies what the bundle says
// about cost, time and who answered into rec. An error leaves rec failed.
func (opt *Options) ask(ctx context.Context, d *db.DB, question, conv string, rec *Record) (*answer.Bundle, error) {
	ctx = llm.WithCallTags(ctx, llm.CallTags{TraceID: rec.TraceID})
	t0 := time.Now()
	b, err := opt.Asker.Ask(ctx, d, question, conv)
	rec.LatencyMS += math.Round(float64(time.Since(t0).Microseconds())/10) / 100
	if b != nil {
		rec.Answer = format.ClipRunes(b.Answer, 500)
		addUsage(&rec.Usage, b.Usage)
		rec.Timings.TotalMS += b.Timings.TotalMS
		rec.Timings.ModelMS += b.Timings.ModelMS
		rec.Timings.SQLMS += b.Timings.SQLMS
		rec.Provider, rec.Model = b.Provider, b.Model
		if b.TraceID != "" {
			rec.TraceID = b.TraceID
		}
		if b.PromptVersion != "" {
			rec.PromptVersion = b.PromptVersion
		}
	}
	if err == nil && b == nil {
		err = errors.New("no answer")
	}
	if err != nil {
		rec.Status, rec.Outcome, rec.Error = string(answer.StatusError), OutcomeFailed, err.Error()
		return nil, err
	}
	if b.Status == answer.StatusError {
		rec.Error = b.Error
		if rec.Error == "" {
			rec.Error = b.Answer
		}
	}
	return b, nil
}

func addUsage(u *answer.Usage, v answer.Usage) {
	u.ModelCalls += v.ModelCalls
	u.ToolCalls += v.ToolCalls
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CostUSD += v.CostUSD
	u.MaxRequestBytes = max(u.MaxRequestBytes, v.MaxRequestBytes)
}
