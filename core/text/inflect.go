package text

import "strings"

// Singular and Plural change the number of an English noun (the last word
// of a name) in the common ways, enough for the names of tables and
// columns in generated questions and sentences: customers ↔ customer,
// categories ↔ category, boxes ↔ box, addresses ↔ address. A word already
// in the number asked for comes back as it is; status, campus and address
// read as singular. Only the ending is looked at, in either case, and
// what is added follows the case of the last letter.

// Singular is the singular of w: customers → customer, categories →
// category, boxes → box; status and address stay.
func Singular(w string) string {
	l := strings.ToLower(w)
	switch {
	case strings.HasSuffix(l, "ies"):
		return ending(w, 3, "y")
	case strings.HasSuffix(l, "sses"), strings.HasSuffix(l, "shes"), strings.HasSuffix(l, "ches"), strings.HasSuffix(l, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss") && !strings.HasSuffix(l, "us"):
		return w[:len(w)-1]
	}
	return w
}

// Plural is the plural of w: customer → customers, category → categories,
// box → boxes, status → statuses; a word that reads plural (orders,
// "Order Details") stays.
func Plural(w string) string {
	if w == "" || Singular(w) != w {
		return w
	}
	l := strings.ToLower(w)
	switch {
	case len(l) > 1 && l[len(l)-1] == 'y' && !strings.ContainsRune("aeiou", rune(l[len(l)-2])):
		return ending(w, 1, "ies")
	case strings.HasSuffix(l, "s"), strings.HasSuffix(l, "x"), strings.HasSuffix(l, "z"), strings.HasSuffix(l, "ch"), strings.HasSuffix(l, "sh"):
		return ending(w, 0, "es")
	}
	return ending(w, 0, "s")
}

// ending cuts n bytes off w and adds add, in upper case when w's last
// letter is.
func ending(w string, n int, add string) string {
	if last := w[len(w)-1]; last >= 'A' && last <= 'Z' {
		add = strings.ToUpper(add)
	}
	return w[:len(w)-n] + add
}
