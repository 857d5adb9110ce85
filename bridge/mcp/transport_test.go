package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/tools"
)

// httpServer serves s over a real HTTP server on 127.0.0.1.
func httpServer(t testing.TB, s *Server, opt HTTPOptions) *httptest.Server {
	t.Helper()
	h, err := s.NewHTTPHandler(opt)
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Close(ctx)
		ts.Close()
	})
	return ts
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends an initialize request to /mcp with extra headers.
func post(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+EndpointPath, strings.NewReader(initBody))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestHTTPClientBothProtocolEras(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0", Token: "s3cret"})
	for _, version := range []string{"", mcpgo.ProtocolVersion20251125, mcpgo.ProtocolVersion20250618} {
		t.Run("version="+version, func(t *testing.T) {
			var opts []client.ClientOption
			if version != "" {
				opts = append(opts, client.WithProtocolVersion(version))
			}
			tr, err := transport.NewStreamableHTTP(ts.URL+EndpointPath, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer s3cret"}))
			require.NoError(t, err)
			c := client.NewClient(tr, opts...)
			t.Cleanup(func() { c.Close() })
			mcptest.Initialize(t, c, "http-test")
			ctx := context.Background()
			want := version
			if want == "" {
				want = mcpgo.LATEST_PROTOCOL_VERSION
			}
			assert.Equal(t, want, c.ProtocolVersion())

			tl, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
			require.NoError(t, err)
			assert.Len(t, tl.Tools, 9) // ask included: it is always served

			r := okResult[tools.SQLResult](t, mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT count(*) FROM customers"}))
			assert.Equal(t, float64(2400), r.Rows[0][0])
			assert.Contains(t, errResult(t, mcptest.Call(t, c, "run_sql", map[string]any{"sql": "DELETE FROM customers"})), "read-only")

			txt := resourceText(t, c, "tablewise://table/customers")
			assert.True(t, strings.HasPrefix(txt, "customers(customer_id INTEGER PK"))
		})
	}
}

func TestHTTPAuth(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0", Token: "s3cret"})

	resp := post(t, ts.URL, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer realm="tablewise"`, resp.Header.Get("WWW-Authenticate"))
	assert.Contains(t, body(t, resp), "Authorization: Bearer")

	resp = post(t, ts.URL, map[string]string{"Authorization": "Bearer wrong"})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer realm="tablewise", error="invalid_token"`, resp.Header.Get("WWW-Authenticate"))
	resp = post(t, ts.URL, map[string]string{"Authorization": "s3cret"})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the Bearer scheme is required")
	assert.Equal(t, `Bearer realm="tablewise"`, resp.Header.Get("WWW-Authenticate"))

	resp = post(t, ts.URL, map[string]string{"Authorization": "Bearer s3cret"})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body(t, resp), `"serverInfo":{"name":"tablewise"`)

	// The health check needs no token.
	hr, err := http.Get(ts.URL + HealthPath)
	require.NoError(t, err)
	defer hr.Body.Close()
	assert.Equal(t, http.StatusOK, hr.StatusCode)
	assert.JSONEq(t, `{"status":"ok"}`, body(t, hr))
}

func TestHTTPWithoutToken(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0"})
	resp := post(t, ts.URL, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestHTTPBodyLimit(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0"})
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxBodyBytes) + `"}}`
	resp, err := http.Post(ts.URL+EndpointPath, "application/json", strings.NewReader(big))
	require.NoError(t, err)
	defer resp.Body.Close()
	b := body(t, resp)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Contains(t, b, `"code":-32700`, "a parse error, not a crash")
	assert.Contains(t, b, "request body too large")
}

func TestHTTPOrigin(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0", Token: "s3cret", AllowOrigins: []string{"https://app.example.com"}})
	auth := "Bearer s3cret"

	resp := post(t, ts.URL, map[string]string{"Authorization": auth, "Origin": "https://evil.example"})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, body(t, resp), `Origin "https://evil.example" is not allowed`)

	resp = post(t, ts.URL, map[string]string{"Authorization": auth, "Origin": "https://app.example.com"})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))

	resp = post(t, ts.URL, map[string]string{"Authorization": auth})
	assert.Equal(t, http.StatusOK, resp.StatusCode, "no Origin: not a browser")

	// A CORS preflight carries no credentials.
	req, err := http.NewRequest(http.MethodOptions, ts.URL+EndpointPath, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	pre, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer pre.Body.Close()
	assert.Less(t, pre.StatusCode, 300)
	assert.Equal(t, "https://app.example.com", pre.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")), "authorization")
}

func TestHTTPOriginWithoutAllowList(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0"})
	resp := post(t, ts.URL, map[string]string{"Origin": "http://localhost:3000"})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "another Origin is refused unless listed")

	// The server's own origin is accepted: the Host it names is allowed,
	// so it is this server (the conformance suite's DNS-rebinding check).
	host := strings.TrimPrefix(ts.URL, "http://")
	resp = post(t, ts.URL, map[string]string{"Origin": ts.URL, "Host": host})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp = post(t, ts.URL, map[string]string{"Origin": "https://" + host, "Host": host})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "another scheme is another origin")
	resp = post(t, ts.URL, map[string]string{"Origin": "http://evil.example.com", "Host": "evil.example.com"})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a rebound name fails the Host check first")
}

