package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is the address to listen on, host:port. Its host is also
	// accepted in the Host header.
	Addr string
	// Token, when set, is required as "Authorization: Bearer <Token>" on
	// /mcp.
	Token string
	// AllowOrigins are the browser origins (scheme://host[:port]) allowed
	// to call; a request with any other Origin is refused (403). Their
	// hosts are also accepted in the Host header.
	AllowOrigins []string
	// Ready, when set, is called with the bound address once the server
	// listens (tests use port 0).
	Ready func(addr net.Addr)
}

// EndpointPath is where the MCP endpoint is served.
const EndpointPath = "/mcp"

// HealthPath answers GET with {"status":"ok"}.
const HealthPath = "/healthz"

// HTTPHandler is the streamable HTTP transport: the MCP endpoint at
// /mcp and a health check at /healthz, behind DNS-rebinding (Host),
// Origin and bearer-token checks.
type HTTPHandler struct {
	http.Handler
	streamable *server.StreamableHTTPServer
}

// Close ends open sessions and their streams, so that an HTTP server
// shutdown does not wait for them, and stops the idle-session sweeper.
func (h *HTTPHandler) Close(ctx context.Context) error { return h.streamable.Shutdown(ctx) }

// NewHTTPHandler builds the HTTP transport for opt.
func (s *Server) NewHTTPHandler(opt HTTPOptions) (*HTTPHandler, error) {
	origins, hosts, err := allowLists(opt)
	if err != nil {
		return nil, err
	}
	ss := newSessions(maxSessions)
	sopts := []server.StreamableHTTPOption{
		server.WithSessionIdManager(ss),
		server.WithEndpointPath(EndpointPath),
		server.WithStreamableHTTPLogger(s.log),
		// Our Host check below replaces mcp-go's: it also accepts the bind
		// host and the hosts of allowed origins.
		server.WithDisableLocalhostProtection(true),
		server.WithHeartbeatInterval(30 * time.Second),
		server.WithSessionIdleTTL(30 * time.Minute),
	}
	if len(opt.AllowOrigins) > 0 {
		sopts = append(sopts, server.WithStreamableHTTPCORS(
			server.WithCORSAllowedOrigins(opt.AllowOrigins...),
			server.WithCORSAllowedHeaders("Content-Type", "Authorization", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-ID"),
			server.WithCORSExposedHeaders("Mcp-Session-Id"),
		))
	}
	st := server.NewStreamableHTTPServer(s.mcp, sopts...)
	ss.end = func(id string) { endSession(st, id) }
	mux := http.NewServeMux()
	// A response may take as long as the slowest tool call, then has to be
	// written: a client that stops reading is cut off after that.
	writeTimeout := s.longestCall() + time.Minute
	mux.Handle(EndpointPath, requireToken(opt.Token, requireKnownSession(ss, limitRequests(writeTimeout, st))))
	mux.HandleFunc(HealthPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
	})
	h := checkHostAndOrigin(hosts, origins, s.log, mux)
	return &HTTPHandler{Handler: h, streamable: st}, nil
}

// ListenAndServe serves the HTTP transport on opt.Addr until ctx is done,
// then shuts down gracefully.
func (s *Server) ListenAndServe(ctx context.Context, opt HTTPOptions) error {
	h, err := s.NewHTTPHandler(opt)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opt.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opt.Addr, err)
	}
	// No write timeout: GET streams stay open for server messages.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	s.log.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+EndpointPath,
		"databases", strings.Join(s.dbs.Labels(), ","), "auth", opt.Token != "", "origins", strings.Join(opt.AllowOrigins, ","))
	if opt.Ready != nil {
		opt.Ready(ln.Addr())
	}
	defer s.readCatalogs(ctx)()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = h.Close(sctx)
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// allowLists normalises the allowed origins and derives the hosts the Host
// header may name: loopback names, the bind host and the origins' hosts.
func allowLists(opt HTTPOptions) (origins, hosts map[string]bool, err error) {
	origins = map[string]bool{}
	hosts = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	if h, _, err := net.SplitHostPort(opt.Addr); err == nil && h != "" {
		ip := net.ParseIP(h)
		if ip == nil || !ip.IsUnspecified() {
			hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
		}
	}
	for _, o := range opt.AllowOrigins {
		u, perr := url.Parse(o)
		if perr != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, nil, fmt.Errorf("--allow-origin %q: give an origin such as https://app.example.com or http://localhost:5173", o)
		}
		origins[normOrigin(o)] = true
		hosts[strings.ToLower(u.Hostname())] = true
	}
	return origins, hosts, nil
}

func normOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// checkHostAndOrigin refuses (403) a request whose Host header is not an
// allowed host (DNS-rebinding protection) or whose Origin header, when
// present, is neither an allowed origin nor the server's own (a page the
// Host names, http://<Host>: with the Host allowed, that is this server).
func checkHostAndOrigin(hosts, origins map[string]bool, logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.Trim(host, "[]"))
		if !hosts[host] {
			logger.Warn("refused request: Host not allowed", "host", r.Host, "remote", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not allowed (DNS-rebinding protection); list it with --allow-origin to accept it", r.Host), http.StatusForbidden)
			return
		}
		if o := normOrigin(r.Header.Get("Origin")); o != "" && !origins[o] && o != "http://"+strings.ToLower(r.Host) {
			logger.Warn("refused request: Origin not allowed", "origin", o, "remote", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("forbidden: Origin %q is not allowed; list it with --allow-origin to accept it", o), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireToken refuses (401) a request without "Authorization: Bearer
// <token>" (the scheme in any case, RFC 7235), comparing in constant time.
// CORS preflights carry no credentials and pass through. An empty token
// requires nothing.
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			next.ServeHTTP(w, r)
			return
		}
		got, ok := bearerToken(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			// RFC 6750: a challenge always; invalid_token when a token
			// came and was wrong.
			challenge := `Bearer realm="tablewise"`
			if ok {
				challenge += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerToken returns the credentials of an "Authorization: Bearer <token>"
// header value; the scheme is matched in any case (RFC 7235 §2.1).
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}
