package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tablewise/tablewise/bridge/mcp"
	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/data"
)

const mcpUsage = `tablewise mcp — serve the database to MCP clients (Claude Code, Claude Desktop…), read-only

Usage:
  tablewise mcp [--db PATH ...] [--http ADDR] [--token-env VAR] [--allow-origin ORIGIN ...]

Without --http the server speaks MCP on stdin and stdout (logs go to stderr).
With --http it serves streamable HTTP at http://ADDR/mcp and GET /healthz.

Flags:
  --db PATH             a SQLite file to serve; repeat for several (each tool then takes a
                        database argument naming one by its label: the file name without
                        extension, or LABEL in --db LABEL=PATH). Default: the built-in sample.
  --http ADDR           serve streamable HTTP on ADDR, e.g. 127.0.0.1:8765; an address beyond
                        loopback needs --token-env
  --token-env VAR       require "Authorization: Bearer $VAR" on HTTP requests
  --allow-origin ORIGIN let browsers at ORIGIN (scheme://host[:port]) call; repeatable. Requests
                        with any other Origin are refused, and so are Host headers other than
                        localhost, the bind host and the allowed origins' hosts.
  --log-level LEVEL     debug, info, warn or error (default info)
  --provider, --model   a model provider for the ask tool (as for tablewise ask); the ask tool
                        appears only when one is configured (ANTHROPIC_API_KEY, OPENAI_API_KEY…)

Claude Code:  claude mcp add tablewise -- tablewise mcp --db ./shop.db
`

// stringList is a flag that may be repeated: --db a.db --db b.db.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// runMCP serves the databases over MCP: stdio by default, streamable HTTP
// with --http.
func runMCP(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("mcp")
	var dbs, origins stringList
	fs.Var(&dbs, "db", "SQLite database file to serve (repeatable; LABEL=PATH names it)")
	addr := fs.String("http", "", "serve streamable HTTP on this address, e.g. 127.0.0.1:8765")
	tokenEnv := fs.String("token-env", "", "environment variable holding the bearer token HTTP clients must send")
	fs.Var(&origins, "allow-origin", "browser origin allowed to call (repeatable)")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	help := fs.Bool("help", false, "show help")
	var mf modelFlags
	mf.register(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *help {
		fmt.Fprint(s.out, mcpUsage)
		return nil
	}
	if len(rest) > 0 {
		return usagef("mcp: unexpected argument %q (databases go in --db)\n\n%s", rest[0], mcpUsage)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usagef("mcp: unknown --log-level %q (choose debug, info, warn or error)", *logLevel)
	}
	logger := slog.New(slog.NewTextHandler(s.err, &slog.HandlerOptions{Level: level}))

	opt := mcp.HTTPOptions{Addr: *addr, AllowOrigins: origins}
	if *addr == "" && (*tokenEnv != "" || len(origins) > 0) {
		return usagef("mcp: --token-env and --allow-origin apply to --http only")
	}
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return usagef("mcp: --allow-origin %q: give an origin such as https://app.example.com or http://localhost:5173", o)
		}
	}
	if *tokenEnv != "" {
		opt.Token = strings.TrimSpace(s.getenv(*tokenEnv))
		if opt.Token == "" {
			return usagef("mcp: --token-env %s: the variable is empty or unset", *tokenEnv)
		}
	}
	if *addr != "" {
		host, _, err := net.SplitHostPort(*addr)
		if err != nil {
			return usagef("mcp: --http %q: give host:port, e.g. 127.0.0.1:8765", *addr)
		}
		if opt.Token == "" && !isLoopback(host) {
			return usagef("mcp: refusing to serve %s without a token: anyone who can reach it could read the database. "+
				"Set --token-env VAR (VAR holds the bearer token clients must send), or listen on loopback (--http 127.0.0.1:PORT)", *addr)
		}
	}

	opened, err := openMCPDatabases(ctx, dbs)
	for _, d := range opened {
		defer d.Close()
	}
	if err != nil {
		return err
	}
	// The ask tool appears only when a model provider is configured.
	p, tw, closeProvider, err := newProvider(mf, s.getenv)
	if err != nil {
		return err
	}
	defer closeProvider()
	mo := mcp.Options{Databases: opened, Version: version, Logger: logger}
	if p != nil {
		mo.NewAgent = func(d *db.DB) *agent.Agent { return agent.New(d, p, agent.CoreTools(d), agent.Options{Trace: tw}) }
		logger.Info("ask tool enabled", "provider", p.Name(), "model", p.Model())
	}
	srv, err := mcp.New(mo)
	if err != nil {
		return err
	}
	if *addr == "" {
		return srv.ServeStdio(ctx, s.in, s.out)
	}
	if err := srv.ListenAndServe(ctx, opt); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	return nil
}

// isLoopback says whether host (from --http host:port) only listens on
// this machine: localhost or a loopback address. An empty host listens on
// every interface.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var labelPrefix = regexp.MustCompile(`^([A-Za-z0-9_.-]+)=(.+)$`)

// openMCPDatabases opens every --db (the sample when there is none), each
// labelled with its file name without extension or the LABEL of
// LABEL=PATH. Labels must differ.
func openMCPDatabases(ctx context.Context, paths []string) ([]*db.DB, error) {
	if len(paths) == 0 {
		d, err := openDB(ctx, "")
		if err != nil {
			return nil, err
		}
		return []*db.DB{d}, nil
	}
	var out []*db.DB
	seen := map[string]string{}
	for _, p := range paths {
		label := ""
		if m := labelPrefix.FindStringSubmatch(p); m != nil {
			if _, err := os.Stat(p); err != nil { // a file may have = in its name
				label, p = m[1], m[2]
			}
		}
		if label == "" {
			label = defaultLabel(p)
		}
		if prev, dup := seen[label]; dup {
			return out, usagef("mcp: %s and %s would both be labelled %q: name one with --db LABEL=PATH", prev, p, label)
		}
		seen[label] = p
		var d *db.DB
		var err error
		if _, serr := os.Stat(p); serr != nil && p == data.SampleName {
			d, err = openDB(ctx, "") // --db sample: the built-in one
		} else {
			d, err = db.Open(ctx, p, db.Options{Label: label})
		}
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// defaultLabel is a database's label: the file name without extension
// (shop.db → shop).
func defaultLabel(path string) string {
	if strings.HasPrefix(path, "file:") {
		path = strings.TrimPrefix(path, "file:")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
	}
	base := filepath.Base(path)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}
