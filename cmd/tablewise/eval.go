package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/eval"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/data"
)

// evalOptions are the flags of tablewise eval.
type evalOptions struct {
	suite, dbPath, dbDir, out, predictions string
	regrade, compare                       string
	mf                                     modelFlags
	limit                                  int
	seed                                   uint64
	concurrency, repeat                    int
	resume, evidence                       bool
	format                                 string
	minAccuracy, minStrict, minPrecision   float64
}

const evalUsage = `tablewise eval --suite FILE.jsonl|bird:DIR|spider:DIR|behaviours [flags]
tablewise eval --regrade DIR [--out DIR2]
tablewise eval --compare DIR_A DIR_B`

func runEval(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("eval")
	var o evalOptions
	fs.StringVar(&o.suite, "suite", "", "questions: a JSON Lines file, bird:DIR or spider:DIR (your download), or behaviours (the built-in behaviour suite)")
	dbFlag(fs, &o.dbPath)
	fs.StringVar(&o.dbDir, "db-dir", "", "folder holding the databases the questions name (NAME/NAME.sqlite or NAME.sqlite); default: the benchmark's own")
	o.mf.register(fs)
	fs.IntVar(&o.limit, "limit", 0, "ask only this many questions (after --seed shuffles them)")
	fs.Uint64Var(&o.seed, "seed", 0, "shuffle the questions with this seed before --limit (0: suite order)")
	fs.IntVar(&o.concurrency, "concurrency", 1, "questions asked at once")
	fs.IntVar(&o.repeat, "repeat", 1, "ask each question this many times (pass@k and pass^k)")
	fs.StringVar(&o.out, "out", "", "output directory for results.jsonl, report.md, summary.json and run.json (default: eval-runs/SUITE-TIME)")
	fs.BoolVar(&o.resume, "resume", false, "continue the interrupted run in --out with its own settings")
	fs.StringVar(&o.predictions, "predictions", "", "score these predictions ({\"id\",\"sql\"} lines, or BIRD's predict file) instead of asking")
	fs.BoolVar(&o.evidence, "evidence", true, "send BIRD's evidence with each question")
	fs.StringVar(&o.regrade, "regrade", "", "score the stored predictions of the run in this directory again with the current rules, asking no one")
	fs.StringVar(&o.compare, "compare", "", "list the questions whose outcome changed between the run in this directory and the one named next")
	fs.StringVar(&o.format, "format", "text", "text or json (the summary)")
	fs.Float64Var(&o.minAccuracy, "min-accuracy", 0, "exit 1 when execution accuracy (BIRD's rule; for behaviours, the share passed) is below this fraction")
	fs.Float64Var(&o.minStrict, "min-strict", 0, "exit 1 when strict execution accuracy (Spider test-suite rule) is below this fraction")
	fs.Float64Var(&o.minPrecision, "min-precision", 0, "exit 1 when precision (right / answered) is below this fraction")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := textOrJSON(fs, o.format); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case o.compare != "":
		if len(pos) != 1 {
			return usagef("eval: --compare takes two run directories: --compare DIR_A DIR_B")
		}
		return evalCompare(o.compare, pos[0], o.format, s)
	case len(pos) > 0:
		return usagef("eval: unexpected argument %q\n\n%s\n\n%s", pos[0], evalUsage, flagHelp(fs))
	case o.regrade != "":
		return evalRegrade(ctx, o, set, s)
	}
	if o.resume {
		if o.out == "" {
			return usagef("eval: --resume needs --out, the directory of the run to continue")
		}
		if err := o.fromRun(set); err != nil {
			return err
		}
	}
	if o.suite == "" {
		return usagef("eval: give --suite\n\n%s\n\n%s", evalUsage, flagHelp(fs))
	}
	if o.repeat < 1 || o.concurrency < 1 || o.limit < 0 {
		return usagef("eval: --repeat and --concurrency must be at least 1, --limit at least 0")
	}
	return evalRun(ctx, o, s)
}

// fromRun fills the flags the user left out from the run being resumed.
func (o *evalOptions) fromRun(set map[string]bool) error {
	info, err := eval.LoadRunInfo(o.out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing to resume: a fresh run
	}
	if err != nil {
		return err
	}
	fill := func(name string, dst *string, v string) {
		if !set[name] {
			*dst = v
		}
	}
	fill("suite", &o.suite, info.Suite)
	fill("db", &o.dbPath, info.DB)
	fill("db-dir", &o.dbDir, info.DBDir)
	fill("predictions", &o.predictions, info.Predictions)
	fill("prompt", &o.mf.prompt, info.Prompt)
	if !set["provider"] && info.Predictions == "" {
		o.mf.provider = info.Provider
	}
	if !set["model"] && info.Model != "" {
		o.mf.model = info.Model
	}
	if !set["limit"] {
		o.limit = info.Limit
	}
	if !set["seed"] {
		o.seed = info.Seed
	}
	if !set["repeat"] {
		o.repeat = info.Repeat
	}
	if !set["evidence"] {
		o.evidence = info.Evidence
	}
	return nil
}

