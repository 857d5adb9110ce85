package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/health"
)

// openHealth is the health view (f2): the findings of core/health for the
// table selected in the sidebar, when the sidebar shows one, and for the
// whole database — severity, code, objects, why and the fix as SQL, which
// tablewise never runs — in the pager, where they scroll and esc closes
// them.
func (a *App) openHealth() tea.Cmd {
	var table string
	if a.sidebar {
		if t, _ := a.schema.Selected(); t != nil && t.Kind == "table" {
			table = t.Name
		}
	}
	title := "Health"
	if table != "" {
		title += " · " + table
	}
	return a.runCheck(title, func(ctx context.Context) (string, error) {
		var b strings.Builder
		if table != "" {
			rep, err := health.Check(ctx, a.d, health.Options{Tables: []string{table}})
			if err != nil {
				return "", err
			}
			b.WriteString("── the selected table: " + table + " ──\n\n" + rep.Text() + "\n")
		}
		rep, err := health.Check(ctx, a.d, health.Options{})
		if err != nil {
			return "", err
		}
		b.WriteString("── the whole database ──\n\n" + rep.Text())
		return b.String(), nil
	})
}
