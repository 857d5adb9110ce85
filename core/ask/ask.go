// Package ask is the one answer service behind every front door: it answers
// a plain-language question about a database, in a conversation, with the
// question agent (core/agent) when a model provider is configured and with
// the offline planner (core/offline) when none is. Choosing the provider,
// tracing model and tool calls, and building an agent or a planner per
// database happen here and nowhere else: front doors pass flag values and
// the environment in, and render the answer.Bundle that comes back.
//
// A conversation is a key in a Store (files for the CLI, a bounded LRU in
// memory for servers and chat bridges). Questions in one conversation run
// one after the other, each seeing the exchanges before it; questions in
// different conversations run at once.
package ask

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/offline"
	"github.com/tablewise/tablewise/core/trace"
)

// DefaultHistoryTurns is how many earlier exchanges a conversation
// remembers unless Config.HistoryTurns says otherwise.
const DefaultHistoryTurns = 10

// Config says how questions are answered. Flag values, when set, override
// the environment field by field.
type Config struct {
	// Provider is anthropic, openai or offline (--provider). Empty reads
	// TABLEWISE_PROVIDER, else chooses by the keys that are set, else
	// offline (see llm.Select).
	Provider string
	// Model is the model name (--model). Empty reads TABLEWISE_MODEL, else
	// the provider's default.
	Model string
	// TracePath is the file model and tool calls are appended to, one JSON
	// line each (--trace); empty means trace.DefaultPath(). The offline
	// planner makes no calls and opens no trace. A TracePath that cannot
	// be opened is an error of New; the default path is best effort.
	TracePath string
	// Getenv reads the environment (os.Getenv in production). Nil reads
	// nothing, so the offline planner answers unless Provider says
	// otherwise.
	Getenv func(string) string
	// Store keeps conversations. Nil keeps them in memory, within the
	// default bounds: NewMemory(0, 0).
	Store Store
	// HistoryTurns bounds the exchanges a conversation remembers; 0 means
	// DefaultHistoryTurns.
	HistoryTurns int
	// Prompt is the agent's prompt version (--prompt); empty means
	// agent.DefaultPrompt. An unknown version is an error wrapping
	// agent.ErrUnknownPrompt.
	Prompt string
	// NoReview skips the independent review of the SQL a model's answer
	// rests on (--review=false); the review is on by default.
	NoReview bool
	// EscalateModel is a stronger model of the same provider that a
	// question is retried with once when its repairs run out or the
	// review objects twice (--escalate-model). Empty reads
	// TABLEWISE_ESCALATE_MODEL; empty there means no escalation.
	EscalateModel string
	// IndexDir is where the offline planner keeps what its value index
	// read of each database, so a later run does not scan the data again
	// (DefaultIndexDir in production); empty keeps nothing.
	IndexDir string
}

// DefaultIndexDir is where the offline planner keeps its value indexes:
// in the state directory, never beside the database.
func DefaultIndexDir() string { return offline.DefaultIndexDir() }

// Conversation says where a question belongs.
type Conversation struct {
	// DB is the database the question is about.
	DB *db.DB
	// Key names the conversation in the service's Store: a thread ID, a
	// chat channel, any string. Keys are not scoped by database: a front
	// door serving several databases puts the database in the key. Empty
	// means a question on its own: nothing is read or kept.
	Key string
}

// Service answers questions. One service serves any number of databases,
// with one agent or planner per database, built on its first question. It
// is safe for concurrent use.
type Service struct {
	model    llm.Provider // nil: the offline planner answers
	escalate llm.Provider // nil: no escalation
	noReview bool
	prompt   string
	trace    *trace.Writer
	store    Store
	turns    int
	// indexDir keeps the planner's value indexes (Config.IndexDir).
	indexDir string

	mu        sync.Mutex
	answerers map[*db.DB]answerer
	busy      map[string]*convLock
}

