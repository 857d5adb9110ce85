// Package answer holds what every front door renders: the Bundle a question
// produces and the declarative ChartSpec.
package answer

// Chart kinds.
const (
	KindBar       = "bar"
	KindHBar      = "hbar"
	KindLine      = "line"
	KindScatter   = "scatter"
	KindPie       = "pie"
	KindHistogram = "histogram"
)

// Kinds lists every chart kind, in the order help texts show them.
var Kinds = []string{KindBar, KindHBar, KindLine, KindScatter, KindPie, KindHistogram}

// ChartSpec is a chart as data: what to draw from which result columns. The
// host never runs model-written code; a spec is validated against the result
// it is drawn from.
type ChartSpec struct {
	Kind   string `json:"kind"`
	X      string `json:"x"`
	Y      string `json:"y,omitempty"`
	Series string `json:"series,omitempty"`
	Title  string `json:"title,omitempty"`
}
