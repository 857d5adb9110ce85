package discord

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/discord/discordtest"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

// TestLongAnswerIsSplit: an answer longer than one message goes out in
// several, each within Discord's 2,000 characters (the fake refuses
// more), in order, with nothing lost; the footer ends the last.
func TestLongAnswerIsSplit(t *testing.T) {
	t.Parallel()
	var paras []string
	for i := range 6 {
		paras = append(paras, fmt.Sprintf("Paragraph %d: %s", i+1, strings.Repeat(fmt.Sprintf("the customers of region %d buy lamps and rugs; ", i+1), 18)))
	}
	long := strings.Join(paras, "\n\n")
	require.Greater(t, len(long), 5000)
	svc, _ := scripted(t,
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)),
		llmtest.Text(long),
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)),
		llmtest.Text(long),
	)
	h := start(t, Options{Ask: svc}, discordtest.Options{})
	id := h.mention(t, ann, general, "Tell me everything about the customers.")
	h.fake.WaitFor(t, "the footer", 20*time.Second, func() bool {
		ms := h.fake.Messages()
		return len(ms) > 0 && strings.Contains(ms[len(ms)-1].Content, "\n-# ")
	})
	ms := h.fake.Messages()
	require.GreaterOrEqual(t, len(ms), 3)
	require.Equal(t, id, ms[0].Reference.MessageID, "the first part replies to the question")
	all := discordtest.TextOf(ms)
	last := -1
	for i, p := range paras {
		for _, sentence := range strings.Split(p, "; ") {
			require.Contains(t, all, strings.TrimSpace(sentence), "paragraph %d lost words", i+1)
		}
		at := strings.Index(all, fmt.Sprintf("Paragraph %d:", i+1))
		require.Greater(t, at, last, "paragraphs out of order")
		last = at
	}
	for _, m := range ms {
		require.LessOrEqual(t, textLen(m.Content), maxContent)
		require.Zero(t, strings.Count(m.Content, "```")%2, "a code block split across messages:\n%s", m.Content)
	}
	require.Contains(t, ms[len(ms)-1].Content, "```sql\nSELECT count(*) AS n FROM customers\n```", "the SQL follows the answer")

	// Through /ask: the deferred response holds the first part, follow-up
	// messages the rest.
	cmd := h.fake.Run(t, discordtest.Command{Channel: other, Guild: guild, User: ann, Name: "ask", Options: map[string]string{"question": "Tell me everything again."}})
	parts := h.answerTo(t, cmd)
	require.Equal(t, len(ms), len(parts), "the same layout")
	require.Equal(t, "interaction", parts[0].Via)
	for i, p := range parts[1:] {
		require.Equal(t, "followup", p.Via, "part %d", i+2)
	}
	require.Equal(t, normalize(all), normalize(discordtest.TextOf(parts)))
}

// TestRateLimit: a user asking faster than the limit gets one polite
// reply and no answers until the bucket refills; other users are not
// affected.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	asked := make(chan string, 10)
	inner := offline(t)
	h := start(t, Options{UserRate: Rate{N: 2, Per: time.Minute}, Ask: askerFunc(func(ctx context.Context, q string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error) {
		asked <- q
		return inner.Ask(ctx, q, conv, onText)
	})}, discordtest.Options{})
	var ids []string
	for _, q := range []string{"How many customers are there?", "How many orders are there?", "How many products are there?", "How many reviews are there?"} {
		ids = append(ids, h.mention(t, ann, general, q))
	}
	h.replyTo(t, ids[0])
	h.replyTo(t, ids[1])
	slow := h.replyTo(t, ids[2])[0]
	require.Regexp(t, `^You're asking faster than this bot allows \(2 questions per minute per person\)\. Please try again in \d+ seconds\.$`, slow.Content)
	id := h.mention(t, bob, general, "How many categories are there?")
	h.replyTo(t, id)
	for _, m := range h.fake.Messages() {
		require.NotEqual(t, ids[3], refID(m), "the fourth question gets no second warning")
	}
	require.Len(t, asked, 3, "ann's first two and bob's")
}

