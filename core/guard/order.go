package guard

import "strings"

// OrdersResult reports whether sql's outermost query ends in ORDER BY, so
// that the order of its rows is part of its answer. An ORDER BY inside
// parentheses (a subquery, a common table expression, a window) does not
// order the result; neither do words in strings, quoted names or comments.
// Like the rest of this file it reads text for advice only.
func OrdersResult(sql string) bool {
	depth := 0
	prevOrder := false
	for _, t := range tokens(sql, len(sql)+1) {
		switch t {
		case "(":
			depth++
		case ")":
			depth--
		}
		up := strings.ToUpper(t)
		if depth == 0 && prevOrder && up == "BY" {
			return true
		}
		prevOrder = depth == 0 && up == "ORDER"
	}
	return false
}
