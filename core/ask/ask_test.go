package ask

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/offline"
	"github.com/tablewise/tablewise/core/testdb"
)

// env is an environment for Config.Getenv.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// modelEnv points the provider f speaks at f.
func modelEnv(f *llmtest.Server) func(string) string {
	m := f.Env()
	return func(k string) string { return m[k] }
}

// TestNewSelectsWhoAnswers: flags over the environment, keys decide when
// nothing is named, offline without keys; bad choices are typed errors, and
// only a model opens the trace file.
func TestNewSelectsWhoAnswers(t *testing.T) {
	keys := env("ANTHROPIC_API_KEY", "a-key", "OPENAI_API_KEY", "o-key", "TABLEWISE_MODEL", "env-model")
	for _, tc := range []struct {
		name        string
		cfg         Config
		who, model  string
		traceOpened bool
	}{
		{"no environment", Config{}, "offline", "", false},
		{"keys: anthropic first", Config{Getenv: keys}, "anthropic", "env-model", true},
		{"flags over the environment", Config{Getenv: keys, Provider: "openai", Model: "flag-model"}, "openai", "flag-model", true},
		{"offline by flag despite keys", Config{Getenv: keys, Provider: "offline"}, "offline", "", false},
		{"TABLEWISE_PROVIDER", Config{Getenv: env("TABLEWISE_PROVIDER", "openai", "OPENAI_BASE_URL", "http://127.0.0.1:1/v1")}, "openai", llm.DefaultOpenAIModel, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.TracePath = filepath.Join(t.TempDir(), "trace.jsonl")
			s, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if who, model := s.Provider(); who != tc.who || model != tc.model {
				t.Errorf("answered by %s/%s, want %s/%s", who, model, tc.who, tc.model)
			}
			if _, err := os.Stat(tc.cfg.TracePath); (err == nil) != tc.traceOpened {
				t.Errorf("trace file exists: %v, want %v", err == nil, tc.traceOpened)
			}
		})
	}
	if _, err := New(Config{Provider: "nope"}); !errors.Is(err, llm.ErrUnknownProvider) {
		t.Errorf("unknown provider: %v", err)
	}
	var mk *llm.MissingKeyError
	if _, err := New(Config{Provider: "anthropic", TracePath: filepath.Join(t.TempDir(), "t")}); !errors.As(err, &mk) || mk.Var != "ANTHROPIC_API_KEY" {
		t.Errorf("missing key: %v", err)
	}
}

// TestAgentConversations: with a model, a conversation's second question
// carries its first exchange; another conversation and a question on its
// own carry nothing; one agent serves every question of a database.
func TestAgentConversations(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := testdb.Sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)),
			llmtest.Text("There are 2,400 customers."),
			llmtest.Text("Of them, some are businesses."),
			llmtest.Text("Hello."),
			llmtest.Text("Hi."),
		)
		s, err := New(Config{Getenv: modelEnv(f), TracePath: filepath.Join(t.TempDir(), "trace.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		b, err := s.Ask(ctx, "How many customers?", Conversation{DB: d, Key: "t1"}, nil)
		if err != nil || b.Status != answer.StatusAnswered || b.Rows[0][0] != int64(2400) {
			t.Fatalf("%v %+v", err, b)
		}
		if _, err := s.Ask(ctx, "And businesses?", Conversation{DB: d, Key: "t1"}, nil); err != nil {
			t.Fatal(err)
		}
		want := []string{"user: How many customers?", "assistant: There are 2,400 customers.", "user: And businesses?"}
		if got := texts(f, 2); !slices.Equal(got, want) {
			t.Errorf("second question of t1 carried %q, want %q", got, want)
		}
		if _, err := s.Ask(ctx, "hello", Conversation{DB: d, Key: "t2"}, nil); err != nil {
			t.Fatal(err)
		}
		if got := texts(f, 3); !slices.Equal(got, []string{"user: hello"}) {
			t.Errorf("a new conversation carried %q", got)
		}
		if _, err := s.Ask(ctx, "hi", Conversation{DB: d}, nil); err != nil {
			t.Fatal(err)
		}
		if got := texts(f, 4); !slices.Equal(got, []string{"user: hi"}) {
			t.Errorf("a question on its own carried %q", got)
		}
		if len(s.answerers) != 1 {
			t.Errorf("%d agents for one database", len(s.answerers))
		}
	})
}

// texts is what request i sent, without the system message.
// texts are the texts of request i but the system prompt, each question
// without the schema cards a search picked for it (the sample's cards do
// not all fit in the system prompt of a request of agent.RequestBytes).
func texts(f *llmtest.Server, i int) []string {
	out := slices.DeleteFunc(f.Texts(i), func(s string) bool { return strings.HasPrefix(s, "system: ") })
	for j, s := range out {
		out[j], _, _ = strings.Cut(s, "\n\n(Tables that may be relevant")
	}
	return out
}

