package agent_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/trace"
)

func TestPromptVersions(t *testing.T) {
	vs := agent.PromptVersions()
	if !slices.Contains(vs, "v1") || !slices.Contains(vs, "v2") || vs[0] != "v1" {
		t.Fatalf("versions %v", vs)
	}
	if err := agent.CheckPrompt(""); err != nil {
		t.Errorf("the default: %v", err)
	}
	for _, bad := range []string{"v99", "../v1", "v1/system.txt"} {
		if err := agent.CheckPrompt(bad); !errors.Is(err, agent.ErrUnknownPrompt) || !strings.Contains(err.Error(), "v1, v2") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// The version reaches the model: v2's system prompt is v2's text.
	f := llmtest.New(t, "openai", llmtest.Text("Nothing to query."), llmtest.Text("Nothing to query."))
	for _, v := range []string{"v1", "v2"} {
		ask(t, newAgent(t, sample(t), f, agent.Options{Prompt: v}), "hello")
	}
	s1, s2 := f.System(0), f.System(1)
	if strings.Contains(s1, "Evidence:") || !strings.Contains(s2, "Evidence:") || !strings.Contains(s2, `"sample"`) {
		t.Errorf("v1 and v2 system prompts do not differ as written:\nv1 %.200q\nv2 %.200q", s1, s2)
	}
	// An unknown version fails the question, naming the versions.
	_, err := newAgent(t, sample(t), f, agent.Options{Prompt: "v99"}).Ask(context.Background(), "hello", nil)
	if !errors.Is(err, agent.ErrUnknownPrompt) {
		t.Errorf("v99: %v", err)
	}
}

// Every trace line of a question, model calls included, carries the
// question's trace id and the prompt version: the id the caller put in the
// context when there is one.
func TestTraceLinesCarryTraceIDAndPrompt(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, wire string) {
		f := llmtest.New(t, wire,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)), llmtest.Text("There are 7 regions."), approve,
			llmtest.Calls(llmtest.Call("list_tables", `{}`)), llmtest.Text("Done."),
		)
		var buf bytes.Buffer
		tw := trace.New(&buf)
		a := agent.New(sample(t), provider(t, f, "fake-model", tw), agent.CoreTools(sample(t)), agent.Options{Trace: tw, Prompt: "v2"})
		ctx := llm.WithCallTags(context.Background(), llm.CallTags{TraceID: "q-given"})
		b1, err := a.Ask(ctx, "How many regions?", nil)
		if err != nil {
			t.Fatal(err)
		}
		b2 := ask(t, a, "Which tables?")
		if b1.TraceID != "q-given" || b1.PromptVersion != "v2" || b2.TraceID == "" || b2.TraceID == b1.TraceID {
			t.Fatalf("bundles: %q %q / %q", b1.TraceID, b1.PromptVersion, b2.TraceID)
		}
		lines := map[string]map[string]int{} // trace id → kind → lines
		for _, e := range traceEvents(t, &buf) {
			if e.Prompt != "v2" {
				t.Errorf("line without the prompt version: %+v", e)
			}
			if lines[e.TraceID] == nil {
				lines[e.TraceID] = map[string]int{}
			}
			lines[e.TraceID][e.Kind]++
		}
		// The review of the first answer is a model call and a review line.
		want := map[string]map[string]int{b1.TraceID: {"model": 3, "tool": 1, "review": 1}, b2.TraceID: {"model": 2, "tool": 1}}
		if len(lines) != 2 || !maps.Equal(lines[b1.TraceID], want[b1.TraceID]) || !maps.Equal(lines[b2.TraceID], want[b2.TraceID]) {
			t.Errorf("trace lines by id and kind: %v, want %v", lines, want)
		}
	})
}
