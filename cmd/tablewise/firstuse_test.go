package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHelpExitsZero: -h and --help print the usage on stdout and exit 0,
// for the program and for every command.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{
		{"-h"}, {"--help"}, {"-help"}, {"help"},
		{"sql", "-h"}, {"sql", "--help"}, {"schema", "-h"}, {"export", "--help"}, {"chart", "-h"},
		{"ask", "-h"}, {"doctor", "--help"}, {"mcp", "-h"}, {"discord", "-h"},
	} {
		code, out, errs := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, "Usage") || errs != "" {
			t.Errorf("%v: exit %d, stdout %q…, stderr %q; want the usage on stdout and exit 0", args, code, firstLine(out), errs)
		}
	}
	_, out, _ := runCLI(t, "", "sql", "-h")
	if !strings.Contains(out, "--max-rows") || !strings.Contains(out, "tablewise sql") {
		t.Errorf("sql -h does not show its flags:\n%s", out)
	}
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// TestVersion: --version and the listed version command print the version.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		code, out, errs := runCLI(t, "", args...)
		if code != 0 || out != "tablewise "+version+"\n" {
			t.Errorf("%v: exit %d %q %q", args, code, out, errs)
		}
	}
	if !strings.Contains(usage, "tablewise version") {
		t.Error("the usage does not list the version command")
	}
}

// TestUnknownCommandSuggests: a mistyped command gets "did you mean".
func TestUnknownCommandSuggests(t *testing.T) {
	for typo, want := range map[string]string{"sqll": "sql", "expor": "export", "chrat": "chart", "shcema": "schema"} {
		code, _, errs := runCLI(t, "", typo, "SELECT 1")
		if code != 2 || !strings.Contains(errs, `did you mean "`+want+`"?`) {
			t.Errorf("%s: exit %d %q; want 2 and did you mean %q", typo, code, errs, want)
		}
	}
}

// TestSQLStartingWithComment: SQL that opens with a comment is SQL, not a
// flag.
func TestSQLStartingWithComment(t *testing.T) {
	for _, args := range [][]string{
		{"sql", "-- top\nSELECT 1 AS one"},
		{"sql", "--format", "csv", "-- top\nSELECT 1 AS one"},
		{"sql", "-- top\nSELECT 1 AS one", "--format", "csv"},
		{"sql", "--", "-- top\nSELECT 1 AS one"},
		{"sql", "--  \nSELECT 1 AS one"},
	} {
		code, out, errs := runCLI(t, "", args...)
		if code != 0 || out != "one\r\n1\r\n" {
			t.Errorf("%q: exit %d, %q %q", args, code, out, errs)
		}
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "x.csv")
	if code, _, errs := runCLI(t, "", "export", "--sql", "-- top\nSELECT 1 AS one", "--out", out); code != 0 {
		t.Errorf("export --sql with a comment first: exit %d %q", code, errs)
	}
}

// TestOutputPathErrors: an --out that cannot be written is a usage error
// (exit 2) naming the user's path, never a temporary file.
func TestOutputPathErrors(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "out")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nonexistent", "x.csv")
	chartSQL := "SELECT channel, count(*) AS n FROM orders GROUP BY 1"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--sql", "SELECT 1", "--out", sub + "/"}, sub},
		{[]string{"export", "--sql", "SELECT 1", "--out", sub}, sub},
		{[]string{"export", "--sql", "SELECT 1", "--out", missing}, filepath.Dir(missing)},
		{[]string{"chart", "--sql", chartSQL, "--out", sub}, sub},
		{[]string{"chart", "--sql", chartSQL, "--out", filepath.Join(dir, "nonexistent", "c.png")}, filepath.Join(dir, "nonexistent")},
		{[]string{"sql", "--db", dir, "SELECT 1"}, dir},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, ".tmp") {
			t.Errorf("%v: exit %d %q; want 2 naming %s and no temporary file", c.args, code, errs, c.want)
		}
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 0 {
		t.Errorf("files left in %s: %v", sub, entries)
	}
}

