package llm

import "context"

// CallTags name what a model call belongs to. A caller attaches them to a
// context with WithCallTags; every CallRecord of a call made with that
// context carries them, so the trace's model-call lines join its tool-call
// lines and the evaluation's records.
type CallTags struct {
	// TraceID names one question.
	TraceID string
	// Prompt is the version of the prompts the call was made with ("v1").
	Prompt string
	// Role says what the call is for within the question: "" for answering,
	// "review" for the independent review of an answer's SQL, "escalation"
	// for the retry with a stronger model.
	Role string
}

type callTagsKey struct{}

// WithCallTags returns ctx carrying tags.
func WithCallTags(ctx context.Context, tags CallTags) context.Context {
	return context.WithValue(ctx, callTagsKey{}, tags)
}

// CallTagsFrom returns the tags ctx carries (zero when none).
func CallTagsFrom(ctx context.Context) CallTags {
	t, _ := ctx.Value(callTagsKey{}).(CallTags)
	return t
}
