package mysql

// ScanAll is scanAll, for the package's outside tests.
var ScanAll = scanAll