// TestOutputFilesFollowUmask: exported files and charts are 0644 less the
// umask, like the files the explorer writes.
func TestOutputFilesFollowUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	csvPath, pngPath := filepath.Join(dir, "e.csv"), filepath.Join(dir, "c.png")
	if code, _, errs := runCLI(t, "", "export", "--sql", "SELECT 1", "--out", csvPath); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := runCLI(t, "", "chart", "--sql", "SELECT channel, count(*) AS n FROM orders GROUP BY 1", "--out", pngPath); code != 0 {
		t.Fatal(errs)
	}
	for _, p := range []string{csvPath, pngPath} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o640 {
			t.Errorf("%s is %o, want 640 (0644 under umask 027)", filepath.Base(p), m)
		}
	}
}

// TestMCPPortInUse: an address that cannot be listened on is a usage error.
func TestMCPPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	code, _, errs := runCLI(t, "", "mcp", "--http", addr)
	if code != 2 || !strings.Contains(errs, addr) || !strings.Contains(errs, "in use") {
		t.Errorf("mcp --http %s (taken): exit %d %q; want 2 saying the address is in use", addr, code, errs)
	}
}

// TestChartOutFormats: --out picks PNG or JPEG by extension and refuses
// others rather than writing PNG bytes under another name.
func TestChartOutFormats(t *testing.T) {
	dir := t.TempDir()
	sql := "SELECT channel, count(*) AS n FROM orders GROUP BY 1"
	for name, magic := range map[string][]byte{"c.png": []byte("\x89PNG"), "c.jpg": {0xFF, 0xD8, 0xFF}, "c.JPEG": {0xFF, 0xD8, 0xFF}} {
		p := filepath.Join(dir, name)
		if code, _, errs := runCLI(t, "", "chart", "--sql", sql, "--out", p); code != 0 {
			t.Fatalf("%s: %s", name, errs)
		}
		b, _ := os.ReadFile(p)
		if !bytes.HasPrefix(b, magic) {
			t.Errorf("%s starts % x, want % x", name, b[:min(4, len(b))], magic)
		}
	}
	for _, name := range []string{"c.gif", "c.svg", "c.webp"} {
		p := filepath.Join(dir, name)
		code, _, errs := runCLI(t, "", "chart", "--sql", sql, "--out", p)
		if _, err := os.Stat(p); code != 2 || !strings.Contains(errs, name) || !strings.Contains(errs, ".jpg") || err == nil {
			t.Errorf("%s: exit %d %q (file written: %v); want 2 naming the formats and no file", name, code, errs, err == nil)
		}
	}
}

// TestChartKindAloneAndNoRows: a kind alone uses the suggested columns, and
// an empty result says there is nothing to chart.
func TestChartKindAloneAndNoRows(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"pie", "line", "hbar"} {
		code, _, errs := runCLI(t, "", "chart", "--kind", kind, "--sql", "SELECT channel, count(*) AS orders FROM orders GROUP BY 1", "--out", filepath.Join(dir, kind+".png"))
		if code != 0 || !strings.Contains(errs, kind+" chart of orders by channel") {
			t.Errorf("--kind %s: exit %d %q", kind, code, errs)
		}
	}
	code, _, errs := runCLI(t, "", "chart", "--sql", "SELECT channel, count(*) AS n FROM orders WHERE 0 GROUP BY 1", "--out", filepath.Join(dir, "none.png"))
	if code != 2 || !strings.Contains(errs, "no rows to chart") || strings.Contains(errs, "?") {
		t.Errorf("empty result: exit %d %q; want 2 and no rows to chart", code, errs)
	}
}

// TestSQLDotCommands: the sqlite3 shell's common dot-commands work in sql,
// or say what to use instead.
func TestSQLDotCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sql", ".tables"}, 0, "order_items"},
		{[]string{"sql", ".schema", "customers"}, 0, "customer_id"},
		{[]string{"sql", ".schema customers"}, 0, "signup_date"},
		{[]string{"sql", ".mode", "csv"}, 2, "--format csv"},
		{[]string{"sql", ".headers on"}, 2, "headers"},
		{[]string{"sql", ".quit"}, 2, "nothing to quit"},
		{[]string{"sql", ".frobnicate"}, 2, ".tables"},
	} {
		code, out, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%q: exit %d, out %q…, err %q; want %d with %q", c.args, code, firstLine(out), errs, c.code, c.want)
		}
	}
}
