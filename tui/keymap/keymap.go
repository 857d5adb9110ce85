// Package keymap holds every key binding of the explorer, grouped by the
// pane that honours it. Help views are built from these bindings, so a key
// and its help text never disagree.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap is the explorer's key bindings.
type KeyMap struct {
	Global  Global
	Input   Input
	Grid    Grid
	Schema  Schema
	Answer  Answer
	Chart   Chart
	Overlay Overlay
	Record  Record
	Pager   Pager
}

// Global bindings work in every pane (the single-letter ones everywhere
// except the input, where letters are text).
type Global struct {
	Cancel        key.Binding // cancel the running work, or quit
	Quit          key.Binding
	Help          key.Binding
	ToggleSidebar key.Binding
	ToggleChart   key.Binding
	NextPane      key.Binding
	PrevPane      key.Binding
	FocusSchema   key.Binding
	FocusInput    key.Binding
	FocusResults  key.Binding
	FocusAnswer   key.Binding
	FocusChart    key.Binding
	Edit          key.Binding // focus the input from another pane
	Export        key.Binding
	Health        key.Binding // the health view: the database and the sidebar's table
}

// Input bindings edit and run the query or question.
type Input struct {
	Run        key.Binding
	Newline    key.Binding
	ToggleMode key.Binding
	Complete   key.Binding
	HistPrev   key.Binding
	HistNext   key.Binding
	Search     key.Binding
	Clear      key.Binding
	Leave      key.Binding
	Editor     key.Binding // the multi-line editor on and off
	EditorRun  key.Binding // run from the editor, where enter adds a line

	Left, Right          key.Binding
	WordLeft, WordRight  key.Binding
	Home, End            key.Binding
	Backspace, Delete    key.Binding
	DeleteWordBack       key.Binding
	KillToStart, KillEnd key.Binding
}

// Grid bindings move through the result.
type Grid struct {
	Up, Down       key.Binding
	Left, Right    key.Binding
	PageUp, PageDn key.Binding
	Top, Bottom    key.Binding
	RowStart       key.Binding
	RowEnd         key.Binding
	Expand         key.Binding
	Record         key.Binding // the cursor's row, one field a line
	Pager          key.Binding // the cursor's cell in a pager
	CopyCell       key.Binding
	CopyRow        key.Binding
	Sort           key.Binding
	Filter         key.Binding
	Widen          key.Binding
	Narrow         key.Binding
	AutoWidth      key.Binding
}

// Schema bindings browse the catalog.
type Schema struct {
	Up, Down       key.Binding
	PageUp, PageDn key.Binding
	Expand         key.Binding
	Collapse       key.Binding
	Preview        key.Binding
	Filter         key.Binding
	ClearFilter    key.Binding
	Insert         key.Binding
}

// Answer bindings act on a question's answer.
type Answer struct {
	Up, Down       key.Binding
	Choose         key.Binding
	EditSQL        key.Binding
	CopySQL        key.Binding
	PageUp, PageDn key.Binding
}

// Chart bindings change and save the chart.
type Chart struct {
	Options key.Binding
	Kind    key.Binding
	X       key.Binding
	Y       key.Binding
	Save    key.Binding
	Open    key.Binding
}

// Overlay bindings work in dialogs: the help, the cell view, prompts.
type Overlay struct {
	Confirm key.Binding
	Close   key.Binding
	Up      key.Binding
	Down    key.Binding
	CopyAll key.Binding
}

// Record bindings move through the result one row at a time in the
// record view.
type Record struct {
	Up, Down key.Binding // the field
	Prev     key.Binding // the row before
	Next     key.Binding // the row after
	Pager    key.Binding
	Close    key.Binding
}

// Pager bindings read a long value.
type Pager struct {
	Up, Down       key.Binding
	PageUp, PageDn key.Binding
	Top, Bottom    key.Binding
	Search         key.Binding
	NextMatch      key.Binding
	PrevMatch      key.Binding
	Wrap           key.Binding
	Raw            key.Binding
	Copy           key.Binding
	Close          key.Binding
}

func b(keys []string, k, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
}

func ks(k ...string) []string { return k }

