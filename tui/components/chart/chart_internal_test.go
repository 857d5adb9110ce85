package chart

import "testing"

func TestNext(t *testing.T) {
	list := []string{"a", "b", "c"}
	if next(list, "b", false) != "c" || next(list, "c", false) != "a" || next(list, "zz", false) != "a" {
		t.Error("next does not cycle")
	}
	if next(list, "c", true) != "" || next(list, "", true) != "a" {
		t.Error("next with an empty choice does not cycle through it")
	}
}
