package discord

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/discord/discordtest"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/testdb"
)

// testToken looks like a bot token, long enough to be searched for in
// logs.
const testToken = "MTA5ODc2NTQzMjEwOTg3NjU0.GxYzAb.test-token-k3n9QpLmZrTvWx"

// People in the tests.
var (
	ann = discordtest.User{ID: "100000000000000001", Name: "ann"}
	bob = discordtest.User{ID: "100000000000000002", Name: "bob"}
)

// Places in the tests.
const (
	guild    = "200000000000000001"
	general  = "300000000000000001"
	other    = "300000000000000002"
	dmAnn    = "300000000000000009"
	mentionB = "<@" + discordtest.BotID + ">"
)

// harness is a bot connected to a fake Discord.
type harness struct {
	fake *discordtest.Server
	bot  *Bot
	logs *testdb.Buffer
	stop func() error // ends Run and returns its error
}

// sharedOffline is one answer service without a model for every test:
// the built-in planner builds its indexes of a database once per
// service, which takes seconds under the race detector.
var (
	sharedOnce    sync.Once
	sharedOffline *ask.Service
	sharedErr     error
)

// offline is the answer service without a model (the built-in planner),
// shared by the tests, each in conversations of its own.
func offline(t *testing.T) Asker {
	t.Helper()
	sharedOnce.Do(func() { sharedOffline, sharedErr = ask.New(ask.Config{Provider: "offline"}) })
	require.NoError(t, sharedErr)
	prefix := t.Name() + "/"
	return askerFunc(func(ctx context.Context, q string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error) {
		conv.Key = prefix + conv.Key
		return sharedOffline.Ask(ctx, q, conv, onText)
	})
}

// scripted is the answer service with a model: the agent, talking to a
// scripted model server.
func scripted(t *testing.T, turns ...llmtest.Turn) (*ask.Service, *llmtest.Server) {
	t.Helper()
	f := llmtest.New(t, "openai", turns...)
	vars := f.Env()
	svc, err := ask.New(ask.Config{Getenv: func(k string) string { return vars[k] }, TracePath: filepath.Join(t.TempDir(), "trace.jsonl")})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	return svc, f
}

func sample(t *testing.T) *db.DB { return testdb.Sample(t) }

// start connects a bot to a new fake Discord. opt's token, HTTP client
// and logger are filled in; Ask defaults to the offline planner and
// Databases to the sample.
func start(t *testing.T, opt Options, fopt discordtest.Options) *harness {
	t.Helper()
	fopt.Token = testToken
	fake := discordtest.New(t, fopt)
	logs := &testdb.Buffer{}
	opt.Token = testToken
	opt.HTTPClient = fake.Client()
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opt.Ask == nil {
		opt.Ask = offline(t)
	}
	if len(opt.Databases) == 0 {
		opt.Databases = []*db.DB{sample(t)}
	}
	if opt.ShutdownGrace == 0 {
		opt.ShutdownGrace = 5 * time.Second
	}
	if opt.UploadLimit == 0 && fopt.UploadLimit != 0 {
		opt.UploadLimit = fopt.UploadLimit
	}
	bot, err := New(opt)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bot.Run(ctx) }()
	select {
	case <-bot.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("the bot did not start: %v\nlogs:\n%s", err, logs.String())
	case <-time.After(15 * time.Second):
		cancel()
		t.Fatalf("the bot did not start in 15 s\nlogs:\n%s", logs.String())
	}
	var once sync.Once
	var runErr error
	h := &harness{fake: fake, bot: bot, logs: logs}
	h.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(30 * time.Second):
				t.Errorf("Run did not return 30 s after its context ended")
			}
		})
		return runErr
	}
	t.Cleanup(func() {
		require.NoError(t, h.stop())
		if rej := fake.Rejects(); len(rej) > 0 {
			t.Errorf("the fake Discord refused requests: %q", rej)
		}
		if strings.Contains(logs.String(), testToken) {
			t.Errorf("the bot token is in the logs")
		}
		if t.Failed() {
			t.Logf("logs:\n%s", logs.String())
		}
	})
	return h
}

// mention sends "@bot text" from u in channel and returns its id.
func (h *harness) mention(t *testing.T, u discordtest.User, channel, text string) string {
	t.Helper()
	return h.fake.Send(t, discordtest.Msg{Channel: channel, Guild: guild, Author: u, Content: mentionB + " " + text, MentionBot: true})
}

// repliesTo waits for n messages that reply to message id (the first
// message of a reply carries the reference; the rest follow it).
func (h *harness) replyTo(t *testing.T, id string) []discordtest.Message {
	t.Helper()
	var out []discordtest.Message
	h.fake.WaitFor(t, "a reply to "+id, 20*time.Second, func() bool {
		out = out[:0]
		ms := h.fake.Messages()
		for i, m := range ms {
			if m.Reference != nil && m.Reference.MessageID == id {
				out = append(out, m)
				// Later messages in the same channel without a reference
				// belong to the same reply until another reply starts.
				for _, n := range ms[i+1:] {
					if n.ChannelID != m.ChannelID || n.Via != "channel" || n.Reference != nil {
						break
					}
					out = append(out, n)
				}
				return hasFooter(out)
			}
		}
		return false
	})
	return out
}

// footerLine is how every answer ends: its footer, with the request id.
var footerLine = regexp.MustCompile(`(^|\n)-# (.* · )?ref [0-9a-f]{8}$`)

// hasFooter says whether messages make a whole reply: answers end with
// their footer; short notices (rate limits, refusals, cancels) are one
// message without one.
func hasFooter(ms []discordtest.Message) bool {
	if len(ms) == 0 {
		return false
	}
	if footerLine.MatchString(ms[len(ms)-1].Content) {
		return true
	}
	return len(ms) == 1 && len(ms[0].Content) < 500
}

// askerFunc adapts a function to Asker.
type askerFunc func(ctx context.Context, q string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error)

func (f askerFunc) Ask(ctx context.Context, q string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error) {
	return f(ctx, q, conv, onText)
}
