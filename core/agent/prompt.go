package agent

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/tools"
)

// The prompts live in versioned folders (prompts/README.md): a version is
// never edited once an evaluation used it; a change is the next version.
//
//go:embed prompts/v*/*
var promptFiles embed.FS

// DefaultPrompt is the prompt version an agent uses unless
// Options.Prompt names another.
const DefaultPrompt = "v1"

// ErrUnknownPrompt means a prompt version does not exist.
var ErrUnknownPrompt = errors.New("unknown prompt version")

// PromptVersions lists the prompt versions, oldest first.
func PromptVersions() []string {
	entries, _ := fs.ReadDir(promptFiles, "prompts")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	slices.SortFunc(out, func(a, b string) int { return versionNumber(a) - versionNumber(b) })
	return out
}

func versionNumber(v string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(v, "v"))
	return n
}

// CheckPrompt returns an error wrapping ErrUnknownPrompt, naming the
// versions there are, when version is not one of them ("" is the default).
func CheckPrompt(version string) error {
	_, err := loadPrompt(version)
	return err
}

// prompt is one version of everything sent besides questions and data.
type prompt struct {
	version string
	system  string // with {{database}} and {{schema}}
	texts   promptTexts
	tools   []llm.Tool
}

// promptTexts are the short texts of texts.json.
type promptTexts struct {
	SchemaFull          string `json:"schema_full"`     // {{cards}}
	SchemaLarge         string `json:"schema_large"`    // {{tables}}
	RetrievedCards      string `json:"retrieved_cards"` // {{cards}}
	NumbersWithoutQuery string `json:"numbers_without_query"`
}

var prompts sync.Map // version → *prompt

// loadPrompt reads (once) the prompt version names; "" is DefaultPrompt.
func loadPrompt(version string) (*prompt, error) {
	if version == "" {
		version = DefaultPrompt
	}
	if p, ok := prompts.Load(version); ok {
		return p.(*prompt), nil
	}
	dir := "prompts/" + version
	if st, err := fs.Stat(promptFiles, dir); err != nil || !st.IsDir() || strings.ContainsAny(version, "/.") {
		return nil, fmt.Errorf("%w %q (there are %s)", ErrUnknownPrompt, version, strings.Join(PromptVersions(), ", "))
	}
	p := &prompt{version: version}
	system, err := promptFiles.ReadFile(dir + "/system.txt")
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %w", version, err)
	}
	p.system = strings.TrimSuffix(string(system), "\n")
	if err := readPromptJSON(dir+"/texts.json", &p.texts); err != nil {
		return nil, err
	}
	var defs []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
	}
	if err := readPromptJSON(dir+"/tools.json", &defs); err != nil {
		return nil, err
	}
	for _, d := range defs {
		if d.Description == "" {
			// A tool the MCP server also serves, in the same words.
			d.Description = tools.DocFor(d.Name).Description
		}
		if d.Description == "" {
			return nil, fmt.Errorf("prompt %s: tool %s has no description", version, d.Name)
		}
		p.tools = append(p.tools, llm.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema})
	}
	got, _ := prompts.LoadOrStore(version, p)
	return got.(*prompt), nil
}

func readPromptJSON(path string, v any) error {
	raw, err := promptFiles.ReadFile(path)
	if err != nil {
		return fmt.Errorf("prompt: %w", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("prompt %s: %w", path, err)
	}
	return nil
}

// toolsFor is the prompt's tools with {{dialect}} in their descriptions
// (the input schemas' too) replaced by the engine's SQL dialect name.
func (p *prompt) toolsFor(dialect string) []llm.Tool {
	out := make([]llm.Tool, len(p.tools))
	for i, t := range p.tools {
		t.Description = fill(t.Description, "dialect", dialect)
		if raw, err := json.Marshal(t.InputSchema); err == nil && strings.Contains(string(raw), "{{dialect}}") {
			var schema map[string]any
			filled, _ := json.Marshal(dialect)
			if json.Unmarshal([]byte(strings.ReplaceAll(string(raw), "{{dialect}}", strings.Trim(string(filled), `"`))), &schema) == nil {
				t.InputSchema = schema
			}
		}
		out[i] = t
	}
	return out
}

// fill replaces each {{name}} of text with its value.
func fill(text string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		text = strings.ReplaceAll(text, "{{"+pairs[i]+"}}", pairs[i+1])
	}
	return text
}

// systemPrompt builds (once) the stable prefix: instructions and, when the
// schema fits beside them within RequestBytes (schemaRoom), all of its
// cards; else the tables, summarised past a bound (CoreTools' ListTables). The prefix is cached by
// providers that cache, so it holds nothing that changes per question.
func (a *Agent) systemPrompt(ctx context.Context) (prompt string, retrieve bool, err error) {
	a.promptMu.Lock()
	defer a.promptMu.Unlock()
	if a.system != "" {
		return a.system, a.retrieve, nil
	}
	cards, err := a.schema.SchemaText(ctx)
	if err != nil {
		return "", false, fmt.Errorf("read schema: %w", err)
	}
	schema := fill(a.prompt.texts.SchemaFull, "cards", cards)
	instructions := fill(a.prompt.system, "dialect", a.d.Dialect().Name(), "database", strconv.Quote(a.d.Label()), "schema", "")
	if jsonLen(schema) > a.schemaRoom(instructions) {
		a.retrieve = true
		list, err := a.schema.ListTables(ctx)
		if err != nil {
			return "", false, fmt.Errorf("read schema: %w", err)
		}
		schema = fill(a.prompt.texts.SchemaLarge, "tables", list)
	}
	a.system = fill(a.prompt.system, "dialect", a.d.Dialect().Name(), "database", strconv.Quote(a.d.Label()), "schema", schema)
	return a.system, a.retrieve, nil
}
