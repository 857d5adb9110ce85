package llm_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tablewise/tablewise/core/llm"
)

func ExampleSelect() {
	env := map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"} // Ollama, no key
	cfg := llm.ConfigFromEnv(func(k string) string { return env[k] })
	kind, err := llm.Select(cfg)
	fmt.Println(kind, err)

	_, err = llm.Select(llm.Config{Provider: "gemini"})
	fmt.Println(err)
	// Output:
	// openai <nil>
	// unknown provider "gemini" — valid providers: anthropic, openai, offline
}

// A tool loop: call the model, run the tools it asks for, send the results
// back, until it answers in text.
func Example_toolLoop() {
	p, err := llm.New(llm.ConfigFromEnv(os.Getenv))
	if errors.Is(err, llm.ErrOffline) {
		return // the offline planner answers instead
	}
	if err != nil {
		fmt.Println(err) // e.g. ANTHROPIC_API_KEY is not set — export it or pick another --provider
		return
	}
	req := llm.Request{
		System:   "You answer questions about a SQLite database.",
		Messages: []llm.Message{llm.UserText("How many artists are there?")},
		Tools: []llm.Tool{{
			Name:        "run_sql",
			Description: "Run one read-only SELECT.",
			InputSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"sql": map[string]any{"type": "string"}},
				"required":   []string{"sql"},
			},
		}},
		OnText: func(delta string) { fmt.Print(delta) },
	}
	var total llm.Usage
	for range 8 {
		resp, err := p.Complete(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		total.Add(resp.Usage)
		if len(resp.ToolCalls) == 0 {
			break // resp.Text is the answer
		}
		req.Messages = append(req.Messages, resp.Message())
		var results []llm.ToolResult
		for _, call := range resp.ToolCalls {
			if call.InputErr != nil {
				results = append(results, llm.ToolResult{CallID: call.ID, Content: call.InputErr.Error(), IsError: true})
				continue
			}
			results = append(results, llm.ToolResult{CallID: call.ID, Content: `{"rows":[[275]]}`})
		}
		req.Messages = append(req.Messages, llm.ToolResults(results...))
	}
	fmt.Printf("\n%d tokens in, %d out, about $%.4f\n", total.InputTokens, total.OutputTokens, total.CostUSD)
}
