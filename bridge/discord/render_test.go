package discord

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/discord/discordtest"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/query"
)

// TestMessagesFitDiscordLimits: whatever the text, every message is
// within 2,000 characters (counted as Discord may count them, in UTF-16),
// code blocks are never split open, nothing is lost unless more than
// maxMessages are needed, and then the cut says so and the footer stays.
func TestMessagesFitDiscordLimits(t *testing.T) {
	words := strings.Repeat("lorem ipsum dolor sit amet ", 200) // 5,400 characters, spaces
	for _, c := range []struct {
		name  string
		body  []block
		parts int
		cut   bool
	}{
		{"short", []block{prose("Hello.")}, 1, false},
		{"words", []block{prose(words)}, 3, false},
		{"one long word", []block{prose(strings.Repeat("x", 4500))}, 3, false},
		{"emoji count twice", []block{prose(strings.Repeat("📊", 1500))}, 2, false},
		{"long code", []block{prose("Intro."), codeBlock("sql", strings.Repeat("SELECT 1 AS a, 2 AS b UNION ALL\n", 150))}, 3, false},
		{"code with a long line", []block{codeBlock("", strings.Repeat("y", 5000))}, 3, false},
		{"too long", []block{prose(strings.Repeat(words+"\n", 4))}, maxMessages, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := view{body: c.body, footer: "-# footer", files: []attachment{{name: "a.csv"}}, components: []discordgo.MessageComponent{followUpMenu("tw:fu:x", []string{"next?"})}}
			parts := v.messages()
			require.Len(t, parts, c.parts)
			var all strings.Builder
			for i, p := range parts {
				require.LessOrEqual(t, textLen(p.content), maxContent, "part %d", i)
				require.Zero(t, strings.Count(p.content, "```")%2, "part %d splits a code block", i)
				require.Equal(t, i == 0, p.files != nil, "files go with the first part")
				require.Equal(t, i == len(parts)-1, p.components != nil, "components go with the last part")
				all.WriteString(p.content + "\n")
			}
			last := parts[len(parts)-1].content
			require.True(t, strings.HasSuffix(last, "\n-# footer") || last == "-# footer", last)
			require.Equal(t, c.cut, strings.Contains(last, cutNote))
			if c.cut {
				return
			}
			squash := func(s string) string {
				s = strings.NewReplacer("```sql", "", "```", "", "-# footer", "").Replace(s)
				return strings.Join(strings.Fields(s), "")
			}
			var want strings.Builder
			for _, b := range c.body {
				want.WriteString(b.text)
			}
			require.Equal(t, squash(want.String()), squash(all.String()), "nothing lost")
		})
	}
}

// TestPreviewTable: aligned, numbers to the right, NULL shown, long
// cells cut, backticks and control characters made harmless, and only
// the columns that fit the width.
func TestPreviewTable(t *testing.T) {
	cols := []query.Column{{Name: "name"}, {Name: "n"}, {Name: "note"}}
	rows := []query.Row{
		{"Zoë", int64(5), nil},
		{"a```b\x1b[31m", int64(12345), strings.Repeat("long ", 20)},
		{"東京", 2.5, "line\nbreak"},
	}
	got, shown := previewTable(cols, rows, 10)
	require.Equal(t, 3, shown)
	want := "name        n      note\n" +
		"──────────  ─────  ────────────────────────────────\n" +
		"Zoë             5  NULL\n" +
		"aˋˋˋb␛[31m  12345  long long long long long long l…\n" +
		"東京          2.5  line↵break"
	require.Equal(t, want, got)

	var wide []query.Column
	row := query.Row{}
	for i := range 30 {
		wide = append(wide, query.Column{Name: fmt.Sprintf("column_%02d", i)})
		row = append(row, int64(i))
	}
	got, shown = previewTable(wide, []query.Row{row}, 10)
	require.Less(t, shown, 30)
	for _, l := range strings.Split(got, "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), maxTableWidth)
	}
	require.Contains(t, rowNote(1, 1, false, shown, 30, "all 1 in result.csv"), fmt.Sprintf("%d of 30 columns shown", shown))

	got, _ = previewTable(cols, append(rows, rows...)[:6], 2)
	require.Len(t, strings.Split(got, "\n"), 4, "header, rule and two rows")
}

func TestFooter(t *testing.T) {
	model := &answer.Bundle{Provider: "anthropic", Model: "claude-x", Usage: answer.Usage{ModelCalls: 2, InputTokens: 5380, OutputTokens: 134, CostUSD: 0.01234}, Timings: answer.Timings{TotalMS: 3400}}
	require.Equal(t, "-# 2 model calls · 5,380 in + 134 out tokens · $0.0123 · 3.4 s · anthropic/claude-x · database shop · ref abc", footer(model, "shop", "abc"))
	planner := &answer.Bundle{Provider: "offline", Timings: answer.Timings{TotalMS: 420}}
	require.Equal(t, "-# no model calls · 0.4 s · offline planner · ref abc", footer(planner, "", "abc"))
	sql := &answer.Bundle{Provider: providerSQL, Timings: answer.Timings{TotalMS: 12}}
	require.Equal(t, "-# 0.0 s · SQL", footer(sql, "", ""))
}