// TestConversationsRunConcurrentlyAndInOrder: one channel's questions are
// answered one after the other in the order asked, while another
// channel's question is answered meanwhile.
func TestConversationsRunConcurrentlyAndInOrder(t *testing.T) {
	t.Parallel()
	first := make(chan struct{})
	asked := make(chan string, 10)
	h := start(t, Options{Ask: askerFunc(func(ctx context.Context, q string, conv ask.Conversation, _ func(string)) (*answer.Bundle, error) {
		asked <- q
		if q == "A1" {
			select { // held until channel B has its answer
			case <-first:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &answer.Bundle{Question: q, Status: answer.StatusAnswered, Answer: "answer to " + q + " in " + conv.Key, Provider: "offline"}, nil
	})}, discordtest.Options{})
	a1 := h.mention(t, ann, general, "A1")
	a2 := h.mention(t, ann, general, "A2")
	a3 := h.mention(t, bob, general, "A3")
	b1 := h.mention(t, bob, other, "B1")
	got := h.replyTo(t, b1)
	require.Contains(t, got[0].Content, "answer to B1 in discord:"+other)
	for _, m := range h.fake.Messages() {
		require.NotContains(t, m.Content, "answer to A", "channel A's answers wait behind A1")
	}
	require.ElementsMatch(t, []string{"A1", "B1"}, drain(asked, 2), "A2 is not asked while A1 is in flight")
	close(first)
	for _, id := range []string{a1, a2, a3} {
		h.replyTo(t, id)
	}
	var order []string
	for _, m := range h.fake.Messages() {
		if m.ChannelID == general {
			order = append(order, strings.Fields(m.Content)[2])
		}
	}
	require.Equal(t, []string{"A1", "A2", "A3"}, order)
	require.Equal(t, []string{"A2", "A3"}, drain(asked, 2))
}

// refID is the id of the message m replies to, or "".
func refID(m discordtest.Message) string {
	if m.Reference == nil {
		return ""
	}
	return m.Reference.MessageID
}

func drain(c chan string, n int) []string {
	var out []string
	for range n {
		select {
		case s := <-c:
			out = append(out, s)
		case <-time.After(10 * time.Second):
			return out
		}
	}
	return out
}

// TestRefusalLeavesDatabaseUnchanged: asked to drop a table, the model's
// DROP is refused by the guard and the bot answers politely; /sql DROP
// and DELETE are refused with the guard's reason; the file is unchanged.
func TestRefusalLeavesDatabaseUnchanged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shop.db")
	require.NoError(t, os.WriteFile(path, data.SampleBytes(), 0o644))
	before := testdb.FileHash(t, path)
	d := testdb.OpenWith(t, path, db.Options{Label: "shop"})
	svc, model := scripted(t,
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"DROP TABLE customers"}`)),
		llmtest.Text("I can't do that: the database is read-only, so nothing was dropped."),
	)
	h := start(t, Options{Ask: svc, Databases: []*db.DB{d}}, discordtest.Options{})
	id := h.mention(t, ann, general, "Drop the customers table.")
	m := h.replyTo(t, id)[0]
	require.True(t, strings.HasPrefix(m.Content, "I can't do that: the database is read-only, so nothing was dropped."), m.Content)
	require.Contains(t, model.ToolResults(1)[0], "refused — the database is read-only")

	for _, sql := range []string{"DROP TABLE customers", "DELETE FROM customers"} {
		id := h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "sql", Options: map[string]string{"query": sql}})
		m := h.answerTo(t, id)[0]
		require.Contains(t, m.Content, "🚫 Refused: ")
		require.Contains(t, m.Content, "is not allowed: the database is read-only")
		require.Contains(t, m.Content, "The database was not changed.")
		require.Empty(t, m.Files)
	}
	res, err := query.Collect(context.Background(), d, "SELECT count(*) FROM customers", query.Options{})
	require.NoError(t, err)
	require.EqualValues(t, 2400, res.Rows[0][0])
	require.Equal(t, before, testdb.FileHash(t, path), "the database file is unchanged")
}

// TestChartFailureStillDeliversTheAnswer: when the chart cannot be drawn
// the answer, SQL, preview and CSV still arrive, with a note, and the
// failure is logged.
func TestChartFailureStillDeliversTheAnswer(t *testing.T) {
	t.Parallel()
	h := start(t, Options{ChartTimeout: time.Nanosecond}, discordtest.Options{})
	id := h.mention(t, ann, general, "How many customers are there per country?")
	m := h.replyTo(t, id)[0]
	require.Contains(t, m.Content, "Number of customers per country")
	require.Contains(t, m.Content, "```sql\n")
	require.Regexp(t, `The chart could not be drawn \(ref [0-9a-f]{8}\); the answer stands without it\.`, m.Content)
	require.Nil(t, fileNamed(m, "chart.png"))
	require.NotNil(t, fileNamed(m, "result.csv"))
	require.Contains(t, h.logs.String(), `msg="chart left out: it could not be drawn"`)
	require.Contains(t, h.logs.String(), "deadline exceeded")
}

// TestClarificationResumedByReply: a clarification comes with buttons;
// the asker's reply to it continues the same conversation with the
// original question and the answer; others' replies are not taken; a
// button continues it too; `cancel` drops one; a new question replaces
// one.
func TestClarificationResumedByReply(t *testing.T) {
	t.Parallel()
	clarify := llmtest.Calls(llmtest.Call("ask_user", `{"question":"Biggest by what: revenue or number of orders?","options":["revenue","number of orders"]}`))
	svc, model := scripted(t,
		clarify,
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT c.name AS country, count(*) AS orders FROM orders o JOIN customers cu USING (customer_id) JOIN countries c USING (country_id) GROUP BY c.name ORDER BY orders DESC LIMIT 1"}`)),
		llmtest.Text("By number of orders, the United States."),
		clarify,
		llmtest.Text("By revenue, the United States too."),
		clarify,
		clarify,
		llmtest.Text("Fine."),
	)
	h := start(t, Options{Ask: svc, UserRate: Rate{N: -1}}, discordtest.Options{})
	id := h.mention(t, ann, general, "Which is the biggest country?")
	q := h.replyTo(t, id)[0]
	require.True(t, strings.HasPrefix(q.Content, "❓ Biggest by what: revenue or number of orders?\n"), q.Content)
	bs := buttons(q)
	require.Len(t, bs, 3)
	require.Equal(t, []string{"revenue", "number of orders", "Cancel"}, []string{bs[0].Label, bs[1].Label, bs[2].Label})

	h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: bob, Content: "revenue", ReplyTo: q.ID})
	reply := h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: ann, Content: "number of orders", ReplyTo: q.ID})
	m := h.replyTo(t, reply)[0]
	require.True(t, strings.HasPrefix(m.Content, "By number of orders, the United States."), m.Content)
	// The question may come with the schema cards a search picked.
	require.Contains(t, strings.Join(model.Texts(1), "\n"), "user: Which is the biggest country?\n\nClarification — Biggest by what: revenue or number of orders? number of orders")
	require.Contains(t, model.Texts(1), "assistant: Biggest by what: revenue or number of orders?", "the same conversation")
	require.Len(t, model.Requests(), 3, "bob's reply was not taken")

	id = h.mention(t, ann, general, "Which is the biggest country?")
	q = h.replyTo(t, id)[0]
	click := h.fake.Click(t, q, guild, ann, buttons(q)[0].CustomID)
	m = h.answerTo(t, click)[0]
	require.True(t, strings.HasPrefix(m.Content, "By revenue, the United States too."), m.Content)

	id = h.mention(t, ann, general, "Which is the biggest country?")
	q = h.replyTo(t, id)[0]
	cancel := h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: ann, Content: "cancel", ReplyTo: q.ID})
	require.Equal(t, "Dropped the open question. Ask another whenever you like.", h.replyTo(t, cancel)[0].Content)
	late := h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: ann, Content: "revenue", ReplyTo: q.ID})

	id = h.mention(t, ann, general, "Which is the biggest country?")
	q = h.replyTo(t, id)[0]
	id = h.mention(t, ann, general, "Never mind: how are you?")
	require.True(t, strings.HasPrefix(h.replyTo(t, id)[0].Content, "Fine."))
	stale := h.fake.Click(t, q, guild, ann, buttons(q)[0].CustomID)
	got := h.answerTo(t, stale)
	require.Equal(t, "This is no longer open — ask again with `/ask` or by mentioning me.", got[0].Content, "the new question replaced it")
	for _, x := range h.fake.Messages() {
		require.NotEqual(t, late, refID(x), "a reply to a cancelled question is not taken")
	}
}