// New builds the service cfg describes. An unknown provider name is an
// error wrapping llm.ErrUnknownProvider; an explicitly chosen provider
// without its key, a *llm.MissingKeyError.
func New(cfg Config) (*Service, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	lc := llm.ConfigFromEnv(getenv)
	if cfg.Provider != "" {
		lc.Provider = cfg.Provider
	}
	if cfg.Model != "" {
		lc.Model = cfg.Model
	}
	kind, err := llm.Select(lc)
	if err != nil {
		return nil, err
	}
	if err := agent.CheckPrompt(cfg.Prompt); err != nil {
		return nil, err
	}
	s := &Service{prompt: cfg.Prompt, noReview: cfg.NoReview, indexDir: cfg.IndexDir, store: cfg.Store, turns: cfg.HistoryTurns, answerers: map[*db.DB]answerer{}, busy: map[string]*convLock{}}
	if s.store == nil {
		s.store = NewMemory(0, 0)
	}
	if s.turns <= 0 {
		s.turns = DefaultHistoryTurns
	}
	if kind == llm.ProviderOffline {
		return s, nil
	}
	path := cfg.TracePath
	if path == "" {
		path = trace.DefaultPath()
	}
	tw, err := trace.Open(path)
	if err != nil {
		if cfg.TracePath != "" {
			// A trace asked for by name: answering without it would lose
			// it with no word said.
			return nil, fmt.Errorf("cannot write the trace: %w — choose another --trace path", err)
		}
		tw = nil // the default trace is best effort; questions still work
	}
	p, err := llm.New(lc, llm.WithTrace(tw.ModelCall))
	if err != nil {
		tw.Close()
		return nil, err
	}
	s.model, s.trace = p, tw
	escalate := cfg.EscalateModel
	if escalate == "" {
		escalate = getenv("TABLEWISE_ESCALATE_MODEL")
	}
	if escalate != "" && escalate != p.Model() {
		ec := lc
		ec.Model = escalate
		if s.escalate, err = llm.New(ec, llm.WithTrace(tw.ModelCall)); err != nil {
			tw.Close()
			return nil, fmt.Errorf("escalation model %s: %w", escalate, err)
		}
	}
	return s, nil
}

// Escalation names the model questions are retried with, or "" when
// none is configured.
func (s *Service) Escalation() string {
	if s.escalate == nil {
		return ""
	}
	return s.escalate.Model()
}

// DefaultPrompt is the prompt version used unless Config.Prompt names one.
const DefaultPrompt = agent.DefaultPrompt

// ErrUnknownPrompt means Config.Prompt names no prompt version.
var ErrUnknownPrompt = agent.ErrUnknownPrompt

// PromptVersions lists the agent's prompt versions, oldest first.
func PromptVersions() []string { return agent.PromptVersions() }

// Prompt is the prompt version questions are answered with; "" for the
// offline planner, which has none.
func (s *Service) Prompt() string {
	if s.model == nil {
		return ""
	}
	if s.prompt == "" {
		return DefaultPrompt
	}
	return s.prompt
}

// Provider names who answers: the model provider and model, or "offline"
// and "" for the built-in planner.
func (s *Service) Provider() (name, model string) {
	if s.model == nil {
		return offline.Provider, ""
	}
	return s.model.Name(), s.model.Model()
}

// Close releases the trace file.
func (s *Service) Close() error { return s.trace.Close() }

// Ask answers question in conv. onText, when set, receives the answer text
// as it comes (the agent streams the model's text; the planner sends its
// answer once). Questions of one conversation wait for each other; waiting
// ends with ctx.
//
// The error is non-nil only when the question could not be worked on at
// all (the provider failed, the database or the conversation could not be
// read); every other ending is a Bundle with its Status. When the exchange
// cannot be kept in the conversation, the bundle says so in its Flags.
func (s *Service) Ask(ctx context.Context, question string, conv Conversation, onText func(string)) (*answer.Bundle, error) {
	if conv.DB == nil {
		return nil, errors.New("ask: no database given")
	}
	a := s.answerer(conv.DB)
	if conv.Key == "" {
		return a.answer(ctx, History{}, question, onText)
	}
	unlock, err := s.lock(ctx, conv.Key)
	if err != nil {
		return nil, err
	}
	defer unlock()
	h, err := s.store.Load(ctx, conv.Key)
	if err != nil {
		return nil, fmt.Errorf("read conversation: %w", err)
	}
	h.Turns = lastTurns(h.Turns, s.turns)
	b, err := a.answer(ctx, h, question, onText)
	if err != nil || b == nil {
		return b, err
	}
	if err := s.store.Save(ctx, conv.Key, h.after(question, b, s.turns)); err != nil {
		b.Flags = append(b.Flags, "this exchange could not be kept in the conversation ("+err.Error()+"); the next question will not see it")
	}
	return b, nil
}