// TestComponentsFitDiscordLimits: a clarification with more and longer
// options than Discord's components hold still goes out: buttons cut to
// 80 characters, at most five rows, the rest of the options in the text.
func TestComponentsFitDiscordLimits(t *testing.T) {
	t.Parallel()
	var opts []string
	for i := range 30 {
		opts = append(opts, fmt.Sprintf(`"option %02d %s"`, i, strings.Repeat("é", 110)))
	}
	svc, _ := scripted(t, llmtest.Calls(llmtest.Call("ask_user", `{"question":"Which one?","options":[`+strings.Join(opts, ",")+`]}`)))
	h := start(t, Options{Ask: svc}, discordtest.Options{})
	id := h.mention(t, ann, general, "Pick for me")
	h.fake.WaitFor(t, "the buttons", 20*time.Second, func() bool {
		ms := h.fake.Messages()
		return len(ms) > 0 && len(buttons(ms[len(ms)-1])) > 0
	})
	ms := h.fake.Messages()
	require.Equal(t, id, refID(ms[0]))
	bs := buttons(ms[len(ms)-1])
	require.Len(t, bs, 21, "four rows of five options and Cancel")
	require.Equal(t, 80, len([]rune(bs[0].Label)))
	all := discordtest.TextOf(ms)
	require.Contains(t, all, "option 29", "options beyond the buttons are listed")
	for _, m := range ms {
		require.LessOrEqual(t, textLen(m.Content), maxContent)
	}

	sm := followUpMenu("tw:fu:n", func() []string {
		var f []string
		for i := range 40 {
			f = append(f, fmt.Sprintf("follow-up %d %s", i, strings.Repeat("x", 200)))
		}
		return f
	}())
	menuRow := sm.(discordgo.ActionsRow).Components[0].(discordgo.SelectMenu)
	require.Len(t, menuRow.Options, maxSelectOptions)
	for _, o := range menuRow.Options {
		require.LessOrEqual(t, len([]rune(o.Label)), maxOptionText)
	}
	require.Nil(t, followUpMenu("tw:fu:n", []string{"", " \t "}), "no menu without an option to offer")
	rows, shown := clarifyButtons("tw:cl:n", []string{"", "yes"})
	require.Equal(t, 1, shown)
	require.Equal(t, "tw:cl:n:1", rows[0].(discordgo.ActionsRow).Components[0].(discordgo.Button).CustomID, "an option keeps its index")
}

func TestLimiterRefills(t *testing.T) {
	now := time.Unix(0, 0)
	l := newLimiter(Rate{N: 3, Per: time.Minute})
	l.now = func() time.Time { return now }
	for range 3 {
		ok, _, _ := l.take("u")
		require.True(t, ok)
	}
	ok, wait, tell := l.take("u")
	require.False(t, ok)
	require.True(t, tell, "told once")
	require.Equal(t, 20*time.Second, wait)
	ok, _, tell = l.take("u")
	require.False(t, ok)
	require.False(t, tell, "not told again while empty")
	ok, _, _ = l.take("v")
	require.True(t, ok, "another user has a bucket of their own")
	now = now.Add(20 * time.Second)
	ok, _, _ = l.take("u")
	require.True(t, ok, "one token back after a third of the minute")
	ok, _, _ = l.take("u")
	require.False(t, ok)

	for i := range maxBuckets + 10 {
		l.take(fmt.Sprint("user", i))
	}
	require.LessOrEqual(t, len(l.buckets), maxBuckets)
	require.True(t, func() bool { ok, _, _ := newLimiter(Rate{N: -1}).take("x"); return ok }(), "no limit")
}

func TestMemoryIsBounded(t *testing.T) {
	m := newMemory()
	first := m.add(&pending{kind: pendClarify, conv: "c1", asker: "a"})
	m.carried(first.nonce, []string{"m1"})
	require.Same(t, first, m.byMessage("m1"))
	second := m.add(&pending{kind: pendDatabase, conv: "c1", asker: "a"})
	require.Nil(t, m.get(first.nonce), "a new open item replaces the conversation's old one")
	require.Nil(t, m.byMessage("m1"))
	require.Same(t, second, m.openIn("c1"))
	for i := range 3 * maxPending {
		p := m.add(&pending{kind: pendFollowUps, conv: fmt.Sprint("c", i)})
		if i%2 == 0 {
			m.take(p.nonce)
		}
	}
	require.LessOrEqual(t, len(m.items), maxPending)
	require.LessOrEqual(t, len(m.order), 2*maxPending+1)
	old := m.add(&pending{kind: pendFollowUps})
	m.now = func() time.Time { return time.Now().Add(pendingTTL + time.Minute) }
	require.Nil(t, m.get(old.nonce), "expired")
}

// TestDeadline: a question that outlives the deadline gets a
// reply that says so.
func TestDeadline(t *testing.T) {
	t.Parallel()
	h := start(t, Options{Deadline: 300 * time.Millisecond, Ask: askerFunc(func(ctx context.Context, q string, conv ask.Conversation, _ func(string)) (*answer.Bundle, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})}, discordtest.Options{})
	id := h.mention(t, ann, general, "How many customers are there?")
	require.Equal(t, "⏱ This took longer than the 300ms limit and was stopped. Try a narrower question.", h.replyTo(t, id)[0].Content)
}