// TestReconnectAfterDroppedGateway: when the gateway connection drops,
// discordgo reconnects and resumes the session, and questions are
// answered again.
func TestReconnectAfterDroppedGateway(t *testing.T) {
	t.Parallel()
	h := start(t, Options{}, discordtest.Options{})
	require.Equal(t, 1, h.fake.Stats().Connections)
	h.fake.Drop()
	h.fake.WaitFor(t, "a resumed session", 15*time.Second, func() bool { return h.fake.Stats().Resumes == 1 })
	st := h.fake.Stats()
	require.Equal(t, 2, st.Connections)
	require.Equal(t, 1, st.Identifies, "resumed, not identified again")
	id := h.mention(t, ann, general, "How many customers are there?")
	require.Contains(t, h.replyTo(t, id)[0].Content, "2,400")
	require.Contains(t, h.logs.String(), "gateway disconnected; reconnecting")
	require.Contains(t, h.logs.String(), "gateway session resumed")
}

// TestTokenNeverLogged: at debug level discordgo logs its IDENTIFY packet
// (with the bot token) and every gateway event (interaction tokens); the
// logs hold neither.
//
// Not parallel: discordgo has one logger per process, which goes to the
// bot started last.
func TestTokenNeverLogged(t *testing.T) {
	h := start(t, Options{Ask: askerFunc(func(_ context.Context, q string, _ ask.Conversation, _ func(string)) (*answer.Bundle, error) {
		return &answer.Bundle{Question: q, Status: answer.StatusAnswered, Answer: "There are 2,400 customers.", Provider: "offline"}, nil
	})}, discordtest.Options{})
	id := h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "ask", Options: map[string]string{"question": "How many customers are there?"}})
	h.answerTo(t, id)
	require.NoError(t, h.stop())
	logs := h.logs.String()
	require.Contains(t, logs, "Identify Packet", "discordgo logged its IDENTIFY packet")
	require.Contains(t, logs, "INTERACTION_CREATE", "discordgo logged the interaction")
	require.Contains(t, logs, "[redacted]")
	require.NotContains(t, logs, testToken)
	toks := h.fake.Tokens()
	require.NotEmpty(t, toks)
	for _, tok := range toks {
		require.NotContains(t, logs, tok)
	}
}