// answerer is the agent or the planner of one database.
type answerer interface {
	answer(ctx context.Context, h History, question string, onText func(string)) (*answer.Bundle, error)
}

type agentAnswerer struct{ a *agent.Agent }

func (x agentAnswerer) answer(ctx context.Context, h History, question string, onText func(string)) (*answer.Bundle, error) {
	return x.a.AskAfter(ctx, h.Turns, question, onText)
}

type plannerAnswerer struct{ p *offline.Planner }

func (x plannerAnswerer) answer(ctx context.Context, h History, question string, onText func(string)) (*answer.Bundle, error) {
	b, err := x.p.AnswerAfter(ctx, h.Turns, h.Last, question)
	if err == nil && onText != nil {
		onText(b.Answer)
	}
	return b, err
}

// answerer returns d's agent or planner, building it on first use. A
// planner builds its indexes on its first question and keeps them.
func (s *Service) answerer(d *db.DB) answerer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.answerers[d]; ok {
		return a
	}
	var a answerer
	if s.model == nil {
		a = plannerAnswerer{offline.NewKept(d, s.indexDir)}
	} else {
		a = agentAnswerer{agent.New(d, s.model, agent.CoreTools(d), agent.Options{Trace: s.trace, Prompt: s.prompt, NoReview: s.noReview, Escalate: s.escalate})}
	}
	s.answerers[d] = a
	return a
}

// convLock lets one question of a conversation run at a time. refs counts
// the questions holding or waiting for it; at zero it is dropped, so locks
// exist only for conversations with a question in flight.
type convLock struct {
	token chan struct{}
	refs  int
}

// lock waits until no other question of conversation key runs, or ctx
// ends, and returns the function that lets the next one run.
func (s *Service) lock(ctx context.Context, key string) (unlock func(), err error) {
	s.mu.Lock()
	l := s.busy[key]
	if l == nil {
		l = &convLock{token: make(chan struct{}, 1)}
		s.busy[key] = l
	}
	l.refs++
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if l.refs--; l.refs == 0 {
			delete(s.busy, key)
		}
	}
	select {
	case l.token <- struct{}{}:
		return func() { <-l.token; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// History is what a conversation remembers.
type History struct {
	// Turns are its exchanges that ended answered or with a clarification,
	// oldest first, at most the service's HistoryTurns.
	Turns []answer.Turn `json:"turns"`
	// Last is the bundle of its latest question however it ended (a
	// clarification asked, choices offered, a refusal), without the preview
	// rows; nil before the first.
	Last *answer.Bundle `json:"last,omitempty"`
}

// after is h once question got b, remembering at most n turns. h is not
// changed.
func (h History) after(question string, b *answer.Bundle, n int) History {
	turns := slices.Clone(h.Turns)
	if (b.Status == answer.StatusAnswered || b.Status == answer.StatusClarify) && b.Answer != "" {
		turns = append(turns, answer.Turn{Question: question, Answer: b.Answer})
	}
	return History{Turns: lastTurns(turns, n), Last: withoutRows(b)}
}

// withoutRows is a copy of b without its preview rows that shares nothing
// with b, so the front door may go on changing b.
func withoutRows(b *answer.Bundle) *answer.Bundle {
	c := *b
	c.Rows = nil
	c.Columns = slices.Clone(b.Columns)
	c.FollowUps = slices.Clone(b.FollowUps)
	c.Flags = slices.Clone(b.Flags)
	c.Steps = slices.Clone(b.Steps)
	if b.Chart != nil {
		chart := *b.Chart
		c.Chart = &chart
	}
	if b.Checks != nil {
		ch := *b.Checks
		ch.Literals = slices.Clone(ch.Literals)
		for i := range ch.Literals {
			ch.Literals[i].Closest = slices.Clone(ch.Literals[i].Closest)
		}
		ch.Notes = slices.Clone(ch.Notes)
		ch.Models = slices.Clone(ch.Models)
		if ch.Review != nil {
			rv := *ch.Review
			ch.Review = &rv
		}
		c.Checks = &ch
	}
	if b.Clarification != nil {
		cl := *b.Clarification
		cl.Options = slices.Clone(cl.Options)
		c.Clarification = &cl
	}
	return &c
}

// lastTurns is the last n of turns.
func lastTurns(turns []answer.Turn, n int) []answer.Turn {
	if len(turns) > n {
		return slices.Clone(turns[len(turns)-n:])
	}
	return turns
}
