package discord

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// Discord's limits that shape a reply (discord.com/developers/docs:
// Create Message, Message Components).
const (
	// maxContent is the most characters a message's content may hold.
	maxContent = 2000
	// maxFiles is the most attachments a message may carry.
	maxFiles = 10
	// maxActionRows is the most rows of components a message may carry,
	// and maxButtonsPerRow the most buttons one row holds.
	maxActionRows    = 5
	maxButtonsPerRow = 5
	// maxSelectOptions is the most options a select menu offers;
	// maxOptionText the longest label or value of one.
	maxSelectOptions = 25
	maxOptionText    = 100
	// maxButtonLabel is the longest button label.
	maxButtonLabel = 80
	// maxPlaceholder is the longest select menu placeholder.
	maxPlaceholder = 150
)

// Layout choices.
const (
	// PreviewRows is how many rows the preview table shows.
	PreviewRows = 10
	// maxMessages bounds the messages one reply takes; what does not fit is
	// cut with a note.
	maxMessages = 4
	// maxInlineSQL is the longest SQL shown in the message; longer SQL is
	// attached as query.sql.
	maxInlineSQL = 1800
	// maxCellWidth and maxTableWidth bound the preview table in columns of
	// monospace text, so it reads without wrapping on a desktop client.
	maxCellWidth  = 32
	maxTableWidth = 100
)

// part is one message of a reply.
type part struct {
	content    string
	files      []attachment
	components []discordgo.MessageComponent
}

// attachment is a file to upload with a message.
type attachment struct {
	name, contentType string
	data              []byte
}

func (a attachment) file() *discordgo.File {
	return &discordgo.File{Name: a.name, ContentType: a.contentType, Reader: strings.NewReader(string(a.data))}
}

// view is a reply before it is laid out into messages.
type view struct {
	// body is the text above the footer, in blocks kept in this order.
	body   []block
	footer string
	files  []attachment
	// components go on the last message.
	components []discordgo.MessageComponent
}

// block is prose or a code block.
type block struct {
	text string
	// code marks a fenced block with this language ("" is plain); prose
	// when code is false.
	code bool
	lang string
}

func prose(s string) block { return block{text: s} }

func codeBlock(lang, s string) block { return block{text: s, code: true, lang: lang} }

// cutNote ends a reply that did not fit in maxMessages.
const cutNote = "… *(cut here: the rest did not fit in Discord's message limits)*"

// messages lays the view out into messages of at most maxContent
// characters, at most maxMessages of them. A block that fits a message
// is kept whole; a longer one is split at line breaks (then spaces, then
// anywhere), filling the message it starts in, a code block into several
// fenced blocks. What does not fit is cut with a note; the footer always
// ends the last message. Files go with the first message, components
// with the last.
func (v view) messages() []part {
	var msgs []string
	cur := ""
	flush := func() {
		if cur != "" {
			msgs = append(msgs, cur)
			cur = ""
		}
	}
	room := func() int {
		if cur == "" {
			return maxContent
		}
		return maxContent - textLen(cur) - 1
	}
	add := func(s string) {
		if cur == "" {
			cur = s
		} else {
			cur += "\n" + s
		}
	}
	for _, b := range v.body {
		if strings.TrimSpace(b.text) == "" {
			continue
		}
		open, end := "", ""
		if b.code {
			open, end = "```"+b.lang+"\n", "\n```"
		}
		fence := textLen(open) + textLen(end)
		text := b.text
		if whole := textLen(text) + fence; whole > room() && whole <= maxContent {
			flush() // it fits a message of its own: keep it whole
		}
		for text != "" {
			n := room() - fence
			if n < minPiece && cur != "" {
				flush()
				continue
			}
			chunk, rest := takeChunk(text, n)
			add(open + chunk + end)
			text = rest
		}
	}
	if v.footer != "" {
		f := clip(v.footer, maxContent)
		if textLen(f) > room() {
			flush()
		}
		add(f)
	}
	flush()
	if len(msgs) > maxMessages {
		msgs = msgs[:maxMessages]
		last := cutNote
		if v.footer != "" {
			last += "\n" + clip(v.footer, maxContent-textLen(cutNote)-1)
		}
		room := maxContent - textLen(last) - 1
		kept := msgs[maxMessages-1]
		if textLen(kept) > room {
			kept = closeFence(cutTo(kept, room-4))
		}
		msgs[maxMessages-1] = kept + "\n" + last
	}
	if len(msgs) == 0 {
		msgs = []string{"(no text)"}
	}
	out := make([]part, len(msgs))
	for i, m := range msgs {
		out[i].content = m
	}
	out[0].files = v.files
	out[len(out)-1].components = v.components
	return out
}

// minPiece is the least room worth starting a piece of a split block in;
// with less, the piece starts a new message.
const minPiece = 200