func TestRedact(t *testing.T) {
	rememberSecret(testToken)
	for _, c := range []struct{ in, want string }{
		{"identify {Token:\"Bot " + testToken + "\"}", "identify {Token:\"Bot [redacted]\"}"},
		{`Patch "https://discord.com/api/v9/webhooks/900/itok123-abc_DEF.x/messages/@original": EOF`, `Patch "https://discord.com/api/v9/webhooks/900/[redacted]/messages/@original": EOF`},
		{`POST /api/v9/interactions/123/itokXYZ/callback`, `POST /api/v9/interactions/123/[redacted]/callback`},
		{`{"id":"1","token":"itok-secret","type":2}`, `{"id":"1","token":"[redacted]","type":2}`},
		{"nothing secret here", "nothing secret here"},
	} {
		require.Equal(t, c.want, redact(c.in))
	}
	var buf bytes.Buffer
	l := slog.New(redacting(slog.NewTextHandler(&buf, nil), testToken))
	l.With("token", testToken).Info("start "+testToken, "err", errors.New("bad "+testToken), "group", slog.GroupValue(slog.String("t", testToken)))
	require.NotContains(t, buf.String(), testToken)
	require.Equal(t, 4, strings.Count(buf.String(), "[redacted]"), buf.String())
}

// TestShutdownFinishesOrCutsAnswers: once Run's context ends, an answer
// that finishes within the grace period is delivered and one that does
// not says it was cut.
func TestShutdownFinishesOrCutsAnswers(t *testing.T) {
	t.Parallel()
	started := make(chan string, 2)
	h := start(t, Options{ShutdownGrace: 1500 * time.Millisecond, Ask: askerFunc(func(ctx context.Context, q string, conv ask.Conversation, _ func(string)) (*answer.Bundle, error) {
		started <- q
		if q == "slow" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		time.Sleep(500 * time.Millisecond)
		return &answer.Bundle{Question: q, Status: answer.StatusAnswered, Answer: "done: " + q, Provider: "offline"}, nil
	})}, discordtest.Options{})
	slow := h.mention(t, ann, general, "slow")
	fast := h.mention(t, bob, other, "fast")
	drain(started, 2)
	require.NoError(t, h.stop())
	require.True(t, strings.HasPrefix(h.replyTo(t, fast)[0].Content, "done: fast"))
	require.Equal(t, cutText, h.replyTo(t, slow)[0].Content)
	require.Contains(t, h.logs.String(), "grace period over: cutting the answers still in flight")
}

