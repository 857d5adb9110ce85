package discord

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/discord/discordtest"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/llm/llmtest"
)

// fileNamed returns the attachment called name, or nil.
func fileNamed(m discordtest.Message, name string) *discordtest.File {
	for i := range m.Files {
		if m.Files[i].Name == name {
			return &m.Files[i]
		}
	}
	return nil
}

// selectMenu returns the message's select menu, or nil.
func selectMenu(m discordtest.Message) *discordgo.SelectMenu {
	for _, c := range m.Components {
		if row, ok := c.(*discordgo.ActionsRow); ok {
			for _, x := range row.Components {
				if sm, ok := x.(*discordgo.SelectMenu); ok {
					return sm
				}
			}
		}
	}
	return nil
}

// buttons returns the message's buttons.
func buttons(m discordtest.Message) []*discordgo.Button {
	var out []*discordgo.Button
	for _, c := range m.Components {
		if row, ok := c.(*discordgo.ActionsRow); ok {
			for _, x := range row.Components {
				if b, ok := x.(*discordgo.Button); ok {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// TestMentionAnswersWithSQLPreviewCSVAndChart: a mention gets one reply
// with the answer, the SQL, a 10-row preview, the whole result as a CSV,
// the chart as a PNG, the follow-ups as a menu and the footer.
func TestMentionAnswersWithSQLPreviewCSVAndChart(t *testing.T) {
	t.Parallel()
	h := start(t, Options{}, discordtest.Options{})
	require.Len(t, h.fake.Commands(""), 2, "/ask and /sql are registered globally")
	id := h.mention(t, ann, general, "How many customers are there per country?")
	got := h.replyTo(t, id)
	require.Len(t, got, 1)
	m := got[0]
	require.Equal(t, general, m.ChannelID)
	require.Contains(t, m.Content, "Number of customers per country (26 countries); highest: United States (544)")
	require.Contains(t, m.Content, "```sql\nSELECT countries.name AS country, COUNT(customers.customer_id) AS number_of_customers FROM countries")
	require.Contains(t, m.Content, "country         number_of_customers\n──────────────  ───────────────────\nUnited States                   544\n")
	require.Contains(t, m.Content, "-# First 10 of 26 rows · all 26 in result.csv")
	require.Regexp(t, `\n-# no model calls · \d+\.\d s · offline planner · ref [0-9a-f]{8}$`, m.Content)
	table := strings.Split(m.Content, "```")[3] // after the SQL block: the preview
	require.Len(t, strings.Split(strings.Trim(table, "\n"), "\n"), 12, "header, rule and 10 rows:\n%s", table)
	require.NotContains(t, table, "Vietnam", "the 26th row is only in the CSV")

	f := fileNamed(m, "result.csv")
	require.NotNil(t, f, "CSV attached")
	recs, err := csv.NewReader(bytes.NewReader(f.Data)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 27)
	require.Equal(t, []string{"country", "number_of_customers"}, recs[0])
	require.Equal(t, []string{"United States", "544"}, recs[1])
	require.Equal(t, "Vietnam", recs[26][0])

	img := fileNamed(m, "chart.png")
	require.NotNil(t, img, "chart attached")
	require.Equal(t, "image/png", img.ContentType)
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	require.NoError(t, err)
	require.Equal(t, [2]int{chartWidth, chartHeight}, [2]int{cfg.Width, cfg.Height})

	sm := selectMenu(m)
	require.NotNil(t, sm, "follow-ups offered")
	require.Equal(t, "How many customers were there per year?", sm.Options[0].Label)
	require.JSONEq(t, `{"parse":[],"replied_user":false}`, string(m.AllowedMentions), "a reply pings nobody")
	require.Greater(t, h.fake.Stats().Heartbeats, 0, "the bot heartbeats")
}

// TestMentionWithAModel: the same reply when the agent answers through a
// scripted model, with the model's calls, tokens and cost in the footer.
func TestMentionWithAModel(t *testing.T) {
	t.Parallel()
	svc, model := scripted(t,
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT c.name AS country, count(*) AS customers FROM customers cu JOIN countries c USING (country_id) GROUP BY c.name ORDER BY customers DESC"}`)),
		llmtest.Calls(llmtest.Call("make_chart", `{"kind":"bar","x":"country","y":"customers"}`)),
		llmtest.Text("The United States has the most customers: 544."),
	)
	h := start(t, Options{Ask: svc}, discordtest.Options{})
	id := h.mention(t, ann, general, "Which country has the most customers?")
	m := h.replyTo(t, id)[0]
	require.True(t, strings.HasPrefix(m.Content, "The United States has the most customers: 544.\n```sql\nSELECT c.name AS country"), m.Content)
	require.Contains(t, m.Content, "-# First 10 of 24 rows · all 24 in result.csv")
	// Three calls answer; the fourth is the review of the SQL (approved by
	// the scripted server on its own, outside its request log).
	require.Regexp(t, `\n-# 4 model calls · 4,000 in \+ 200 out tokens · (\$[0-9.]+ · )?\d+\.\d s · openai/\S+ · ref [0-9a-f]{8}$`, m.Content)
	require.NotNil(t, fileNamed(m, "result.csv"))
	require.NotNil(t, fileNamed(m, "chart.png"))
	require.Len(t, model.Requests(), 3)
}

// TestDirectMessage: in a DM every message is a question, no mention
// needed, and the conversation keeps its history.
func TestDirectMessage(t *testing.T) {
	t.Parallel()
	svc, model := scripted(t,
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)),
		llmtest.Text("There are 2,400 customers."),
		llmtest.Text("Yes: every one of the 2,400 has an email address."),
	)
	h := start(t, Options{Ask: svc}, discordtest.Options{})
	id := h.fake.Send(t, discordtest.Msg{Channel: dmAnn, Author: ann, Content: "How many customers are there?"})
	m := h.replyTo(t, id)[0]
	require.Equal(t, dmAnn, m.ChannelID)
	require.True(t, strings.HasPrefix(m.Content, "There are 2,400 customers.\n```sql\nSELECT count(*) AS n FROM customers\n```"), m.Content)
	require.Contains(t, m.Content, "n\n────\n2400")
	require.Contains(t, m.Content, "-# 1 row")
	require.Empty(t, m.Files, "the preview holds the whole result: no CSV")

	id = h.fake.Send(t, discordtest.Msg{Channel: dmAnn, Author: ann, Content: "Do they all have an email?"})
	h.replyTo(t, id)
	require.Contains(t, model.Texts(2), "assistant: There are 2,400 customers.", "the DM's history reaches the model")
}

// TestIgnoresBotsWebhooksAndUnrelatedTraffic: messages from bots (this
// one included), webhooks, and guild messages that do not mention the
// bot get nothing; the next real mention is answered.
func TestIgnoresBotsWebhooksAndUnrelatedTraffic(t *testing.T) {
	t.Parallel()
	asked := make(chan string, 10)
	inner := offline(t)
	h := start(t, Options{Ask: askerFunc(func(ctx context.Context, q string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error) {
		asked <- q
		return inner.Ask(ctx, q, conv, onText)
	})}, discordtest.Options{})
	other := discordtest.User{ID: "100000000000000077", Name: "otherbot", Bot: true}
	self := discordtest.User{ID: discordtest.BotID, Name: discordtest.BotName, Bot: true}
	h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: other, Content: mentionB + " How many customers are there?", MentionBot: true})
	h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: self, Content: mentionB + " How many customers are there?", MentionBot: true})
	h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: ann, Webhook: "55", Content: mentionB + " How many customers are there?", MentionBot: true})
	h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: ann, Content: "How many customers are there?"})
	h.fake.Send(t, discordtest.Msg{Channel: general, Guild: guild, Author: ann, Content: "@tablewise How many customers are there?"})
	id := h.mention(t, bob, general, "How many products are there?")
	h.replyTo(t, id)
	require.Len(t, h.fake.Messages(), 1, "only the real mention was answered")
	require.Equal(t, "How many products are there?", <-asked)
	require.Empty(t, asked)
}
