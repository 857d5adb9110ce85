package main

import (
	"context"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/offline"
)

// plannerAsker adapts the built-in offline planner to the asker interface.
type plannerAsker struct{ p *offline.Planner }

func (a plannerAsker) Ask(ctx context.Context, question string, onText func(string)) (*answer.Bundle, error) {
	b, err := a.p.Answer(ctx, question)
	if err == nil && onText != nil {
		onText(b.Answer)
	}
	return b, err
}
