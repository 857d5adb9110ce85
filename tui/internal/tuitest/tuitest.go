// Package tuitest holds what the explorer's tests share.
package tuitest

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// named are the keys known by name rather than by the text they type.
var named = map[string]rune{
	"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "up": tea.KeyUp, "down": tea.KeyDown,
	"left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace, "pgdown": tea.KeyPgDown,
	"pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd, "f1": tea.KeyF1, "f5": tea.KeyF5,
	"space": tea.KeySpace,
}

// Key builds the key press a terminal sends for "enter", "ctrl+c",
// "alt+3", "shift+tab", "space", "x"…
func Key(k string) tea.KeyPressMsg {
	var mod tea.KeyMod
	for {
		switch {
		case strings.HasPrefix(k, "ctrl+"):
			mod |= tea.ModCtrl
			k = k[5:]
			continue
		case strings.HasPrefix(k, "alt+"):
			mod |= tea.ModAlt
			k = k[4:]
			continue
		case strings.HasPrefix(k, "shift+"):
			mod |= tea.ModShift
			k = k[6:]
			continue
		}
		break
	}
	if c, ok := named[k]; ok {
		if c == tea.KeySpace && mod == 0 {
			return tea.KeyPressMsg{Code: c, Text: " "}
		}
		return tea.KeyPressMsg{Code: c, Mod: mod}
	}
	r := []rune(k)[0]
	if mod == 0 {
		return tea.KeyPressMsg{Code: r, Text: k}
	}
	return tea.KeyPressMsg{Code: r, Mod: mod}
}