// TestStartupErrors: no token, a token Discord rejects and a refused
// Message Content intent each end startup with an error that says what
// to do.
func TestStartupErrors(t *testing.T) {
	t.Parallel()
	_, err := New(Options{Token: "  ", Databases: []*db.DB{sample(t)}, Ask: offline(t)})
	require.ErrorIs(t, err, ErrNoToken)

	for _, c := range []struct {
		name  string
		token string
		fopt  discordtest.Options
		want  error
	}{
		{"rejected token", "wrong-token-0123456789", discordtest.Options{}, ErrTokenRejected},
		{"intent refused", testToken, discordtest.Options{RefuseIntents: true}, ErrIntents},
	} {
		t.Run(c.name, func(t *testing.T) {
			fopt := c.fopt
			fopt.Token = testToken
			fake := discordtest.New(t, fopt)
			var logs testdb.Buffer
			bot, err := New(Options{Token: c.token, Databases: []*db.DB{sample(t)}, Ask: offline(t), HTTPClient: fake.Client(),
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err = bot.Run(ctx)
			require.ErrorIs(t, err, c.want)
			require.NotContains(t, logs.String(), c.token)
		})
	}
}

// TestAllowLists: guild, channel (a thread by its parent) and role lists
// limit where and for whom the bot answers.
func TestAllowLists(t *testing.T) {
	t.Parallel()
	const thread, otherGuild, role = "400000000000000001", "200000000000000002", "500000000000000001"
	t.Run("guilds and channels", func(t *testing.T) {
		t.Parallel()
		h := start(t, Options{Allow: Allow{Guilds: []string{guild}, Channels: []string{general}}}, discordtest.Options{})
		require.Len(t, h.fake.Commands(guild), 2, "commands go to the allowed guild")
		require.Empty(t, h.fake.Commands(""))
		h.fake.AddChannel(&discordgo.Channel{ID: thread, GuildID: guild, ParentID: general, Type: discordgo.ChannelTypeGuildPublicThread})
		h.fake.Send(t, discordtest.Msg{Channel: general, Guild: otherGuild, Author: ann, Content: mentionB + " How many customers are there?", MentionBot: true})
		h.fake.Send(t, discordtest.Msg{Channel: dmAnn, Author: ann, Content: "How many customers are there?"})
		h.mention(t, ann, other, "How many customers are there?")
		id := h.mention(t, ann, thread, "How many customers are there?")
		require.Contains(t, h.replyTo(t, id)[0].Content, "2,400", "a thread of an allowed channel")
		cmd := h.fake.Run(t, discordtest.Command{Channel: other, Guild: guild, User: ann, Name: "ask", Options: map[string]string{"question": "How many customers are there?"}})
		require.Equal(t, "I don't answer in this channel.", h.answerTo(t, cmd)[0].Content)
		id = h.mention(t, ann, general, "How many orders are there?")
		h.replyTo(t, id)
		require.Len(t, h.fake.Messages(), 3, "the other guild, the DM and the other channel got nothing")
	})
	t.Run("roles", func(t *testing.T) {
		t.Parallel()
		h := start(t, Options{Allow: Allow{Roles: []string{role}}}, discordtest.Options{})
		member := discordtest.User{ID: "100000000000000005", Name: "cat", Roles: []string{role}}
		h.mention(t, ann, general, "How many customers are there?")
		cmd := h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "ask", Options: map[string]string{"question": "How many customers are there?"}})
		got := h.answerTo(t, cmd)[0]
		require.Equal(t, "I don't answer here.", got.Content)
		require.Equal(t, int(discordgo.MessageFlagsEphemeral), got.Flags)
		id := h.mention(t, member, general, "How many customers are there?")
		require.Contains(t, h.replyTo(t, id)[0].Content, "2,400")
		require.Len(t, h.fake.Messages(), 2, "ann's mention got nothing")
	})
}

