package chart

import "testing"

func TestIDLike(t *testing.T) {
	for name, want := range map[string]bool{
		"id": true, "customer_id": true, "AlbumId": true, "TrackID": true, "ID": true,
		"revenue": false, "orders": false, "paid": false, "valid": false, "Id": true, "width": false,
	} {
		if got := idLike(name); got != want {
			t.Errorf("idLike(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestNext(t *testing.T) {
	list := []string{"a", "b", "c"}
	if next(list, "b", false) != "c" || next(list, "c", false) != "a" || next(list, "zz", false) != "a" {
		t.Error("next does not cycle")
	}
	if next(list, "c", true) != "" || next(list, "", true) != "a" {
		t.Error("next with an empty choice does not cycle through it")
	}
}
