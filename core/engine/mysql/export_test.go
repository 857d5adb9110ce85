package mysql

// ScanAll is scanAll, for the package's outside tests.
var ScanAll = scanAll

// Builtins are the functions the server's check (confirm.go) takes an
// unquoted call of as the server's own.
func Builtins() []string {
	var out []string
	for w := range builtins {
		out = append(out, w)
	}
	return out
}
