package discord

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/discord/discordtest"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
)

// answerTo waits for the message that answers interaction id.
func (h *harness) answerTo(t *testing.T, id string) []discordtest.Message {
	t.Helper()
	var out []discordtest.Message
	h.fake.WaitFor(t, "the answer to interaction "+id, 20*time.Second, func() bool {
		out = out[:0]
		for _, m := range h.fake.Messages() {
			if m.Interaction == id {
				out = append(out, m)
			}
		}
		return hasFooter(out)
	})
	return out
}

// TestSlashCommandDefersWithinThreeSeconds: /ask is acknowledged with a
// deferred response at once, while the answer is still being worked
// out, and the answer is edited into it; /sql likewise.
func TestSlashCommandDefersWithinThreeSeconds(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	inner := offline(t)
	h := start(t, Options{Ask: askerFunc(func(ctx context.Context, q string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return inner.Ask(ctx, q, conv, onText)
	})}, discordtest.Options{})
	id := h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "ask", Options: map[string]string{"question": "How many customers are there per country?"}})
	h.fake.WaitFor(t, "the deferred response", 5*time.Second, func() bool { return len(h.fake.Callbacks()) == 1 })
	cb := h.fake.Callbacks()[0]
	require.Equal(t, discordgo.InteractionResponseDeferredChannelMessageWithSource, cb.Type)
	require.Less(t, cb.Delay, 3*time.Second)
	require.Empty(t, h.fake.Messages(), "the answer is still held back")
	close(release)

	got := h.answerTo(t, id)
	require.Len(t, got, 1)
	m := got[0]
	require.Equal(t, "interaction", m.Via, "the deferred response was edited")
	require.Contains(t, m.Content, "Number of customers per country")
	require.Contains(t, m.Content, "```sql\nSELECT countries.name AS country")
	require.NotNil(t, fileNamed(m, "result.csv"))
	require.NotNil(t, fileNamed(m, "chart.png"))
	require.NotNil(t, selectMenu(m))

	id = h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: bob, Name: "sql", Options: map[string]string{"query": "SELECT name FROM categories ORDER BY name"}})
	m = h.answerTo(t, id)[0]
	require.True(t, strings.HasPrefix(m.Content, "```sql\nSELECT name FROM categories ORDER BY name\n```\n```\nname\n"), m.Content)
	require.Contains(t, m.Content, "-# First 10 of 11 rows · all 11 in result.csv")
	require.Regexp(t, `\n-# \d+\.\d s · SQL · ref [0-9a-f]{8}$`, m.Content)
	for _, cb := range h.fake.Callbacks() {
		require.Less(t, cb.Delay, 3*time.Second)
	}
}

// TestInteractionTokenExpiry: when Discord refuses the interaction's
// token (it lasts 15 minutes), the answer goes to the channel instead,
// naming its asker.
func TestInteractionTokenExpiry(t *testing.T) {
	t.Parallel()
	h := start(t, Options{}, discordtest.Options{TokenLifetime: time.Nanosecond})
	h.fake.Run(t, discordtest.Command{Channel: general, Guild: guild, User: ann, Name: "ask", Options: map[string]string{"question": "How many customers are there?"}})
	got := h.fake.WaitMessages(t, 1, func(m discordtest.Message) bool { return m.Via == "channel" })
	require.True(t, strings.HasPrefix(got[0].Content, "<@"+ann.ID+"> "), got[0].Content)
	require.Contains(t, got[0].Content, "2,400")
	require.JSONEq(t, `{"parse":[],"users":["`+ann.ID+`"],"replied_user":false}`, string(got[0].AllowedMentions), "only the asker is pinged")
	require.Contains(t, h.logs.String(), "interaction token refused; answering in the channel")
	// The fake counted the refused edit; this test expects it.
	rej := h.fake.Rejects()
	require.Len(t, rej, 1)
	require.Contains(t, rej[0], "expired token")
	h.fake.ClearRejects()
}

// TestSeveralDatabases: a question that fits more than one database gets
// a menu; only its asker can pick; the answer comes from the pick, and
// the channel keeps that database for the next question that fits it.
func TestSeveralDatabases(t *testing.T) {
	t.Parallel()
	fixture := testdb.OpenWith(t, testdb.Fixture(t), db.Options{Label: "fixture"})
	h := start(t, Options{Databases: []*db.DB{sample(t), fixture}}, discordtest.Options{})
	cmds := h.fake.Commands("")
	require.Len(t, cmds, 2)
	require.Equal(t, "database", cmds[0].Options[1].Name, "with several databases, /ask takes one")

	id := h.mention(t, ann, general, "How many customers are there?")
	menu := h.replyTo(t, id)[0]
	require.Contains(t, menu.Content, "This question fits **sample**, **fixture**. Which database do you mean?")
	sm := selectMenu(menu)
	require.NotNil(t, sm)
	require.Equal(t, []string{"sample", "fixture"}, []string{sm.Options[0].Label, sm.Options[1].Label})

	h.fake.Click(t, menu, guild, bob, sm.CustomID, "1")
	h.fake.WaitFor(t, "bob's refusal", 5*time.Second, func() bool { return len(h.fake.Messages()) == 2 })
	refusal := h.fake.Messages()[1]
	require.Equal(t, discordgo.MessageFlagsEphemeral, discordgo.MessageFlags(refusal.Flags))
	require.Contains(t, refusal.Content, "Only <@"+ann.ID+"> can use this")

	pick := h.fake.Click(t, menu, guild, ann, sm.CustomID, "1")
	m := h.answerTo(t, pick)[0]
	require.Contains(t, m.Content, "FROM customer")
	require.NotContains(t, m.Content, "FROM customers", "answered from the fixture")
	require.True(t, strings.HasPrefix(m.Content, "There are 4 customers.\n"), "the fixture has 4 customers: %s", m.Content)
	require.Contains(t, m.Content, "database fixture")

	id = h.mention(t, ann, general, "How many orders are there?")
	m = h.replyTo(t, id)[0]
	require.Contains(t, m.Content, "database fixture", "fits both: the channel's database is kept")

	id = h.mention(t, ann, other, "Show the revenue by month")
	m = h.replyTo(t, id)[0]
	require.Contains(t, m.Content, "database sample", "fits only the sample")
}

// TestFollowUpMenu: a follow-up picked by the asker is asked in the same
// conversation; anyone else is told it is not theirs.
func TestFollowUpMenu(t *testing.T) {
	t.Parallel()
	h := start(t, Options{}, discordtest.Options{})
	id := h.mention(t, ann, general, "How many customers are there per country?")
	m := h.replyTo(t, id)[0]
	sm := selectMenu(m)
	require.NotNil(t, sm)
	require.Equal(t, "How many customers are there?", sm.Options[1].Label)
	h.fake.Click(t, m, guild, bob, sm.CustomID, "1")
	pick := h.fake.Click(t, m, guild, ann, sm.CustomID, "1")
	got := h.answerTo(t, pick)[0]
	require.Contains(t, got.Content, "2,400")
	var refused int
	for _, x := range h.fake.Messages() {
		if x.Flags == int(discordgo.MessageFlagsEphemeral) && strings.Contains(x.Content, "Only <@"+ann.ID+"> can use this") {
			refused++
		}
	}
	require.Equal(t, 1, refused, "bob was told, privately")
}
