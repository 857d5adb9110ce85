package eval

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/format"
)

// Figures sum up a group of records (all, one difficulty, one database).
//
// Accuracy is right answers over the questions with gold SQL; precision is
// right answers over everything answered (an answered question that should
// have been declined counts as wrong). Abstentions (refused, asked back,
// answered without SQL) and failures lower accuracy only.
type Figures struct {
	Name string `json:"name"`
	// Records counts the answers scored (questions × repeats).
	Records int `json:"records"`
	// Gold counts the records with gold SQL (or a behaviour check).
	Gold           int `json:"gold"`
	Correct        int `json:"correct"`
	CorrectStrict  int `json:"correct_strict"`
	CorrectSubset  int `json:"correct_subset"`
	CorrectRanking int `json:"correct_ranking"`
	// Answered counts answers that rest on SQL, including answers to
	// questions that should have been declined.
	Answered  int `json:"answered"`
	Abstained int `json:"abstained"`
	Failed    int `json:"failed"`
	// ExpectRefuse counts the questions that should be declined;
	// Declined, those that were.
	ExpectRefuse int `json:"expect_refuse"`
	Declined     int `json:"declined"`

	Accuracy        float64 `json:"accuracy"`
	AccuracyStrict  float64 `json:"accuracy_strict"`
	AccuracySubset  float64 `json:"accuracy_subset_lenient"`
	AccuracyRanking float64 `json:"accuracy_ranking_lenient"`
	Precision       float64 `json:"precision"`
	PrecisionStrict float64 `json:"precision_strict"`

	// Latency of the questions asked (not of scored predictions), in
	// milliseconds; Asked counts them.
	Asked           int     `json:"asked"`
	LatencyMedianMS float64 `json:"latency_median_ms"`
	LatencyP95MS    float64 `json:"latency_p95_ms"`
	// Tokens and estimated cost (list prices, core/llm), in total and per
	// record.
	InputTokens    int     `json:"input_tokens"`
	OutputTokens   int     `json:"output_tokens"`
	CostUSD        float64 `json:"cost_usd"`
	TokensPerQ     float64 `json:"tokens_per_question"`
	CostPerQ       float64 `json:"cost_per_question_usd"`
	ModelCallsPerQ float64 `json:"model_calls_per_question"`
	// MaxRequestBytes is the largest model request of any question.
	MaxRequestBytes int64 `json:"max_request_bytes,omitempty"`
}

// Reliability is how often a question is right across its repeats.
type Reliability struct {
	Name      string `json:"name"`
	Questions int    `json:"questions"`
	K         int    `json:"k"`
	// PassAtK: right at least once in K; PassAllK (pass^k): right all K
	// times. BIRD's rule, then the strict rule.
	PassAtK        float64 `json:"pass_at_k"`
	PassAllK       float64 `json:"pass_all_k"`
	PassAtKStrict  float64 `json:"pass_at_k_strict"`
	PassAllKStrict float64 `json:"pass_all_k_strict"`
}

// Summary is a run's figures, written as summary.json.
type Summary struct {
	Run RunInfo `json:"run"`
	// Questions the run asks, and Records it holds; Complete when every
	// question has every repeat.
	Questions int  `json:"questions"`
	Records   int  `json:"records"`
	Complete  bool `json:"complete"`
	// Rules names how results were compared, in words.
	Rules        map[string]string `json:"rules"`
	Overall      Figures           `json:"overall"`
	ByDifficulty []Figures         `json:"by_difficulty,omitempty"`
	ByDB         []Figures         `json:"by_db,omitempty"`
	BySet        []Figures         `json:"by_set,omitempty"`
	Reliability  []Reliability     `json:"reliability,omitempty"`
	// Invalid lists the questions whose gold SQL failed.
	Invalid []string `json:"invalid,omitempty"`
	// records, in suite order, for the report.
	records []Record
}

// Rules, in words, as summary.json and the report state them.
var Rules = map[string]string{
	"correct":         "BIRD's execution accuracy: the set of predicted row tuples equals the set of gold row tuples (order, duplicates and column names ignored; column order counts)",
	"correct_strict":  "Spider's test-suite rule: the rows as a bag (duplicates count) under some permutation of the columns, in gold's order when the gold query's outermost SELECT has ORDER BY (or the case says \"ordered\"); DISTINCT is kept, not stripped",
	"correct_subset":  "lenient, not a published rule: as strict, but the prediction may add columns",
	"correct_ranking": "lenient, not a published rule: as strict on the first rows, extra trailing rows tolerated, for questions asking for \"the top …\"",
	"values":          fmt.Sprintf("NULL equals only NULL; numbers by value (3 = 3.0), reals to %d significant digits; text is never a number ('3' ≠ 3); blobs by bytes", SignificantDigits),
}

