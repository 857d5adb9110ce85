package detail_test

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/detail"
	"github.com/tablewise/tablewise/tui/components/grid"
	"github.com/tablewise/tablewise/tui/internal/tuitest"
)

// open shows the second cell of a row whose first value is long enough to
// page through, in the cell view or the record view.
func open(t *testing.T, how grid.Open) *detail.Model {
	t.Helper()
	m := detail.New(common.Default())
	m.SetSize(40, 5)
	m.Open(grid.ExpandMsg{
		Columns: []query.Column{{Name: "notes", Type: "TEXT"}, {Name: "city", Type: "TEXT"}},
		Row:     query.Row{strings.Repeat("word ", 200), "Lyon"},
		Col:     1, RowNum: 3, Pos: 3, Count: 9, Open: how,
	})
	return m
}

// msgs runs cmd and the commands of any batch it returns, and gives their
// messages.
func msgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	b, ok := msg.(tea.BatchMsg)
	if !ok {
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for _, c := range b {
		out = append(out, msgs(c)...)
	}
	return out
}

// has reports whether the messages of cmd include want.
func has(cmd tea.Cmd, want tea.Msg) bool {
	for _, m := range msgs(cmd) {
		if m == want {
			return true
		}
	}
	return false
}

// TestKeys: both views page and copy with the same keys, and each keeps
// its own keys for closing, moving and the pager.
func TestKeys(t *testing.T) {
	for _, how := range []grid.Open{grid.OpenCell, grid.OpenRecord} {
		m := open(t, how)
		top := m.View()
		if m.Update(tuitest.Key("pgdown")); m.View() == top {
			t.Errorf("view %d: pgdown did not page:\n%s", how, top)
		}
		if m.Update(tuitest.Key("pgup")); m.View() != top {
			t.Errorf("view %d: pgup did not page back:\n%s", how, m.View())
		}
		if m.Update(tuitest.Key("space")); m.View() == top {
			t.Errorf("view %d: space did not page", how)
		}
		if cmd := m.Update(tuitest.Key("y")); !has(cmd, detail.CopiedMsg{What: "cell"}) {
			t.Errorf("view %d: y did not copy the cell: %v", how, msgs(cmd))
		}
		if cmd := m.Update(tuitest.Key("Y")); !has(cmd, detail.CopiedMsg{What: "row"}) {
			t.Errorf("view %d: Y did not copy the row: %v", how, msgs(cmd))
		}
		if !m.Active() {
			t.Errorf("view %d closed before esc", how)
		}
		m.Update(tuitest.Key("esc"))
		if m.Active() {
			t.Errorf("view %d: esc did not close it", how)
		}
	}

	cell := open(t, grid.OpenCell)
	if cmd := cell.Update(tuitest.Key("p")); !has(cmd, detail.PagerMsg{Title: grid.CellTitle(query.Column{Name: "city", Type: "TEXT"}, 3), Text: "Lyon"}) {
		t.Errorf("cell view: p did not ask for the pager: %v", msgs(cmd))
	}
	if cell.Update(tuitest.Key("enter")); cell.Active() {
		t.Error("cell view: enter did not close it")
	}

	rec := open(t, grid.OpenRecord)
	if cmd := rec.Update(tuitest.Key("right")); !has(cmd, detail.StepMsg{Delta: 1}) {
		t.Errorf("record view: right did not step to the next row: %v", msgs(cmd))
	}
	if cmd := rec.Update(tuitest.Key("left")); !has(cmd, detail.StepMsg{Delta: -1}) {
		t.Errorf("record view: left did not step to the row before: %v", msgs(cmd))
	}
	if rec.Update(tuitest.Key("up")); !has(rec.Update(tuitest.Key("enter")), detail.PagerMsg{Title: grid.CellTitle(query.Column{Name: "notes", Type: "TEXT"}, 3), Text: strings.Repeat("word ", 200)}) {
		t.Error("record view: up then enter did not show the first field in the pager")
	}
	if rec.Update(tuitest.Key("v")); rec.Active() {
		t.Error("record view: v did not close it")
	}
}
