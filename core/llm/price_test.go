package llm

import (
	"math"
	"testing"
)

func TestPriceFor(t *testing.T) {
	tests := []struct {
		model string
		input float64
		ok    bool
	}{
		{"claude-sonnet-5-5", 2, true},
		{"claude-sonnet-5-5-20261001", 2, true},
		{"claude-sonnet-5", 2, true},
		{"claude-sonnet-4-5-20250929", 3, true}, // the claude-sonnet-4 family
		{"claude-sonnet-4-6", 3, true},
		{"claude-haiku-5-5", 0.10, true},
		{"claude-opus-5-5", 4, true},
		{"claude-opus-5", 5, true},
		{"claude-opus-4-1-20250805", 15, true},
		{"gpt-4.1-mini", 0.40, true}, // not gpt-4.1
		{"gpt-4.1-mini-2025-04-14", 0.40, true},
		{"gpt-4.1", 2, true},
		{"gpt-4.1-nano", 0.10, true},
		{"GPT-4o-mini", 0.15, true},
		{"llama3.1:8b", 0, false},
		{"gpt-oss:20b", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		p, ok := PriceFor(tt.model)
		if ok != tt.ok || p.Input != tt.input {
			t.Errorf("PriceFor(%q) = %+v, %v; want input %v, %v", tt.model, p, ok, tt.input, tt.ok)
		}
	}
}

func TestPriceTableIsSane(t *testing.T) {
	for name, p := range prices {
		if p.Input <= 0 || p.Output < p.Input || p.CacheRead <= 0 || p.CacheRead > p.Input || p.CacheWrite < p.Input {
			t.Errorf("%s: implausible price %+v", name, p)
		}
	}
}

func TestEstimateCost(t *testing.T) {
	u := Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheWriteTokens: 400_000}
	// claude-haiku-4-5: $1 in, $5 out, $0.10 read, $1.25 write.
	want := 1.0 + 0.5 + 0.2 + 0.5
	if got := EstimateCost("claude-haiku-4-5-20251001", u); math.Abs(got-want) > 1e-9 {
		t.Errorf("EstimateCost = %v, want %v", got, want)
	}
	if got := EstimateCost("mistral-small", u); got != 0 {
		t.Errorf("unknown model cost %v, want 0", got)
	}
}

func TestUsageAdd(t *testing.T) {
	total := Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, CostUSD: 0.5}
	total.Add(Usage{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 30, CacheWriteTokens: 40, CostUSD: 0.25})
	if total != (Usage{InputTokens: 11, OutputTokens: 22, CacheReadTokens: 33, CacheWriteTokens: 44, CostUSD: 0.75}) {
		t.Errorf("Add = %+v", total)
	}
}