// Summarize computes the figures of recs, questions taken from cases (in
// suite order).
func Summarize(cases []Case, recs []Record, info RunInfo) *Summary {
	order := map[string]int{}
	for i, c := range cases {
		order[c.ID] = i
	}
	recs = slices.Clone(recs)
	slices.SortStableFunc(recs, func(a, b Record) int {
		return cmp.Or(cmp.Compare(order[a.ID], order[b.ID]), cmp.Compare(a.Attempt, b.Attempt))
	})
	s := &Summary{Run: info, Questions: len(cases), Records: len(recs), Rules: Rules, records: recs}
	repeat := max(info.Repeat, 1)
	s.Complete = len(recs) == len(cases)*repeat
	var scored []Record
	for _, r := range recs {
		if r.Outcome == OutcomeInvalid {
			if r.Attempt <= 1 {
				s.Invalid = append(s.Invalid, r.ID)
			}
			continue
		}
		scored = append(scored, r)
	}
	s.Overall = figures("all", scored)
	s.ByDifficulty = groups(scored, func(r Record) string { return r.Difficulty })
	s.ByDB = groups(scored, func(r Record) string { return r.DB })
	s.BySet = groups(scored, func(r Record) string { return r.Set })
	if repeat > 1 {
		s.Reliability = append(s.Reliability, reliability("all", scored, repeat))
		for _, g := range groupNames(scored, func(r Record) string { return r.Difficulty }) {
			s.Reliability = append(s.Reliability, reliability(g, filter(scored, func(r Record) bool { return r.Difficulty == g }), repeat))
		}
	}
	return s
}

// groupNames are the distinct non-empty values of by, in first-seen
// order; none when there is only one.
func groupNames(recs []Record, by func(Record) string) []string {
	var names []string
	for _, r := range recs {
		if n := by(r); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) < 2 {
		return nil
	}
	return names
}

func groups(recs []Record, by func(Record) string) []Figures {
	var out []Figures
	for _, n := range groupNames(recs, by) {
		out = append(out, figures(n, filter(recs, func(r Record) bool { return by(r) == n })))
	}
	return out
}

