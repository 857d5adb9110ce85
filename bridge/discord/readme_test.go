package discord

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/discord/discordtest"
)

var update = flag.Bool("update", false, "rewrite the README's Discord sample from what the bot sends")

const (
	readme      = "../../README.md"
	sampleBegin = "<!-- discord-sample: written by go test ./bridge/discord -run TestReadmeSample -update -->\n"
	sampleEnd   = "<!-- /discord-sample -->"
)

// TestReadmeSample: the README's sample answer message is what the bot
// really sends for the sample question on the sample database (timings
// and request ids aside), as the fake Discord received it.
func TestReadmeSample(t *testing.T) {
	t.Parallel()
	h := start(t, Options{}, discordtest.Options{})
	q := "How many customers are there per country?"
	id := h.mention(t, ann, general, q)
	got := h.replyTo(t, id)
	require.Len(t, got, 1)
	sample := "````text\n" + screen(q, got[0]) + "````\n"

	raw, err := os.ReadFile(readme)
	require.NoError(t, err)
	text := string(raw)
	i, j := strings.Index(text, sampleBegin), strings.Index(text, sampleEnd)
	require.True(t, i >= 0 && j > i, "the README has no Discord sample between %q and %q", sampleBegin, sampleEnd)
	have := text[i+len(sampleBegin) : j]
	if *update {
		require.NoError(t, os.WriteFile(readme, []byte(text[:i+len(sampleBegin)]+sample+text[j:]), 0o644))
		return
	}
	require.Equal(t, normalize(sample), normalize(have), "the README's sample differs from what the bot sends; run go test ./bridge/discord -run TestReadmeSample -update")
}

// screen draws a message as a chat client would show it, in text: who
// asked, the reply, its attachments and its menu.
func screen(question string, m discordtest.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ann: @%s %s\n\n%s (reply to ann):\n%s\n", discordtest.BotName, question, discordtest.BotName, m.Content)
	var files []string
	for _, f := range m.Files {
		files = append(files, "📎 "+f.Name)
	}
	if len(files) > 0 {
		fmt.Fprintf(&b, "%s\n", strings.Join(files, "   "))
	}
	if sm := selectMenu(m); sm != nil {
		fmt.Fprintf(&b, "[%s ▾]\n", sm.Placeholder)
		for _, o := range sm.Options {
			fmt.Fprintf(&b, "   %s\n", o.Label)
		}
	}
	return b.String()
}

var (
	seconds = regexp.MustCompile(`\d+\.\d s`)
	ref     = regexp.MustCompile(`ref [0-9a-f]{8}`)
)

func normalize(s string) string {
	return ref.ReplaceAllString(seconds.ReplaceAllString(s, "N s"), "ref X")
}

// TestReadmeInviteURL: the README's invite URL asks for the permissions
// the bot asks for.
func TestReadmeInviteURL(t *testing.T) {
	raw, err := os.ReadFile(readme)
	require.NoError(t, err)
	require.Contains(t, string(raw), InviteURL("APPLICATION_ID"))
}