// Default returns the explorer's bindings.
func Default() KeyMap {
	return KeyMap{
		Global: Global{
			Cancel:        b(ks("ctrl+c", "ctrl+alt+c"), "ctrl+c", "cancel / quit"),
			Quit:          b(ks("q"), "q", "quit (outside the input)"),
			Help:          b(ks("?", "f1"), "?/f1", "help"),
			ToggleSidebar: b(ks("ctrl+b"), "ctrl+b", "schema sidebar"),
			ToggleChart:   b(ks("ctrl+g"), "ctrl+g", "chart pane"),
			NextPane:      b(ks("tab"), "tab", "next pane"),
			PrevPane:      b(ks("shift+tab"), "shift+tab", "previous pane"),
			FocusSchema:   b(ks("alt+1"), "alt+1", "schema"),
			FocusInput:    b(ks("alt+2"), "alt+2", "input"),
			FocusResults:  b(ks("alt+3"), "alt+3", "results"),
			FocusAnswer:   b(ks("alt+4"), "alt+4", "answer"),
			FocusChart:    b(ks("alt+5"), "alt+5", "chart"),
			Edit:          b(ks("i"), "i", "back to the input"),
			Export:        b(ks("ctrl+s"), "ctrl+s", "export result"),
			Health:        b(ks("f2"), "f2", "health view"),
		},
		Input: Input{
			Run:        b(ks("enter"), "enter", "run"),
			Newline:    b(ks("ctrl+j", "alt+enter", "shift+enter"), "ctrl+j", "newline"),
			ToggleMode: b(ks("ctrl+t"), "ctrl+t", "mode"),
			Complete:   b(ks("tab"), "tab", "complete"),
			HistPrev:   b(ks("up"), "↑", "history"),
			HistNext:   b(ks("down"), "↓", "newer history"),
			Search:     b(ks("ctrl+r"), "ctrl+r", "search history"),
			Clear:      b(ks("ctrl+l"), "ctrl+l", "clear input"),
			Leave:      b(ks("esc"), "esc", "to results"),
			Editor:     b(ks("ctrl+o"), "ctrl+o", "multi-line editor on/off"),
			EditorRun:  b(ks("alt+enter", "ctrl+enter", "f5"), "alt+enter/f5", "run (editor)"),

			Left:           b(ks("left"), "←", "left"),
			Right:          b(ks("right"), "→", "right"),
			WordLeft:       b(ks("alt+left", "ctrl+left", "alt+b"), "alt+←", "word left"),
			WordRight:      b(ks("alt+right", "ctrl+right", "alt+f"), "alt+→", "word right"),
			Home:           b(ks("home", "ctrl+a"), "ctrl+a", "line start"),
			End:            b(ks("end", "ctrl+e"), "ctrl+e", "line end"),
			Backspace:      b(ks("backspace", "ctrl+h"), "backspace", "delete left"),
			Delete:         b(ks("delete", "ctrl+d"), "delete", "delete right"),
			DeleteWordBack: b(ks("ctrl+w", "alt+backspace"), "ctrl+w", "delete word"),
			KillToStart:    b(ks("ctrl+u"), "ctrl+u", "delete to line start"),
			KillEnd:        b(ks("ctrl+k"), "ctrl+k", "delete to line end"),
		},
		Grid: Grid{
			Up:        b(ks("up", "k"), "↑/k", "up"),
			Down:      b(ks("down", "j"), "↓/j", "down"),
			Left:      b(ks("left", "h"), "←/h", "left"),
			Right:     b(ks("right", "l"), "→/l", "right"),
			PageUp:    b(ks("pgup", "ctrl+u", "b"), "pgup", "page up"),
			PageDn:    b(ks("pgdown", "ctrl+d", "f", "space"), "pgdn", "page down"),
			Top:       b(ks("home", "g"), "g", "first row"),
			Bottom:    b(ks("end", "G"), "G", "last row"),
			RowStart:  b(ks("0", "^"), "0", "first column"),
			RowEnd:    b(ks("$"), "$", "last column"),
			Expand:    b(ks("enter"), "enter", "cell and row"),
			Record:    b(ks("v"), "v", "row view"),
			Pager:     b(ks("p"), "p", "cell in pager"),
			CopyCell:  b(ks("y", "c"), "y", "copy cell"),
			CopyRow:   b(ks("Y", "C"), "Y", "copy row"),
			Sort:      b(ks("s"), "s", "sort ↑ ↓ off"),
			Filter:    b(ks("/"), "/", "filter rows"),
			Widen:     b(ks(">", "+"), ">", "wider column"),
			Narrow:    b(ks("<", "-"), "<", "narrower"),
			AutoWidth: b(ks("="), "=", "auto width"),
		},
		Schema: Schema{
			Up:          b(ks("up", "k"), "↑/k", "up"),
			Down:        b(ks("down", "j"), "↓/j", "down"),
			PageUp:      b(ks("pgup"), "pgup", "page up"),
			PageDn:      b(ks("pgdown"), "pgdn", "page down"),
			Expand:      b(ks("right", "l", "space"), "→/space", "columns"),
			Collapse:    b(ks("left", "h"), "←", "collapse"),
			Preview:     b(ks("enter"), "enter", "preview rows"),
			Filter:      b(ks("/"), "/", "filter"),
			ClearFilter: b(ks("esc"), "esc", "clear filter"),
			Insert:      b(ks("a"), "a", "insert name"),
		},
		Answer: Answer{
			Up:      b(ks("up", "k"), "↑/k", "previous suggestion"),
			Down:    b(ks("down", "j"), "↓/j", "next suggestion"),
			Choose:  b(ks("enter"), "enter", "ask / answer it"),
			EditSQL: b(ks("e"), "e", "edit SQL and re-run"),
			CopySQL: b(ks("y"), "y", "copy SQL"),
			PageUp:  b(ks("pgup"), "pgup", "scroll up"),
			PageDn:  b(ks("pgdown"), "pgdn", "scroll down"),
		},
		Chart: Chart{
			Options: b(ks("o"), "o", "chart options"),
			Kind:    b(ks("k"), "k", "cycle kind"),
			X:       b(ks("x"), "x", "cycle x column"),
			Y:       b(ks("y"), "y", "cycle y column"),
			Save:    b(ks("s"), "s", "save PNG"),
			Open:    b(ks("v"), "v", "open PNG"),
		},
		Overlay: Overlay{
			Confirm: b(ks("enter"), "enter", "confirm"),
			Close:   b(ks("esc", "q"), "esc", "close"),
			Up:      b(ks("up", "k"), "↑", "scroll up"),
			Down:    b(ks("down", "j"), "↓", "scroll down"),
			CopyAll: b(ks("y"), "y", "copy"),
		},
		Record: Record{
			Up:    b(ks("up", "k"), "↑/k", "previous field"),
			Down:  b(ks("down", "j"), "↓/j", "next field"),
			Prev:  b(ks("left", "h"), "←/h", "previous row"),
			Next:  b(ks("right", "l"), "→/l", "next row"),
			Pager: b(ks("enter", "p"), "enter/p", "field in a pager"),
			Close: b(ks("esc", "q", "v"), "esc", "close"),
		},
		Pager: Pager{
			Up:        b(ks("up", "k"), "↑/k", "line up"),
			Down:      b(ks("down", "j"), "↓/j", "line down"),
			PageUp:    b(ks("pgup", "b", "ctrl+u"), "pgup/b", "page up"),
			PageDn:    b(ks("pgdown", "space", "f", "ctrl+d"), "space", "page down"),
			Top:       b(ks("home", "g"), "g", "top"),
			Bottom:    b(ks("end", "G"), "G", "bottom"),
			Search:    b(ks("/"), "/", "search"),
			NextMatch: b(ks("n"), "n", "next match"),
			PrevMatch: b(ks("N"), "N", "previous match"),
			Wrap:      b(ks("w"), "w", "wrap lines on/off"),
			Raw:       b(ks("r"), "r", "JSON as stored / formatted"),
			Copy:      b(ks("y"), "y", "copy"),
			Close:     b(ks("esc", "q"), "esc/q", "close"),
		},
	}
}