func filter(recs []Record, keep func(Record) bool) []Record {
	var out []Record
	for _, r := range recs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func figures(name string, recs []Record) Figures {
	f := Figures{Name: name, Records: len(recs)}
	var lat []float64
	calls, rightAnswered, rightAnsweredStrict := 0, 0, 0
	for _, r := range recs {
		refuse := r.Expect == ExpectRefuse
		if refuse {
			f.ExpectRefuse++
		} else {
			f.Gold++
		}
		switch r.Outcome {
		case OutcomeAnswered:
			f.Answered++
		case OutcomeAbstained:
			f.Abstained++
			if refuse {
				f.Declined++
			}
		default:
			f.Failed++
		}
		if !refuse && r.Outcome == OutcomeAnswered {
			rightAnswered += b2i(r.Correct)
			rightAnsweredStrict += b2i(r.CorrectStrict)
		}
		if !refuse {
			f.Correct += b2i(r.Correct)
			f.CorrectStrict += b2i(r.CorrectStrict)
			f.CorrectSubset += b2i(r.CorrectSubset)
			f.CorrectRanking += b2i(r.CorrectRanking)
		}
		if r.Provider != "" {
			lat = append(lat, r.LatencyMS)
		}
		f.InputTokens += r.Usage.InputTokens
		f.OutputTokens += r.Usage.OutputTokens
		f.CostUSD += r.Usage.CostUSD
		calls += r.Usage.ModelCalls
		f.MaxRequestBytes = max(f.MaxRequestBytes, r.Usage.MaxRequestBytes)
	}
	f.Accuracy = ratio(f.Correct, f.Gold)
	f.AccuracyStrict = ratio(f.CorrectStrict, f.Gold)
	f.AccuracySubset = ratio(f.CorrectSubset, f.Gold)
	f.AccuracyRanking = ratio(f.CorrectRanking, f.Gold)
	f.Precision, f.PrecisionStrict = 1, 1
	if f.Answered > 0 {
		f.Precision = ratio(rightAnswered, f.Answered)
		f.PrecisionStrict = ratio(rightAnsweredStrict, f.Answered)
	}
	f.Asked = len(lat)
	f.LatencyMedianMS, f.LatencyP95MS = percentile(lat, 50), percentile(lat, 95)
	if n := len(recs); n > 0 {
		f.TokensPerQ = float64(f.InputTokens+f.OutputTokens) / float64(n)
		f.CostPerQ = f.CostUSD / float64(n)
		f.ModelCallsPerQ = float64(calls) / float64(n)
	}
	return f
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// percentile is the nearest-rank p-th percentile of xs (0 when empty).
func percentile(xs []float64, p int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 × n)
	return s[max(rank, 1)-1]
}

// reliability counts, over the questions of recs with all k attempts,
// those right at least once and those right every time.
func reliability(name string, recs []Record, k int) Reliability {
	type tally struct{ n, set, strict int }
	by := map[string]*tally{}
	var ids []string
	for _, r := range recs {
		t := by[r.ID]
		if t == nil {
			t = &tally{}
			by[r.ID] = t
			ids = append(ids, r.ID)
		}
		t.n++
		t.set += b2i(r.Correct)
		t.strict += b2i(r.CorrectStrict)
	}
	rel := Reliability{Name: name, K: k}
	var at, all, atS, allS int
	for _, id := range ids {
		t := by[id]
		if t.n < k {
			continue
		}
		rel.Questions++
		at += b2i(t.set > 0)
		all += b2i(t.set == t.n)
		atS += b2i(t.strict > 0)
		allS += b2i(t.strict == t.n)
	}
	rel.PassAtK, rel.PassAllK = ratio(at, rel.Questions), ratio(all, rel.Questions)
	rel.PassAtKStrict, rel.PassAllKStrict = ratio(atS, rel.Questions), ratio(allS, rel.Questions)
	return rel
}

func pct(x float64) string { return format.Number(100*x, 1) + "%" }

// Markdown is the run's report.
func (s *Summary) Markdown() string {
	var b strings.Builder
	r := s.Run
	fmt.Fprintf(&b, "# tablewise eval: %s\n\n", mdCell(r.title()))
	who := r.Provider
	if r.Model != "" {
		who += " / " + r.Model
	}
	if r.Predictions != "" {
		who = "predictions from " + r.Predictions
	}
	meta := []string{who}
	if r.Prompt != "" {
		meta = append(meta, "prompt "+r.Prompt)
	}
	meta = append(meta, fmt.Sprintf("%d questions", s.Questions))
	if r.Repeat > 1 {
		meta = append(meta, fmt.Sprintf("each asked %d times", r.Repeat))
	}
	if r.Limit > 0 {
		meta = append(meta, fmt.Sprintf("limit %d", r.Limit))
	}
	if r.Seed != 0 {
		meta = append(meta, fmt.Sprintf("seed %d", r.Seed))
	}
	meta = append(meta, "started "+r.Started.Format(time.RFC3339))
	fmt.Fprintf(&b, "%s\n\n", mdCell(strings.Join(meta, " · ")))
	if !s.Complete {
		fmt.Fprintf(&b, "**Incomplete:** %d of %d answers recorded; continue with `--resume`.\n\n", s.Records, s.Questions*max(r.Repeat, 1))
	}
	behaviours := s.Run.Suite == SuiteBehaviours
	if behaviours {
		s.behaviourTable(&b)
	} else {
		s.accuracyTables(&b)
	}
	s.costTable(&b)
	if len(s.Invalid) > 0 {
		fmt.Fprintf(&b, "\n## Gold SQL that failed (left out of every figure)\n\n%s\n", mdCell(strings.Join(s.Invalid, ", ")))
	}
	if !behaviours {
		s.missTable(&b)
		b.WriteString("\n## Rules\n\n")
		for _, k := range []string{"correct", "correct_strict", "correct_subset", "correct_ranking", "values"} {
			fmt.Fprintf(&b, "- `%s`: %s.\n", k, Rules[k])
		}
		b.WriteString("- Abstaining (refused, asked back, or answered without running SQL) is never counted as a wrong answer; precision is right answers over answered ones.\n")
	}
	return b.String()
}

// accuracyTables are the execution accuracy tables: published rules,
// lenient rules, by database and set, and reliability.
func (s *Summary) accuracyTables(b *strings.Builder) {
	r := s.Run
	rows := append([]Figures{s.Overall}, s.ByDifficulty...)
	b.WriteString("## Execution accuracy\n\n")
	b.WriteString("| | answers | EX (BIRD) | EX strict (Spider test-suite) | answered | abstained | failed | precision | precision strict |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, f := range rows {
		fmt.Fprintf(b, "| %s | %d | %s (%d) | %s (%d) | %d | %d | %d | %s | %s |\n", mdCell(f.Name), f.Records,
			pct(f.Accuracy), f.Correct, pct(f.AccuracyStrict), f.CorrectStrict, f.Answered, f.Abstained, f.Failed, pct(f.Precision), pct(f.PrecisionStrict))
	}
	if s.Overall.ExpectRefuse > 0 {
		fmt.Fprintf(b, "\nQuestions that should be declined: %d of %d declined (they are not in the accuracy figures; answering one counts against precision).\n", s.Overall.Declined, s.Overall.ExpectRefuse)
	}
	b.WriteString("\nLenient rules (not comparable with published figures):\n\n| | column subset | ranking (extra trailing rows for \"top …\") |\n|---|---:|---:|\n")
	for _, f := range rows {
		fmt.Fprintf(b, "| %s | %s (%d) | %s (%d) |\n", mdCell(f.Name), pct(f.AccuracySubset), f.CorrectSubset, pct(f.AccuracyRanking), f.CorrectRanking)
	}
	for _, part := range []struct {
		title string
		fs    []Figures
	}{{"By database", s.ByDB}, {"By set", s.BySet}} {
		if len(part.fs) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n## %s\n\n| | answers | EX (BIRD) | EX strict | abstained | precision |\n|---|---:|---:|---:|---:|---:|\n", part.title)
		for _, f := range part.fs {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %d | %s |\n", mdCell(f.Name), f.Records, pct(f.Accuracy), pct(f.AccuracyStrict), f.Abstained, pct(f.Precision))
		}
	}
	if len(s.Reliability) > 0 {
		fmt.Fprintf(b, "\n## Reliability (each question asked %d times)\n\npass@k: right at least once; pass^k: right every time.\n\n| | questions | pass@%d | pass^%d | pass@%d strict | pass^%d strict |\n|---|---:|---:|---:|---:|---:|\n", r.Repeat, r.Repeat, r.Repeat, r.Repeat, r.Repeat)
		for _, x := range s.Reliability {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s |\n", mdCell(x.Name), x.Questions, pct(x.PassAtK), pct(x.PassAllK), pct(x.PassAtKStrict), pct(x.PassAllKStrict))
		}
	}
}

// costTable is latency, tokens and cost.
func (s *Summary) costTable(b *strings.Builder) {
	o := s.Overall
	b.WriteString("\n## Cost and latency\n\n")
	switch {
	case o.Asked == 0:
		b.WriteString("Nothing was asked in this run: it scored given predictions.\n")
	case o.InputTokens+o.OutputTokens == 0:
		fmt.Fprintf(b, "| latency median | latency p95 |\n|---:|---:|\n| %s | %s |\n\nNo model was called (no tokens, no cost).\n", millis(o.LatencyMedianMS), millis(o.LatencyP95MS))
	default:
		fmt.Fprintf(b, "| latency median | latency p95 | model calls / question | tokens / question (in+out) | estimated cost / question | estimated cost, total |\n|---:|---:|---:|---:|---:|---:|\n| %s | %s | %s | %s | $%s | $%s |\n",
			millis(o.LatencyMedianMS), millis(o.LatencyP95MS),
			format.Number(o.ModelCallsPerQ, 1), format.Number(o.TokensPerQ, 0), format.Number(o.CostPerQ, 4), format.Number(o.CostUSD, 2))
		b.WriteString("\nCosts are estimates at list prices (core/llm); local models have none.\n")
		if o.MaxRequestBytes > 0 {
			fmt.Fprintf(b, "The largest model request was %s bytes.\n", format.Count(o.MaxRequestBytes))
		}
	}
}

// missTable lists the answers that are not right under both published
// rules.
func (s *Summary) missTable(b *strings.Builder) {
	const most = 40
	var miss []Record
	for _, r := range s.records {
		if !(r.Correct && r.CorrectStrict) && r.Outcome != OutcomeInvalid {
			miss = append(miss, r)
		}
	}
	if len(miss) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Not right (%d)\n\n| id | question | status | why |\n|---|---|---|---|\n", len(miss))
	for i, r := range miss {
		if i == most {
			fmt.Fprintf(b, "\n…and %d more in %s.\n", len(miss)-most, ResultsFile)
			break
		}
		why := r.Note
		if r.Error != "" {
			why = r.Error
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdCell(r.ID), mdCell(format.ClipRunes(r.Question, 80)), r.Status, mdCell(format.ClipRunes(why, 120)))
	}
}

// behaviourTable lists each behaviour and how it went.
func (s *Summary) behaviourTable(b *strings.Builder) {
	b.WriteString("## Behaviours\n\n| behaviour | question | passed | why |\n|---|---|---|---|\n")
	for _, r := range s.records {
		mark := "yes"
		if !r.Correct {
			mark = "**no**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdCell(r.ID), mdCell(format.ClipRunes(r.Question, 80)), mark, mdCell(format.ClipRunes(r.Note, 160)))
	}
	fmt.Fprintf(b, "\nPassed %d of %d.\n", s.Overall.Correct, s.Overall.Gold)
}

// mdCell makes s safe inside a Markdown table cell.
func mdCell(s string) string {
	s = format.PrintableLine(s)
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Brief is a few lines of plain text for a terminal: the overall figures,
// per difficulty, reliability and cost, and where the files are.
func (s *Summary) Brief() string {
	var b strings.Builder
	line := func(f Figures) string {
		return fmt.Sprintf("EX %s (%d/%d) · strict %s · answered %d · abstained %d · failed %d · precision %s",
			pct(f.Accuracy), f.Correct, f.Gold, pct(f.AccuracyStrict), f.Answered, f.Abstained, f.Failed, pct(f.Precision))
	}
	if s.Run.Suite == SuiteBehaviours {
		fmt.Fprintf(&b, "behaviours: passed %d of %d\n", s.Overall.Correct, s.Overall.Gold)
		for _, r := range s.records {
			mark := "pass"
			if !r.Correct {
				mark = "FAIL"
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", mark, r.ID, format.PrintableLine(format.ClipRunes(r.Note, 120)))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s: %s\n", format.PrintableLine(s.Run.title()), line(s.Overall))
	for _, f := range s.ByDifficulty {
		fmt.Fprintf(&b, "  %s: %s\n", format.PrintableLine(f.Name), line(f))
	}
	if s.Overall.ExpectRefuse > 0 {
		fmt.Fprintf(&b, "  should be declined: %d of %d declined\n", s.Overall.Declined, s.Overall.ExpectRefuse)
	}
	fmt.Fprintf(&b, "  lenient (flagged): column subset %s · ranking %s\n", pct(s.Overall.AccuracySubset), pct(s.Overall.AccuracyRanking))
	for _, x := range s.Reliability {
		fmt.Fprintf(&b, "  %s: pass@%d %s · pass^%d %s\n", format.PrintableLine(x.Name), x.K, pct(x.PassAtK), x.K, pct(x.PassAllK))
	}
	if o := s.Overall; o.Asked > 0 {
		fmt.Fprintf(&b, "  latency median %s · p95 %s", millis(o.LatencyMedianMS), millis(o.LatencyP95MS))
		if o.InputTokens+o.OutputTokens > 0 {
			fmt.Fprintf(&b, " · %s tokens/question · $%s/question (estimate)", format.Number(o.TokensPerQ, 0), format.Number(o.CostPerQ, 4))
			if o.MaxRequestBytes > 0 {
				fmt.Fprintf(&b, " · largest request %s bytes", format.Count(o.MaxRequestBytes))
			}
		}
		b.WriteString("\n")
	}
	if len(s.Invalid) > 0 {
		fmt.Fprintf(&b, "  gold SQL failed (left out): %s\n", strings.Join(s.Invalid, ", "))
	}
	if !s.Complete {
		fmt.Fprintf(&b, "  incomplete: %d of %d answers recorded\n", s.Records, s.Questions*max(s.Run.Repeat, 1))
	}
	return b.String()
}

// millis formats a latency: "0.4 ms", "12 ms", "3.4 s".
func millis(ms float64) string {
	switch {
	case ms < 10:
		return format.Number(ms, 1) + " ms"
	case ms < 1000:
		return format.Number(ms, 0) + " ms"
	}
	return format.Seconds(time.Duration(ms * float64(time.Millisecond)))
}
