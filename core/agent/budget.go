package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/llm"
)

// Every model request stays within about RequestBytes, whatever the size
// of the schema or of the results the model asked for: the schema cards go
// in the system prompt only when they fit beside the instructions, the
// tools and room for a conversation (else retrieved cards come with each
// question and the table list is summarised); tool results the model has
// read are shortened, oldest first, when the next request would not fit.
const (
	// RequestBytes bounds one model request (its JSON body, near enough).
	RequestBytes = 10_000
	// conversationBytes is kept free beside the system prompt and the
	// tools for the question, tool calls and results.
	conversationBytes = 2_200
	// requestSlack covers what the wire formats add around the system
	// prompt and the tools beyond their estimates; twice as much is kept
	// for the messages (ids, roles, arguments quoted twice).
	requestSlack = 700
	// minResultBytes: a newest result is never clipped below this.
	minResultBytes = 600
	// stubBytes: a result the model has read keeps its first bytes.
	stubBytes = 160
)

// jsonLen is the length of s as a JSON string.
func jsonLen(s string) int {
	b, _ := json.Marshal(s)
	return len(b)
}

// toolsBytes is the size of the tool definitions in a request.
func toolsBytes(tools []llm.Tool) int {
	n := 0
	for _, t := range tools {
		schema, _ := json.Marshal(t.InputSchema)
		n += jsonLen(t.Name) + jsonLen(t.Description) + len(schema) + 60
	}
	return n
}

// partBytes estimates one part's share of a request body.
func partBytes(p llm.Part) int {
	switch p := p.(type) {
	case llm.Text:
		return jsonLen(p.Text) + 30
	case llm.ToolCall:
		return len(p.Input) + len(p.Name) + len(p.ID) + 80
	case llm.ToolResult:
		return jsonLen(p.Content) + len(p.CallID) + 60
	case llm.Thinking:
		return jsonLen(p.Text) + len(p.Signature) + len(p.Redacted) + 50
	}
	return 50
}

func messagesBytes(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += 20
		for _, p := range m.Content {
			n += partBytes(p)
		}
	}
	return n
}

// schemaRoom is how many characters of schema the system prompt may hold:
// what RequestBytes leaves beside the instructions, the tools and the
// conversation, and never more than Options.SchemaBudget.
func (a *Agent) schemaRoom(instructions string) int {
	room := RequestBytes - requestSlack - jsonLen(instructions) - toolsBytes(a.tools) - conversationBytes
	return max(0, min(room, a.opt.SchemaBudget))
}

// fit shortens msgs in place so that a request with system and tools
// stays within RequestBytes: results of tool calls the model has already
// answered are cut to their first stubBytes, oldest first; then the texts of
// earlier exchanges; then the newest results are clipped, saying so.
func fit(system string, tools []llm.Tool, msgs []llm.Message) []llm.Message {
	room := RequestBytes - 2*requestSlack - jsonLen(system) - toolsBytes(tools)
	over := func() int { return messagesBytes(msgs) - room }
	if over() <= 0 || len(msgs) == 0 {
		return msgs
	}
	last := len(msgs) - 1
	for i := 0; i < last && over() > 0; i++ {
		for j, p := range msgs[i].Content {
			if r, ok := p.(llm.ToolResult); ok && len(r.Content) > stubBytes+100 {
				r.Content = format.ClipBytes(r.Content, stubBytes) + fmt.Sprintf(" [%d bytes read earlier, left out]", len(r.Content)-stubBytes)
				msgs[i].Content[j] = r
			}
		}
	}
	// Then texts: earlier answers, then what questions came with
	// (retrieved cards), keeping their start.
	for _, role := range []llm.Role{llm.RoleAssistant, llm.RoleUser} {
		for i := 0; i < last && over() > 0; i++ {
			if msgs[i].Role != role {
				continue
			}
			for j, p := range msgs[i].Content {
				keep := stubBytes
				if role == llm.RoleUser {
					keep = 4 * stubBytes
				}
				if t, ok := p.(llm.Text); ok && len(t.Text) > keep+100 {
					t.Text = format.ClipBytes(t.Text, keep) + " [shortened]"
					msgs[i].Content[j] = t
				}
			}
		}
	}
	for over() > 0 {
		// The newest results: the largest is clipped to what fits.
		big, size := -1, 0
		for j, p := range msgs[last].Content {
			if r, ok := p.(llm.ToolResult); ok && len(r.Content) > size {
				big, size = j, len(r.Content)
			}
		}
		if big < 0 || size <= minResultBytes {
			break
		}
		r := msgs[last].Content[big].(llm.ToolResult)
		keep := max(minResultBytes, size-over()-200)
		if keep >= size-200 {
			break // clipping would not make it smaller
		}
		r.Content = format.ClipBytes(r.Content, keep) + fmt.Sprintf("\n[clipped: %d more bytes; ask for less — a narrower query, a LIMIT, a pattern]", size-keep)
		msgs[last].Content[big] = r
	}
	return msgs
}

// cardRetriever is SchemaTools that can pick the schema cards relevant to
// a question (CoreTools does); others get a schema search's text.
type cardRetriever interface {
	RetrieveCards(ctx context.Context, question string) (string, error)
}

// retrieveCards is what a question on a big schema comes with: the
// cards of the tables it is most likely about, within cardsBytes.
func (a *Agent) retrieveCards(ctx context.Context, question string) (string, error) {
	if r, ok := a.schema.(cardRetriever); ok {
		return r.RetrieveCards(ctx, question)
	}
	return a.schema.SearchSchema(ctx, question)
}