func evalRun(ctx context.Context, o evalOptions, s *streams) error {
	suite, err := eval.LoadSuite(o.suite)
	if err != nil {
		return usagef("eval: %v", err)
	}
	if suite.Behaviours && (o.dbPath != "" || o.predictions != "") {
		return usagef("eval: the behaviour suite asks its own questions of the built-in sample database; leave out --db and --predictions")
	}
	info := eval.RunInfo{Suite: absSuite(o.suite), Name: o.suite, DB: absPath(o.dbPath), DBDir: absPath(o.dbDir), Limit: o.limit, Seed: o.seed, Repeat: o.repeat, Evidence: o.evidence}
	cases := eval.Select(suite.Cases, o.limit, o.seed)
	if !o.evidence {
		for i := range cases {
			cases[i].Evidence = ""
		}
	}
	dbs, err := evalDatabases(o.dbPath, o.dbDir, suite.DBDir)
	if err != nil {
		return err
	}
	defer dbs.Close()
	opt := eval.Options{DBs: dbs, Concurrency: o.concurrency, Resume: o.resume}
	if o.predictions != "" {
		info.Predictions = absPath(o.predictions)
		if opt.Predictions, err = eval.LoadPredictions(o.predictions, suite.Cases); err != nil {
			return usagef("eval: %v", err)
		}
	} else {
		// A --trace file must not be a database the questions are
		// about: the one --db names or one of --db-dir's. The trace is
		// appended to.
		var traced []*db.DB
		if o.mf.trace != "" {
			if traced, err = caseDatabases(ctx, dbs, cases); err != nil {
				return err
			}
		}
		svc, err := newAskService(o.mf, s.getenv, ask.NewMemory(0, 0), traced...)
		if err != nil {
			return err
		}
		defer svc.Close()
		info.Provider, info.Model = svc.Provider()
		info.Prompt = svc.Prompt()
		opt.Asker = serviceAsker{svc}
	}
	if o.out == "" {
		o.out = filepath.Join("eval-runs", runName(o.suite)+"-"+time.Now().Format("20060102-150405"))
	}
	opt.Out, opt.Info = o.out, info
	bar := &progressBar{w: s}
	if s.errTTY {
		opt.Progress = bar.show
	}
	sum, err := eval.Run(ctx, cases, opt)
	bar.clear()
	var (
		existing *eval.ExistingRunError
		mismatch *eval.ResumeMismatchError
	)
	switch {
	case errors.As(err, &existing), errors.As(err, &mismatch), errors.Is(err, eval.ErrNoDatabase):
		return usagef("eval: %v", err)
	case sum == nil:
		return err
	}
	if perr := printSummary(s, sum, o); perr != nil {
		return perr
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(s.err, "interrupted: %d of %d answers recorded; continue with: tablewise eval --resume --out %s\n", sum.Records, sum.Questions*o.repeat, o.out)
		}
		return err
	}
	return floors(sum, o)
}

// serviceAsker asks through the answer service.
type serviceAsker struct{ svc *ask.Service }

func (a serviceAsker) Ask(ctx context.Context, d *db.DB, question, conv string) (*answer.Bundle, error) {
	return a.svc.Ask(ctx, question, ask.Conversation{DB: d, Key: conv}, nil)
}

