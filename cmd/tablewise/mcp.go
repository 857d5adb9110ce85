package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/tablewise/tablewise/bridge/mcp"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/data"
)

const mcpUsage = `tablewise mcp — serve the database to MCP clients (Claude Code, Claude Desktop…), read-only

Usage:
  tablewise mcp [--db PATH ...] [--http ADDR] [--token-env VAR] [--allow-origin ORIGIN ...] [--checks]

Without --http the server speaks MCP on stdin and stdout (logs go to stderr).
With --http it serves streamable HTTP at http://ADDR/mcp and GET /healthz.

Flags:
  --db PATH             a SQLite file, a postgres:// or mysql:// URL, or data files (a.csv,b.json)
                        to serve; repeat for several (each tool then takes a database argument
                        naming one by its label: the file name without extension, a server
                        database's name, or LABEL in --db LABEL=PATH). Default: the built-in sample.
  --http ADDR           serve streamable HTTP on ADDR, e.g. 127.0.0.1:8765; an address beyond
                        loopback needs --token-env
  --token-env VAR       require "Authorization: Bearer $VAR" on HTTP requests
  --allow-origin ORIGIN let browsers at ORIGIN (scheme://host[:port]) call; repeatable. Requests
                        with any other Origin are refused, and so are Host headers other than
                        localhost, the bind host and the allowed origins' hosts.
  --checks              also serve the database checks: validate_schema, suggest_index (proven
                        with the planner), migration_context and validate_migration (rehearsed
                        on a copy of the schema); off by default, as every tool's description
                        goes to the model
  --scratch URL         with --checks: a separate PostgreSQL or MySQL/MariaDB database where
                        validate_migration rehearses a server database's migrations (never a
                        --db one; on a --db's own PostgreSQL server, as a user that is not a
                        superuser and does not own that database)
  --log-level LEVEL     debug, info, warn or error (default info)
  --provider, --model   who answers the ask tool (as for tablewise ask): a model when one is
                        configured (ANTHROPIC_API_KEY, OPENAI_API_KEY…), else the built-in planner

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
	fs.Var(&dbs, "db", "SQLite file, postgres:// or mysql:// URL, or data files to serve (repeatable; LABEL=PATH names it)")
	addr := fs.String("http", "", "serve streamable HTTP on this address, e.g. 127.0.0.1:8765")
	tokenEnv := fs.String("token-env", "", "environment variable holding the bearer token HTTP clients must send")
	fs.Var(&origins, "allow-origin", "browser origin allowed to call (repeatable)")
	checks := fs.Bool("checks", false, "also serve validate_schema, suggest_index, migration_context and validate_migration")
	scratch := fs.String("scratch", "", "with --checks: the URL of a separate database where validate_migration rehearses server migrations")
	mf, logger, err := parseServer(fs, args, mcpUsage, s)
	if err != nil || logger == nil {
		return err
	}

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

	if *scratch != "" && !*checks {
		return usagef("mcp: --scratch is where validate_migration rehearses, a check tool: add --checks")
	}
	// The ask tool is always served: by the agent with a model, else by the
	// offline planner.
	opened, svc, closeAll, err := openServed(ctx, s, dbs, mf, logger, "ask tool")
	if err != nil {
		return err
	}
	defer closeAll()
	mo := mcp.Options{Databases: opened, Version: version, Logger: logger, Ask: svc, Checks: *checks, Scratch: *scratch}
	srv, err := mcp.New(mo)
	if err != nil {
		return err
	}
	if *addr == "" {
		return srv.ServeStdio(ctx, s.in, s.out)
	}
	// Many clients may each fetch a result of megabytes: a soft limit keeps
	// the garbage collector ahead of such bursts (GOMEMLIMIT overrides it).
	if s.getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(mcpMemoryLimit))
	}
	if err := srv.ListenAndServe(ctx, opt); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		if oe := (*net.OpError)(nil); errors.As(err, &oe) && oe.Op == "listen" {
			// The address is the user's to change: in use, not this
			// machine's, or a port that needs privileges.
			why := oe.Err.Error()
			if errors.Is(err, syscall.EADDRINUSE) {
				why = "the address is already in use (another server is listening there)"
			}
			return usagef("mcp: cannot listen on --http %s: %s; pick another port, e.g. --http 127.0.0.1:8766", *addr, why)
		}
		return err
	}
	return nil
}

// mcpMemoryLimit is the soft memory limit of tablewise mcp --http. With at
// most mcp.DefaultMaxConcurrentCalls tool calls at once it is rarely
// reached; past it the collector runs more often rather than the heap
// growing.
const mcpMemoryLimit = 384 << 20

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

// openServed opens what a server command (mcp, discord) serves: the
// databases --db names (see openMCPDatabases) and the answer service the
// model flags choose, its conversations in memory (the least recently used
// forgotten past ask.DefaultConversations or ask.DefaultMemoryBytes). It
// logs the service's provider and model with the message msg. closeAll
// closes the service, then the databases, the last opened first; on an
// error what was opened is already closed.
func openServed(ctx context.Context, s *streams, dbs []string, mf modelFlags, logger *slog.Logger, msg string) (opened []*db.DB, svc *ask.Service, closeAll func(), err error) {
	opened, err = openMCPDatabases(ctx, s.dbs(dbs))
	closeDBs := func() {
		for i := len(opened) - 1; i >= 0; i-- {
			opened[i].Close()
		}
	}
	if err != nil {
		closeDBs()
		return nil, nil, nil, err
	}
	svc, err = newAskService(mf, s.getenv, ask.NewMemory(0, 0), opened...)
	if err != nil {
		closeDBs()
		return nil, nil, nil, err
	}
	who, model := svc.Provider()
	logger.Info(msg, "provider", who, "model", model)
	return opened, svc, func() {
		svc.Close()
		closeDBs()
	}, nil
}

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
	if db.DataFiles(path) && strings.Contains(path, ",") {
		// Several data files, one database: orders.csv,customers.json → orders+customers.
		var names []string
		for _, p := range strings.Split(path, ",") {
			names = append(names, defaultLabel(strings.TrimSpace(p)))
		}
		return strings.Join(names, "+")
	}
	if u, err := url.Parse(path); err == nil && u.Scheme != "" && u.Scheme != "file" && u.Host != "" {
		if name := strings.Trim(u.Path, "/"); name != "" {
			return name // a server's database: its name
		}
		return u.Hostname()
	}
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