// TestOnlyAnswersAreRemembered: a question stopped by a budget is not a
// turn the next question sees, but it is the conversation's last bundle.
func TestOnlyAnswersAreRemembered(t *testing.T) {
	d := testdb.Sample(t)
	f := llmtest.New(t, "openai", llmtest.Text("Nothing to query."))
	store := NewMemory(0, 0)
	s, err := New(Config{Getenv: modelEnv(f), Store: store, TracePath: filepath.Join(t.TempDir(), "trace.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	conv := Conversation{DB: d, Key: "k"}
	if _, err := s.Ask(ctx, "hello", conv, nil); err != nil {
		t.Fatal(err)
	}
	// The script is played: the model now calls list_tables until the tool
	// budget stops the question.
	b, err := s.Ask(ctx, "list everything forever", conv, nil)
	if err != nil || b.Status != answer.StatusBudget {
		t.Fatalf("%v %+v", err, b)
	}
	h, _ := store.Load(ctx, "k")
	if len(h.Turns) != 1 || h.Turns[0].Question != "hello" || h.Last == nil || h.Last.Status != answer.StatusBudget {
		t.Fatalf("history %+v", h)
	}
}

// recorder wraps an answerer and keeps the history each question got.
type recorder struct {
	inner answerer
	mu    sync.Mutex
	got   []History
}

func (r *recorder) answer(ctx context.Context, h History, q string, onText func(string)) (*answer.Bundle, error) {
	r.mu.Lock()
	r.got = append(r.got, h)
	r.mu.Unlock()
	return r.inner.answer(ctx, h, q, onText)
}

// TestPlannerConversations: without a model the planner answers, inside
// conversations: its second question gets the first exchange and the first
// bundle (the hook for reading a reply to its own clarification), turns
// are bounded, and the planner's text reaches onText once.
func TestPlannerConversations(t *testing.T) {
	d := testdb.Sample(t)
	store := NewMemory(0, 0)
	s, err := New(Config{Store: store, HistoryTurns: 2})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{inner: s.answerer(d)}
	s.answerers[d] = rec
	ctx := context.Background()
	conv := Conversation{DB: d, Key: "channel-7"}
	var calls []string
	b, err := s.Ask(ctx, "How many customers are there?", conv, func(s string) { calls = append(calls, s) })
	if err != nil || b.Provider != offline.Provider || b.Status != answer.StatusAnswered || !strings.Contains(b.Answer, "2,400") {
		t.Fatalf("%v %+v", err, b)
	}
	if !slices.Equal(calls, []string{b.Answer}) {
		t.Errorf("onText got %q", calls)
	}
	first := b
	for _, q := range []string{"How many orders are there?", "Why did revenue drop last spring?", "How many products are there?"} {
		if _, err := s.Ask(ctx, q, conv, nil); err != nil {
			t.Fatal(err)
		}
	}
	second := rec.got[1]
	if len(second.Turns) != 1 || second.Turns[0].Question != "How many customers are there?" || second.Turns[0].Answer != first.Answer {
		t.Errorf("the second question got turns %+v", second.Turns)
	}
	if second.Last == nil || second.Last.SQL != first.SQL || second.Last.RowCount != first.RowCount || second.Last.Rows != nil {
		t.Errorf("the second question got last bundle %+v", second.Last)
	}
	// The refused question is the last bundle of the fourth, not a turn.
	fourth := rec.got[3]
	if fourth.Last == nil || fourth.Last.Status != answer.StatusRefused {
		t.Errorf("the fourth question got last %+v", fourth.Last)
	}
	h, _ := store.Load(ctx, conv.Key)
	var qs []string
	for _, turn := range h.Turns {
		qs = append(qs, turn.Question)
	}
	if !slices.Equal(qs, []string{"How many orders are there?", "How many products are there?"}) {
		t.Errorf("kept turns %q, want the last two answered", qs)
	}
}

// saveFails is a store that reads but cannot write.
type saveFails struct{ *Memory }

func (saveFails) Save(context.Context, string, History) error { return errors.New("disk full") }

// TestSaveFailureIsFlagged: an answer whose exchange could not be kept
// still comes back, and says the next question will not see it.
func TestSaveFailureIsFlagged(t *testing.T) {
	d := testdb.Sample(t)
	s, err := New(Config{Store: saveFails{NewMemory(0, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Ask(context.Background(), "How many customers are there?", Conversation{DB: d, Key: "t1"}, nil)
	if err != nil || b.Status != answer.StatusAnswered {
		t.Fatalf("%v %+v", err, b)
	}
	if len(b.Flags) != 1 || !strings.Contains(b.Flags[0], "could not be kept in the conversation (disk full)") {
		t.Errorf("flags %q", b.Flags)
	}
}

// gate is an answerer whose questions wait for a release; it records which
// questions are inside it.
type gate struct {
	mu      sync.Mutex
	inside  map[string]bool
	entered chan string
	release map[string]chan struct{}
	seen    map[string]History
}

func newGate(questions ...string) *gate {
	g := &gate{inside: map[string]bool{}, entered: make(chan string, len(questions)), release: map[string]chan struct{}{}, seen: map[string]History{}}
	for _, q := range questions {
		g.release[q] = make(chan struct{})
	}
	return g
}

func (g *gate) answer(ctx context.Context, h History, q string, _ func(string)) (*answer.Bundle, error) {
	if g.release[q] == nil {
		return nil, errors.New("question " + q + " was not expected to run")
	}
	g.mu.Lock()
	g.inside[q] = true
	g.seen[q] = h
	g.mu.Unlock()
	g.entered <- q
	<-g.release[q]
	g.mu.Lock()
	g.inside[q] = false
	g.mu.Unlock()
	return &answer.Bundle{Question: q, Status: answer.StatusAnswered, Answer: "answer to " + q}, nil
}

func (g *gate) isInside(q string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inside[q]
}

// waitEntered waits for question q to be inside the gate.
func (g *gate) waitEntered(t *testing.T, q string) {
	t.Helper()
	select {
	case got := <-g.entered:
		if got != q {
			t.Fatalf("%q entered, want %q", got, q)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%q never started", q)
	}
}

// TestConversationsSerializeAndRunConcurrently: a question of another
// conversation runs while one is in flight; a second question of the same
// conversation waits for the first, then sees it, and both land in the
// conversation; a waiting question gives up when its context ends.
func TestConversationsSerializeAndRunConcurrently(t *testing.T) {
	d := testdb.Sample(t)
	store := NewMemory(0, 0)
	s, err := New(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	g := newGate("a1", "a2", "b1")
	s.answerers[d] = g
	ctx := context.Background()
	a, b := Conversation{DB: d, Key: "a"}, Conversation{DB: d, Key: "b"}
	var wg sync.WaitGroup
	ask := func(q string, conv Conversation) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Ask(ctx, q, conv, nil); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}()
	}
	ask("a1", a)
	g.waitEntered(t, "a1")
	ask("b1", b)
	g.waitEntered(t, "b1") // another conversation runs while a1 is in flight
	ask("a2", a)
	waitFor(t, "a2 to wait for a1", func() bool { return s.waiting("a") == 2 })
	if g.isInside("a2") {
		t.Fatal("a2 runs while a1 is in flight")
	}
	// A question that gives up waiting leaves the queue as it was.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := s.Ask(cctx, "a3", a, nil)
		done <- err
	}()
	waitFor(t, "a3 to wait", func() bool { return s.waiting("a") == 3 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait returned %v", err)
	}
	close(g.release["a1"])
	g.waitEntered(t, "a2")
	close(g.release["a2"])
	close(g.release["b1"])
	wg.Wait()
	if got := g.seen["a2"].Turns; len(got) != 1 || got[0].Question != "a1" {
		t.Errorf("a2 saw %+v, want a1's exchange", got)
	}
	h, _ := store.Load(ctx, "a")
	if len(h.Turns) != 2 || h.Turns[0].Question != "a1" || h.Turns[1].Question != "a2" {
		t.Errorf("conversation a kept %+v", h.Turns)
	}
	if h, _ := store.Load(ctx, "b"); len(h.Turns) != 1 || h.Turns[0].Question != "b1" {
		t.Errorf("conversation b kept %+v", h.Turns)
	}
	if s.waiting("a") != 0 || s.waiting("b") != 0 || len(s.busy) != 0 {
		t.Errorf("locks left behind: %d", len(s.busy))
	}
}

// waiting is how many questions of conversation key run or wait.
func (s *Service) waiting(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.busy[key]; l != nil {
		return l.refs
	}
	return 0
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSeveralDatabases: one service keeps one planner per database.
func TestSeveralDatabases(t *testing.T) {
	one := testdb.Sample(t)
	other := testdb.Open(t, testdb.Fixture(t))
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b1, err := s.Ask(ctx, "How many customers are there?", Conversation{DB: one}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := s.Ask(ctx, "How many customers are there?", Conversation{DB: other}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b1.Rows[0][0] != int64(2400) || b2.Rows[0][0] != int64(4) {
		t.Errorf("counts %v and %v", b1.Rows, b2.Rows)
	}
	if _, err := s.Ask(ctx, "How many orders are there?", Conversation{DB: one}, nil); err != nil {
		t.Fatal(err)
	}
	if len(s.answerers) != 2 {
		t.Errorf("%d planners for two databases", len(s.answerers))
	}
}

// TestReviewAndEscalationOptions: TABLEWISE_ESCALATE_MODEL names the
// stronger model (the flag's field overrides it), the review is on unless
// NoReview, and the escalated model's usage is kept apart.
func TestReviewAndEscalationOptions(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := testdb.Sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT nope FROM orders"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT nada FROM orders"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT zip FROM orders"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM orders"}`)),
			llmtest.Text("There are 11,887 orders."),
		)
		base := modelEnv(f)
		getenv := func(k string) string {
			switch k {
			case "TABLEWISE_MODEL":
				return "small-model"
			case "TABLEWISE_ESCALATE_MODEL":
				return "env-strong"
			}
			return base(k)
		}
		s, err := New(Config{Getenv: getenv, TracePath: filepath.Join(t.TempDir(), "trace.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Escalation() != "env-strong" {
			t.Fatalf("escalation %q", s.Escalation())
		}
		b, err := s.Ask(context.Background(), "How many orders?", Conversation{DB: d}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var models []string
		for _, r := range f.Requests() {
			models = append(models, r["model"].(string))
		}
		// The escalated answer's review is approved by the server on its
		// own (llmtest.Review), outside the request log.
		want := []string{"small-model", "small-model", "small-model", "env-strong", "env-strong"}
		if !slices.Equal(models, want) || f.Approved() != 1 {
			t.Errorf("requests went to %q, want %q; %d reviews", models, want, f.Approved())
		}
		m := b.Checks.Models
		if b.Checks.Escalated != "env-strong" || len(m) != 2 || m[0].ModelCalls != 3 || m[1].ModelCalls != 3 || m[1].ReviewCalls != 1 || b.Checks.Review.Verdict != answer.ReviewApproved {
			t.Fatalf("checks %+v models %+v", b.Checks, m)
		}

		s2, err := New(Config{Getenv: getenv, NoReview: true, EscalateModel: "flag-strong", TracePath: filepath.Join(t.TempDir(), "trace.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		f.Script(llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)), llmtest.Text("7 regions."))
		n := len(f.Requests())
		b, err = s2.Ask(context.Background(), "How many regions?", Conversation{DB: d}, nil)
		if err != nil || s2.Escalation() != "flag-strong" {
			t.Fatal(err, s2.Escalation())
		}
		if got := len(f.Requests()) - n; got != 2 || f.Approved() != 1 || b.Checks.Review != nil || b.Usage.ModelCalls != 2 {
			t.Errorf("with the review off: %d requests, %d reviews, review %+v", got, f.Approved(), b.Checks.Review)
		}
	})
}

// The bundle a conversation keeps shares nothing with the one the front
// door goes on changing, its checks included.
func TestKeptBundleSharesNoChecks(t *testing.T) {
	b := &answer.Bundle{Checks: &answer.Checks{
		Literals: []answer.Literal{{Value: "U.K.", Closest: []string{"United Kingdom"}}},
		Notes:    []string{"note"},
		Review:   &answer.Review{Verdict: answer.ReviewApproved},
		Models:   []answer.ModelUsage{{Model: "m", ModelCalls: 2}},
	}}
	c := withoutRows(b)
	b.Checks.Literals[0].Closest[0] = "x"
	b.Checks.Literals[0].Value = "x"
	b.Checks.Notes[0] = "x"
	b.Checks.Review.Verdict = "x"
	b.Checks.Models[0].ModelCalls = 9
	k := c.Checks
	if k.Literals[0].Value != "U.K." || k.Literals[0].Closest[0] != "United Kingdom" || k.Notes[0] != "note" || k.Review.Verdict != answer.ReviewApproved || k.Models[0].ModelCalls != 2 {
		t.Fatalf("the kept checks changed: %+v %+v", k, k.Review)
	}
}

// TestNamedTraceThatCannotBeWritten: a trace file named by the caller
// (--trace) that cannot be opened is an error naming it, not a trace
// silently lost.
func TestNamedTraceThatCannotBeWritten(t *testing.T) {
	f := llmtest.New(t, "anthropic", llmtest.Text("unused"))
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "trace.jsonl") // under a regular file
	s, err := New(Config{Getenv: modelEnv(f), TracePath: bad})
	if err == nil {
		s.Close()
		t.Fatalf("New with --trace %s: no error, the trace would be lost", bad)
	}
	if !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "--trace") {
		t.Errorf("New with --trace %s: %v, want an error naming the path and --trace", bad, err)
	}
}
