package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/data/scaledb"
	"github.com/tablewise/tablewise/tui/components/input"
)

// BenchmarkWideSchema measures the explorer on a schema of 2,000 tables ×
// 20 columns (data/scaledb): the first screen with the sidebar filled
// (open, read the names, lay out, draw), the whole catalog read after it,
// a keystroke of the sidebar's filter, and a Tab completion of a column
// name.
func BenchmarkWideSchema(b *testing.B) {
	path := filepath.Join(b.TempDir(), "wide.db")
	if err := (scaledb.Wide{Tables: 2000, Columns: 20, Rows: 3}).Write(path); err != nil {
		b.Fatal(err)
	}
	opts := Options{StateDir: b.TempDir(), Now: fixedNow, Getenv: func(string) string { return "" }}
	ctx := context.Background()
	first := func(b *testing.B) *App {
		d, err := db.Open(ctx, path, db.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { d.Close() })
		a := New(d, opts)
		b.Cleanup(a.Close)
		a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		a.Update(a.readNames()())
		return a
	}
	open := func(b *testing.B) *App {
		a := first(b)
		a.Update(a.readCatalog()())
		return a
	}
	b.Run("first-screen", func(b *testing.B) {
		for b.Loop() {
			a := first(b)
			if v := ansi.Strip(a.render()); !strings.Contains(v, "audit_accounts") {
				b.Fatalf("the sidebar lacks the first table:\n%s", v)
			}
		}
	})
	b.Run("whole-catalog", func(b *testing.B) {
		for b.Loop() {
			a := open(b)
			if v := ansi.Strip(a.render()); !strings.Contains(v, "audit_accounts") {
				b.Fatalf("the sidebar lacks the first table:\n%s", v)
			}
		}
	})
	b.Run("filter-keystroke", func(b *testing.B) {
		a := open(b)
		a.schema.Focus()
		a.schema.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
		for i := 0; b.Loop(); i++ {
			r := rune("invoice"[i%7])
			a.schema.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			_ = a.render()
		}
	})
	b.Run("complete", func(b *testing.B) {
		a := open(b)
		comp := input.NewCompleter(a.schema.Catalog(), a.d.Dialect())
		text := []rune("SELECT reg FROM billing_invoices WHERE ")
		for b.Loop() {
			if _, _, c := comp.Complete(text, 10); len(c) == 0 {
				b.Fatal("no completion for reg")
			}
		}
	})
}

// TestNamesBeforeCatalog: the sidebar lists the tables from their names
// (one statement) before the whole catalog (row counts, keys) arrives,
// which then replaces them.
func TestNamesBeforeCatalog(t *testing.T) {
	a := New(openSample(t), testOptions(t))
	t.Cleanup(a.Close)
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Update(a.readNames()())
	v := ansi.Strip(a.render())
	if !strings.Contains(v, "customers") || strings.Contains(v, "2,400") {
		t.Fatalf("the sidebar from names alone:\n%s", v)
	}
	a.Update(a.readCatalog()())
	if v := ansi.Strip(a.render()); !strings.Contains(v, "2,400") {
		t.Fatalf("the sidebar after the catalog:\n%s", v)
	}
	// Names that arrive after the catalog change nothing.
	a.Update(a.readNames()())
	if v := ansi.Strip(a.render()); !strings.Contains(v, "2,400") {
		t.Fatalf("late names replaced the catalog:\n%s", v)
	}
}