// evalDatabases resolves --db (the sample when empty) and the folder of
// named databases.
// caseDatabases opens the databases cases are about, and the --db one,
// each once. One that cannot be found is left out: its questions report
// it when they run.
func caseDatabases(ctx context.Context, dbs *eval.Databases, cases []eval.Case) ([]*db.DB, error) {
	var out []*db.DB
	names := []string{}
	if dbs.Default != "" {
		names = append(names, "")
	}
	for _, c := range cases {
		names = append(names, c.DB)
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		d, err := dbs.Get(ctx, name)
		if errors.Is(err, eval.ErrNoDatabase) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func evalDatabases(dbPath, dbDir, suiteDir string) (*eval.Databases, error) {
	dbs := &eval.Databases{Default: dbPath, Dir: dbDir}
	if dbs.Dir == "" {
		dbs.Dir = suiteDir
	}
	if dbPath == "" {
		p, err := data.SamplePath()
		if err != nil {
			return nil, fmt.Errorf("prepare the sample database: %w", err)
		}
		dbs.Default, dbs.DefaultLabel = p, data.SampleName
	}
	return dbs, nil
}

// absSuite makes a suite's path absolute, so a regrade or a resume from
// another directory finds it.
func absSuite(suite string) string {
	for _, prefix := range []string{"bird:", "spider:"} {
		if rest, ok := strings.CutPrefix(suite, prefix); ok {
			return prefix + absPath(rest)
		}
	}
	if suite == eval.SuiteBehaviours {
		return suite
	}
	return absPath(suite)
}

func absPath(p string) string {
	if p == "" || strings.HasPrefix(p, "file:") || strings.Contains(p, "://") {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// runName is a short name for a suite, for the default output directory.
func runName(suite string) string {
	name := strings.TrimSuffix(filepath.Base(strings.TrimRight(suite, "/")), ".jsonl")
	if i := strings.IndexByte(suite, ':'); i > 0 && !strings.Contains(suite[:i], "/") {
		name = suite[:i] + "-" + filepath.Base(strings.TrimRight(suite[i+1:], "/"))
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ':' || r == ' ' {
			return '-'
		}
		return r
	}, name)
}

func printSummary(s *streams, sum *eval.Summary, o evalOptions) error {
	if o.format == "json" {
		return writeJSON(s, sum)
	}
	fmt.Fprint(s.out, sum.Brief())
	fmt.Fprintf(s.out, "wrote %s, %s and %s in %s\n", eval.ResultsFile, eval.ReportFile, eval.SummaryFile, o.out)
	return nil
}

// floors fails the run when a figure is below its --min-* flag.
func floors(sum *eval.Summary, o evalOptions) error {
	var below []string
	f := sum.Overall
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"execution accuracy", f.Accuracy, o.minAccuracy}, {"strict execution accuracy", f.AccuracyStrict, o.minStrict}, {"precision", f.Precision, o.minPrecision}} {
		if c.want > 0 && c.got < c.want {
			below = append(below, fmt.Sprintf("%s %.1f%% is below its floor of %.1f%%", c.name, 100*c.got, 100*c.want))
		}
	}
	if len(below) > 0 {
		return fmt.Errorf("eval %s: %s", o.suite, strings.Join(below, "; "))
	}
	return nil
}

func evalRegrade(ctx context.Context, o evalOptions, set map[string]bool, s *streams) error {
	info, err := eval.LoadRunInfo(o.regrade)
	if err != nil {
		return usagef("eval: --regrade %s: %v", o.regrade, err)
	}
	dbPath, dbDir := info.DB, info.DBDir
	if set["db"] {
		dbPath = o.dbPath
	}
	if set["db-dir"] {
		dbDir = o.dbDir
	}
	suiteDir := ""
	if suite, err := eval.LoadSuite(info.Suite); err == nil {
		suiteDir = suite.DBDir
	}
	dbs, err := evalDatabases(dbPath, dbDir, suiteDir)
	if err != nil {
		return err
	}
	defer dbs.Close()
	if o.out == "" {
		o.out = filepath.Join(o.regrade, "regraded")
	}
	if filepath.Clean(o.out) == filepath.Clean(o.regrade) {
		return usagef("eval: --regrade writes to another directory than the run's own (%s), so the original stays; give --out", o.regrade)
	}
	res, err := eval.Regrade(ctx, o.regrade, o.out, dbs)
	var existing *eval.ExistingRunError
	switch {
	case errors.As(err, &existing), errors.Is(err, eval.ErrNoDatabase):
		return usagef("eval: %v", err)
	case err != nil:
		return err
	}
	if o.format == "json" {
		return writeJSON(s, struct {
			Changed []eval.Change `json:"changed"`
			Summary *eval.Summary `json:"summary"`
		}{res.Changed, res.Summary})
	}
	fmt.Fprintf(s.out, "regraded %s: %s changed verdict", o.regrade, format.Plural(int64(len(res.Changed)), "answer"))
	if res.Kept > 0 {
		fmt.Fprintf(s.out, " (%d kept as they were: behaviour checks, missing predictions, errors)", res.Kept)
	}
	fmt.Fprintln(s.out)
	printChanges(s, res.Changed)
	o.suite = info.Suite
	return printSummary(s, res.Summary, o)
}

func evalCompare(a, b, outFormat string, s *streams) error {
	changes, err := eval.CompareRuns(a, b)
	if errors.Is(err, fs.ErrNotExist) {
		return usagef("eval: --compare: %v", err)
	}
	if err != nil {
		return err
	}
	if outFormat == "json" {
		return writeJSON(s, changes)
	}
	fmt.Fprintf(s.out, "%s changed between %s and %s\n", format.Plural(int64(len(changes)), "question"), a, b)
	printChanges(s, changes)
	return nil
}

func printChanges(s *streams, changes []eval.Change) {
	for _, c := range changes {
		id := c.ID
		if c.Attempt > 1 {
			id += fmt.Sprintf(" #%d", c.Attempt)
		}
		fmt.Fprintf(s.out, "  %s: %s → %s  %s\n", format.PrintableLine(id), c.Before, c.After, format.PrintableLine(format.ClipRunes(c.Question, 80)))
	}
}

// progressBar draws one line on stderr: a bar, counts, the share right so
// far and the time left.
type progressBar struct {
	w    *streams
	mu   sync.Mutex
	last time.Time
	on   bool
}

func (p *progressBar) show(pr eval.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.Done < pr.Total && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.on = time.Now(), true
	const width = 24
	filled := 0
	if pr.Total > 0 {
		filled = width * pr.Done / pr.Total
	}
	eta := "—"
	if pr.Done > pr.Resumed {
		eta = format.Seconds(pr.ETA().Round(time.Second))
	}
	fmt.Fprintf(p.w.err, "\r\x1b[K[%s%s] %d/%d · %d right · ETA %s", strings.Repeat("█", filled), strings.Repeat("·", width-filled), pr.Done, pr.Total, pr.Correct, eta)
}

func (p *progressBar) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		fmt.Fprint(p.w.err, "\r\x1b[K")
	}
}