// takeChunk splits s after at most n characters: at the last line break
// that keeps at least a third of the room, else the last space, else
// anywhere. rest starts after the break.
func takeChunk(s string, n int) (chunk, rest string) {
	if textLen(s) <= n {
		return s, ""
	}
	cut := cutTo(s, n)
	if i := strings.LastIndexByte(cut, '\n'); i > 0 && textLen(cut[:i]) >= n/3 {
		return cut[:i], s[i+1:]
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 && textLen(cut[:i]) >= n/3 {
		return cut[:i], s[i+1:]
	}
	if cut == "" { // n smaller than one character: take one anyway
		_, size := utf8.DecodeRuneInString(s)
		cut = s[:size]
	}
	return cut, s[len(cut):]
}

// closeFence closes a code block that a cut left open.
func closeFence(s string) string {
	if strings.Count(s, "```")%2 == 1 {
		return s + "\n```"
	}
	return s
}

// previewTable renders the first rows of a result as aligned monospace
// text: long cells cut with "…", numbers right-aligned, NULL shown as
// NULL, and only as many columns as fit maxTableWidth. It returns how many
// columns it shows.
func previewTable(cols []query.Column, rows []query.Row, maxRows int) (string, int) {
	if len(rows) > maxRows {
		rows = rows[:maxRows]
	}
	n := len(cols)
	cells := make([][]string, len(rows))
	widths := make([]int, n)
	right := make([]bool, n)
	for i, c := range cols {
		widths[i] = min(ansi.StringWidth(codeCell(c.Name)), maxCellWidth)
	}
	for r, row := range rows {
		cells[r] = make([]string, n)
		for i := 0; i < n && i < len(row); i++ {
			s := codeCell(format.Value(row[i]))
			cells[r][i] = s
			widths[i] = max(widths[i], min(ansi.StringWidth(s), maxCellWidth))
			switch row[i].(type) {
			case int64, float64:
				right[i] = true
			}
		}
	}
	shown, total := 0, 0
	for i := range n {
		w := widths[i]
		if i > 0 {
			w += 2
		}
		if shown > 0 && total+w > maxTableWidth {
			break
		}
		total += w
		shown++
	}
	var b strings.Builder
	line := func(vals []string, header bool) {
		var l strings.Builder
		for i := range shown {
			if i > 0 {
				l.WriteString("  ")
			}
			v := ansi.Truncate(vals[i], widths[i], "…")
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(v))
			if right[i] && !header {
				l.WriteString(pad + v)
			} else {
				l.WriteString(v + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	names := make([]string, n)
	rule := make([]string, n)
	for i, c := range cols {
		names[i] = codeCell(c.Name)
		rule[i] = strings.Repeat("─", widths[i])
	}
	line(names, true)
	line(rule, true)
	for _, row := range cells {
		line(row, false)
	}
	return strings.TrimSuffix(b.String(), "\n"), shown
}

// footer is the small line under an answer: model calls, tokens, cost,
// seconds, who answered, the database when there are several, and the
// request id that finds the question in the logs.
func footer(b *answer.Bundle, dbLabel, reqID string) string {
	var f []string
	switch {
	case b.Usage.ModelCalls > 0:
		f = append(f, format.Plural(int64(b.Usage.ModelCalls), "model call"))
		f = append(f, fmt.Sprintf("%s in + %s out tokens", format.Count(int64(b.Usage.InputTokens)), format.Count(int64(b.Usage.OutputTokens))))
		if b.Usage.CostUSD > 0 {
			f = append(f, fmt.Sprintf("$%.4f", b.Usage.CostUSD))
		}
	case b.Provider == providerSQL:
	default:
		f = append(f, "no model calls")
	}
	f = append(f, fmt.Sprintf("%.1f s", float64(b.Timings.TotalMS)/1000))
	switch {
	case b.Provider == providerSQL:
		f = append(f, "SQL")
	case b.Provider == "offline":
		f = append(f, "offline planner")
	case b.Provider != "":
		who := b.Provider
		if b.Model != "" {
			who += "/" + b.Model
		}
		f = append(f, inline(who))
	}
	if dbLabel != "" {
		f = append(f, "database "+inline(dbLabel))
	}
	if reqID != "" {
		f = append(f, "ref "+reqID)
	}
	return "-# " + strings.Join(f, " · ")
}

// followUpMenu offers the bundle's follow-up questions as a select menu.
func followUpMenu(customID string, followUps []string) discordgo.MessageComponent {
	return menu(customID, "Ask a follow-up…", followUps)
}

// databaseMenu offers databases to pick from by label.
func databaseMenu(customID string, labels []string) discordgo.MessageComponent {
	return menu(customID, "Pick a database…", labels)
}

// menu is a select menu of at most 25 options, labels cut to 100
// characters (blank ones left out); the value of an option is its index.
// It is nil when no option is left.
func menu(customID, placeholder string, options []string) discordgo.MessageComponent {
	var opts []discordgo.SelectMenuOption
	for i, o := range options {
		if len(opts) == maxSelectOptions {
			break
		}
		label := clip(strings.TrimSpace(format.PrintableLine(o)), maxOptionText)
		if label == "" {
			continue
		}
		opts = append(opts, discordgo.SelectMenuOption{Label: label, Value: fmt.Sprint(i)})
	}
	if len(opts) == 0 {
		return nil
	}
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		MenuType: discordgo.StringSelectMenu, CustomID: customID, Placeholder: clip(placeholder, maxPlaceholder), Options: opts,
	}}}
}

// clarifyButtons offers a clarification's options as buttons, five to a
// row, and a Cancel button; options beyond what fits are left to a typed
// reply. It returns the rows and how many options it shows.
func clarifyButtons(prefix string, options []string) ([]discordgo.MessageComponent, int) {
	var rows []discordgo.MessageComponent
	var row []discordgo.MessageComponent
	shown := 0
	for i, o := range options {
		if len(rows) == maxActionRows-1 {
			break
		}
		label := clip(strings.TrimSpace(format.PrintableLine(o)), maxButtonLabel)
		if label == "" {
			continue
		}
		row = append(row, discordgo.Button{Label: label, Style: discordgo.PrimaryButton, CustomID: fmt.Sprintf("%s:%d", prefix, i)})
		shown++
		if len(row) == maxButtonsPerRow {
			rows = append(rows, discordgo.ActionsRow{Components: row})
			row = nil
		}
	}
	if len(row) > 0 {
		rows = append(rows, discordgo.ActionsRow{Components: row})
	}
	rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: prefix + ":x"},
	}})
	return rows, shown
}
