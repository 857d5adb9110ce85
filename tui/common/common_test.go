package common_test

import (
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/tablewise/tablewise/tui/common"
)

func TestModeHelp(t *testing.T) {
	first := make([]key.Binding, 1, 3) // room to append into
	first[0] = common.Hint("tab", "next name")
	got := common.ModeHelp("accept", "close", first...)
	want := [][2]string{{"tab", "next name"}, {"enter", "accept"}, {"esc", "close"}}
	if len(got) != len(want) {
		t.Fatalf("ModeHelp gave %d bindings, want %d", len(got), len(want))
	}
	for i, w := range want {
		h := got[i].Help()
		if keys := got[i].Keys(); len(keys) != 1 || keys[0] != w[0] || h.Key != w[0] || h.Desc != w[1] {
			t.Errorf("binding %d: keys %v, help %q %q; want %q %q", i, keys, h.Key, h.Desc, w[0], w[1])
		}
	}
	if spare := first[:3]; spare[0].Help().Key != "tab" || spare[1].Help().Key != "" || spare[2].Help().Key != "" {
		t.Errorf("ModeHelp wrote into its argument's array: %v", spare)
	}
	if got := common.ModeHelp("find", "cancel"); len(got) != 2 || got[0].Help().Desc != "find" || got[1].Help().Desc != "cancel" {
		t.Errorf("ModeHelp(find, cancel) = %v", got)
	}
}
