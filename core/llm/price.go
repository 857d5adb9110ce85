package llm

import "strings"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 // base input tokens
	Output     float64 // output tokens (thinking included)
	CacheRead  float64 // input tokens read from the prompt cache
	CacheWrite float64 // input tokens written to the prompt cache (5-minute TTL)
}

// prices is a small built-in table of list prices (USD per million tokens),
// checked against the providers' pricing pages in November 2026. A model
// matches the entry whose name is its longest prefix, so dated snapshots
// (claude-sonnet-4-5-20250929, gpt-4.1-mini-2025-04-14) find their family.
// Long-context and batch tiers are not modelled: estimates use the base tier.
var prices = map[string]Price{
	// Anthropic. Cache writes are 1.25× input (5-minute TTL).
	"claude-opus-5-5":   {Input: 4, Output: 20, CacheRead: 0.20, CacheWrite: 5},
	"claude-opus-5":     {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-4-8":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-4-7":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-4-6":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-4-5":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-4-1":   {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-opus-4":     {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-sonnet-5-5": {Input: 2, Output: 10, CacheRead: 0.10, CacheWrite: 2.50},
	"claude-sonnet-5":   {Input: 2, Output: 10, CacheRead: 0.20, CacheWrite: 2.50},
	"claude-sonnet-4":   {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}, // 4, 4.5, 4.6
	"claude-haiku-5-5":  {Input: 0.10, Output: 0.50, CacheRead: 0.01, CacheWrite: 0.125},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25},
	"claude-3-5-haiku":  {Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1},
	// OpenAI. Cached input is discounted; writing the cache costs nothing extra.
	"gpt-4.1":      {Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2},
	"gpt-4.1-mini": {Input: 0.40, Output: 1.60, CacheRead: 0.10, CacheWrite: 0.40},
	"gpt-4.1-nano": {Input: 0.10, Output: 0.40, CacheRead: 0.025, CacheWrite: 0.10},
	"gpt-4o":       {Input: 2.50, Output: 10, CacheRead: 1.25, CacheWrite: 2.50},
	"gpt-4o-mini":  {Input: 0.15, Output: 0.60, CacheRead: 0.075, CacheWrite: 0.15},
}

// PriceFor returns the built-in price of model, matched by longest prefix,
// and whether there is one. Local models (Ollama, llama.cpp…) have none.
func PriceFor(model string) (Price, bool) {
	model = strings.ToLower(strings.TrimSpace(model))
	best := ""
	for name := range prices {
		if strings.HasPrefix(model, name) && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return Price{}, false
	}
	return prices[best], true
}

// EstimateCost is what u costs on model at list price, in US dollars; 0 when
// the model has no built-in price.
func EstimateCost(model string, u Usage) float64 {
	p, ok := PriceFor(model)
	if !ok {
		return 0
	}
	return (float64(u.InputTokens)*p.Input +
		float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}