func TestHTTPHost(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0", AllowOrigins: []string{"https://mcp.example.org"}})
	_, port, err := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
	require.NoError(t, err)
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST", http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusForbidden},
		{"attacker.127.0.0.1.nip.io", http.StatusForbidden},
		{"mcp.example.org", http.StatusOK},
	} {
		resp := post(t, ts.URL, map[string]string{"Host": tc.host})
		assert.Equal(t, tc.want, resp.StatusCode, tc.host)
		if tc.want == http.StatusForbidden {
			assert.Contains(t, body(t, resp), "DNS-rebinding protection")
		}
	}
	// The health check is behind the Host check too.
	req, err := http.NewRequest(http.MethodGet, ts.URL+HealthPath, nil)
	require.NoError(t, err)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}

func TestAllowLists(t *testing.T) {
	origins, hosts, err := allowLists(HTTPOptions{Addr: "myhost.lan:8080", AllowOrigins: []string{"https://App.Example.com/"}})
	require.NoError(t, err)
	assert.True(t, origins["https://app.example.com"])
	for _, h := range []string{"localhost", "127.0.0.1", "::1", "myhost.lan", "app.example.com"} {
		assert.True(t, hosts[h], h)
	}
	_, hosts, err = allowLists(HTTPOptions{Addr: "0.0.0.0:8080"})
	require.NoError(t, err)
	assert.False(t, hosts["0.0.0.0"], "an unspecified bind address names no host")
	_, hosts, err = allowLists(HTTPOptions{Addr: "[::1]:8080"})
	require.NoError(t, err)
	assert.True(t, hosts["::1"])

	for _, bad := range []string{"app.example.com", "https://app.example.com/mcp", "://x"} {
		_, _, err = allowLists(HTTPOptions{Addr: "127.0.0.1:0", AllowOrigins: []string{bad}})
		assert.ErrorContains(t, err, "give an origin such as", bad)
	}
}

func TestListenAndServe(t *testing.T) {
	s := newServer(t, sampleDB(t))
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- s.ListenAndServe(ctx, HTTPOptions{Addr: "127.0.0.1:0", Ready: func(a net.Addr) { addrc <- a }})
	}()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("ListenAndServe returned early: %v", err)
	case <-time.After(timeout):
		t.Fatal("server did not start")
	}
	resp, err := http.Get("http://" + addr.String() + HealthPath)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// A session-era client listening on a GET stream must not hold up the
	// shutdown.
	tr, err := transport.NewStreamableHTTP("http://"+addr.String()+EndpointPath, transport.WithContinuousListening(), transport.WithHTTPLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	c := client.NewClient(tr, client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
	defer c.Close()
	mcptest.Initialize(t, c, "t")

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe did not stop")
	}

	err = s.ListenAndServe(context.Background(), HTTPOptions{Addr: "127.0.0.1:-1"})
	assert.ErrorContains(t, err, "listen on 127.0.0.1:-1")
}

// TestHTTPConcurrentSessions runs several HTTP clients at once, of both
// protocol eras, each calling tools in a loop, and checks every answer is
// its own. Run it with -race.
func TestHTTPConcurrentSessions(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0", Token: "s3cret"})
	const clients, calls = 8, 12
	errs := make(chan error, clients)
	for i := range clients {
		go func() {
			errs <- func() error {
				var opts []client.ClientOption
				if i%2 == 1 {
					opts = append(opts, client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
				}
				tr, err := transport.NewStreamableHTTP(ts.URL+EndpointPath, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer s3cret"}))
				if err != nil {
					return err
				}
				c := client.NewClient(tr, opts...)
				defer c.Close()
				ctx := context.Background()
				if err := c.Start(ctx); err != nil {
					return err
				}
				var init mcpgo.InitializeRequest
				init.Params.ClientInfo = mcpgo.Implementation{Name: fmt.Sprint("c", i), Version: "1"}
				if _, err := c.Initialize(ctx, init); err != nil {
					return err
				}
				for j := range calls {
					id := 1 + i*calls + j
					var req mcpgo.CallToolRequest
					req.Params.Name = "run_sql"
					req.Params.Arguments = map[string]any{"sql": fmt.Sprintf("SELECT customer_id FROM customers WHERE customer_id = %d", id)}
					res, err := c.CallTool(ctx, req)
					if err != nil {
						return err
					}
					if res.IsError || !strings.Contains(resultText(res), fmt.Sprintf("\n%d\n", id)) {
						return fmt.Errorf("client %d call %d: %s", i, j, resultText(res))
					}
					req.Params.Name = "describe_table"
					req.Params.Arguments = map[string]any{"table": []string{"orders", "customers", "products"}[j%3]}
					res, err = c.CallTool(ctx, req)
					if err != nil {
						return err
					}
					if res.IsError || !strings.Contains(resultText(res), req.Params.Arguments.(map[string]any)["table"].(string)) {
						return fmt.Errorf("client %d describe: %s", i, resultText(res))
					}
				}
				return nil
			}()
		}()
	}
	for range clients {
		require.NoError(t, <-errs)
	}
}