// TestCSVWithinTheUploadLimit: a result larger than the upload limit is
// exported up to it, cut at a row, and the preview says how much it holds.
func TestCSVWithinTheUploadLimit(t *testing.T) {
	t.Parallel()
	const limit = 400 << 10
	h := start(t, Options{}, discordtest.Options{UploadLimit: limit})
	id := h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "sql", Options: map[string]string{"query": "SELECT * FROM order_items"}})
	m := h.answerTo(t, id)[0]
	f := fileNamed(m, "result.csv")
	require.NotNil(t, f)
	total := 0
	for _, x := range m.Files {
		total += len(x.Data)
	}
	require.LessOrEqual(t, total, limit)
	recs, err := csv.NewReader(bytes.NewReader(f.Data)).ReadAll()
	require.NoError(t, err, "the CSV is cut at a row")
	rows := len(recs) - 1
	require.Greater(t, rows, 1000)
	require.Less(t, rows, 28445)
	require.Contains(t, m.Content, fmt.Sprintf("result.csv holds the first %s rows", format.Count(int64(rows))))
}

// TestOfflineRefusal: without a model, a question the planner cannot map
// gets its plain refusal, with the follow-ups it can answer.
func TestOfflineRefusal(t *testing.T) {
	t.Parallel()
	h := start(t, Options{}, discordtest.Options{})
	id := h.fake.Send(t, discordtest.Msg{Channel: dmAnn, Author: ann, Content: "Why did revenue drop last spring?"})
	m := h.replyTo(t, id)[0]
	require.True(t, strings.HasPrefix(m.Content, "The built-in planner can't answer this:"), m.Content)
	require.Contains(t, m.Content, "configure a model for open-ended questions")
	require.NotContains(t, m.Content, "```", "no SQL ran")
	require.NotNil(t, selectMenu(m), "the follow-ups it can answer")
}

// TestCSVIsFormulaSafe: a text cell that a spreadsheet would run as a
// formula is quoted in the CSV, as by tablewise export.
func TestCSVIsFormulaSafe(t *testing.T) {
	t.Parallel()
	fixture := testdb.OpenWith(t, testdb.Fixture(t), db.Options{Label: "fixture"})
	h := start(t, Options{Databases: []*db.DB{fixture}}, discordtest.Options{})
	id := h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "sql", Options: map[string]string{"query": "SELECT c.name, t1.a, t2.a AS b FROM customer c, t t1, t t2, t t3 ORDER BY c.id"}})
	m := h.answerTo(t, id)[0]
	f := fileNamed(m, "result.csv")
	require.NotNil(t, f, "32 rows: more than the preview")
	recs, err := csv.NewReader(bytes.NewReader(f.Data)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 33)
	require.Equal(t, `'=HYPERLINK("http://x")`, recs[32][0])
}

// TestAttachmentsRefusedStillDeliverText: when Discord refuses the files
// (this server's upload limit is lower than the bot was told), the text
// goes again without them, saying so.
func TestAttachmentsRefusedStillDeliverText(t *testing.T) {
	t.Parallel()
	h := start(t, Options{UploadLimit: 10 << 20}, discordtest.Options{UploadLimit: 50 << 10})
	id := h.mention(t, ann, general, "How many order items are there per product?")
	m := h.replyTo(t, id)[0]
	require.Empty(t, m.Files)
	require.Contains(t, m.Content, "```sql\n")
	require.Contains(t, m.Content, filesRefused)
	require.Contains(t, h.logs.String(), "attachments refused; sending the text without them")
	rej := h.fake.Rejects()
	require.Len(t, rej, 1)
	require.Contains(t, rej[0], "more than the upload limit")
	h.fake.ClearRejects()
}

// TestLongNameInSQLErrorIsClipped: /sql naming a table of 5,000
// characters (Discord takes up to 6,000 in an option) answered with the
// whole name, clipped only by the message's limit. The error shows the
// name's start and length.
func TestLongNameInSQLErrorIsClipped(t *testing.T) {
	t.Parallel()
	long := "tw_" + strings.Repeat("x", 4997)
	h := start(t, Options{}, discordtest.Options{})
	id := h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "sql", Options: map[string]string{"query": "SELECT * FROM " + long}})
	m := h.answerTo(t, id)[0]
	require.Contains(t, m.Content, "SQL error: no such table: "+long[:100])
	require.Contains(t, m.Content, "(5,000 characters)")
	require.Less(t, len(m.Content), 1000, m.Content)
}
