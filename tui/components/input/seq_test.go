package input_test

import (
	"reflect"

	tea "charm.land/bubbletea/v2"
)

// seqCmds unpacks tea.Sequence's message (an unexported slice of
// commands) so tests can run the commands in order.
func seqCmds(msg tea.Msg) []tea.Cmd {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice {
		return nil
	}
	var out []tea.Cmd
	for i := 0; i < v.Len(); i++ {
		if c, ok := v.Index(i).Interface().(tea.Cmd); ok {
			out = append(out, c)
		}
	}
	return out
}
