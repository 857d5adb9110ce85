// Package styles holds the colors and text styles of the explorer.
package styles

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles are every style the explorer draws with. Components take a
// pointer so one set serves the whole app.
type Styles struct {
	// Panes.
	PaneTitle        lipgloss.Style // an unfocused pane's title
	PaneTitleFocused lipgloss.Style
	PaneRule         lipgloss.Style // the rule after a title and between panes
	PaneRuleFocused  lipgloss.Style

	// Text.
	Dim     lipgloss.Style
	Bold    lipgloss.Style
	Accent  lipgloss.Style
	Error   lipgloss.Style
	Hint    lipgloss.Style
	Warn    lipgloss.Style
	OK      lipgloss.Style
	Info    lipgloss.Style
	Cursor  lipgloss.Style // the editor's cursor cell
	Select  lipgloss.Style // a selected list item
	Marker  lipgloss.Style // the ›  in front of a selected item
	Subtle  lipgloss.Style // placeholders
	Heading lipgloss.Style

	// SQL syntax.
	Keyword  lipgloss.Style
	Function lipgloss.Style
	String   lipgloss.Style
	Number   lipgloss.Style
	Comment  lipgloss.Style
	Ident    lipgloss.Style // quoted identifiers
	Operator lipgloss.Style
	Param    lipgloss.Style

	// Input mode badges.
	ModeSQL lipgloss.Style
	ModeAsk lipgloss.Style

	// Results grid.
	GridHeader     lipgloss.Style
	GridRule       lipgloss.Style
	GridRowNum     lipgloss.Style
	GridCursorRow  lipgloss.Style
	GridCursorCell lipgloss.Style
	Null           lipgloss.Style

	// Schema tree.
	TableName lipgloss.Style
	ViewName  lipgloss.Style
	ColType   lipgloss.Style
	Key       lipgloss.Style // PK / FK markers
	Count     lipgloss.Style

	// Status bar and help.
	Status      lipgloss.Style
	StatusDB    lipgloss.Style
	StatusBusy  lipgloss.Style
	StatusError lipgloss.Style
	StatusOK    lipgloss.Style
	HelpKey     lipgloss.Style
	HelpDesc    lipgloss.Style
	HelpSep     lipgloss.Style

	// Overlays.
	OverlayBorder lipgloss.Style
	OverlayTitle  lipgloss.Style
}

// Palette entries (ANSI 256 so they survive most terminals; Bubble Tea
// downsamples further when the terminal has fewer colors).
var (
	colAccent  color.Color = lipgloss.Color("39")  // blue
	colAsk     color.Color = lipgloss.Color("170") // magenta
	colDim     color.Color = lipgloss.Color("244")
	colFaint   color.Color = lipgloss.Color("240")
	colError   color.Color = lipgloss.Color("203")
	colWarn    color.Color = lipgloss.Color("214")
	colOK      color.Color = lipgloss.Color("78")
	colKeyword color.Color = lipgloss.Color("75")
	colFunc    color.Color = lipgloss.Color("80")
	colString  color.Color = lipgloss.Color("114")
	colNumber  color.Color = lipgloss.Color("215")
	colComment color.Color = lipgloss.Color("243")
	colIdent   color.Color = lipgloss.Color("222")
	colCursorB color.Color = lipgloss.Color("237")
	colSelectB color.Color = lipgloss.Color("236")
	colBlack   color.Color = lipgloss.Color("16")
)

// Default returns the explorer's styles.
func Default() *Styles {
	s := lipgloss.NewStyle
	return &Styles{
		PaneTitle:        s().Foreground(colDim),
		PaneTitleFocused: s().Foreground(colAccent).Bold(true),
		PaneRule:         s().Foreground(colFaint),
		PaneRuleFocused:  s().Foreground(colAccent),

		Dim:     s().Foreground(colDim),
		Bold:    s().Bold(true),
		Accent:  s().Foreground(colAccent),
		Error:   s().Foreground(colError).Bold(true),
		Hint:    s().Foreground(colWarn),
		Warn:    s().Foreground(colWarn),
		OK:      s().Foreground(colOK),
		Info:    s().Foreground(colAccent),
		Cursor:  s().Reverse(true),
		Select:  s().Background(colSelectB).Bold(true),
		Marker:  s().Foreground(colAccent).Bold(true),
		Subtle:  s().Foreground(colFaint),
		Heading: s().Bold(true).Foreground(colAccent),

		Keyword:  s().Foreground(colKeyword).Bold(true),
		Function: s().Foreground(colFunc),
		String:   s().Foreground(colString),
		Number:   s().Foreground(colNumber),
		Comment:  s().Foreground(colComment).Italic(true),
		Ident:    s().Foreground(colIdent),
		Operator: s().Foreground(colDim),
		Param:    s().Foreground(colAsk),

		ModeSQL: s().Foreground(colBlack).Background(colAccent).Bold(true),
		ModeAsk: s().Foreground(colBlack).Background(colAsk).Bold(true),

		GridHeader:     s().Bold(true),
		GridRule:       s().Foreground(colFaint),
		GridRowNum:     s().Foreground(colFaint),
		GridCursorRow:  s().Background(colCursorB),
		GridCursorCell: s().Reverse(true),
		Null:           s().Foreground(colFaint).Italic(true),

		TableName: s(),
		ViewName:  s().Italic(true),
		ColType:   s().Foreground(colDim),
		Key:       s().Foreground(colWarn),
		Count:     s().Foreground(colDim),

		Status:      s().Foreground(colDim),
		StatusDB:    s().Foreground(colAccent).Bold(true),
		StatusBusy:  s().Foreground(colWarn),
		StatusError: s().Foreground(colError),
		StatusOK:    s().Foreground(colOK),
		HelpKey:     s().Foreground(colAccent),
		HelpDesc:    s().Foreground(colDim),
		HelpSep:     s().Foreground(colFaint),

		OverlayBorder: s().Foreground(colAccent),
		OverlayTitle:  s().Foreground(colAccent).Bold(true),
	}
}
