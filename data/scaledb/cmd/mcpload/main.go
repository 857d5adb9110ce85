// Command mcpload drives `tablewise mcp --http` with many concurrent MCP
// clients sending point queries, and prints the error count and latency
// percentiles. It only talks to a loopback address and is bounded in
// requests and time. data/testdata/mcp-clients.sh starts the server and
// runs it.
//
//	go run ./data/scaledb/cmd/mcpload -url http://127.0.0.1:8765/mcp -clients 50 -requests 40
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("url", "http://127.0.0.1:8765/mcp", "the MCP endpoint (loopback only)")
	clients := fs.Int("clients", 50, "concurrent clients, each with its own session (at most 200)")
	requests := fs.Int("requests", 40, "point queries per client (at most 1,000)")
	limit := fs.Duration("timeout", 2*time.Minute, "stop after this long")
	sqlf := fs.String("sql", "SELECT * FROM orders WHERE order_id = %d", "the point query, %d the key")
	keys := fs.Int("keys", 5_000_000, "keys are drawn from 1..keys")
	every := fs.Duration("every", 0, "each client sends a query this often (0: as soon as the last one is answered, the most the server can take)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	u, err := url.Parse(*endpoint)
	if err != nil || !loopback(u.Hostname()) {
		fmt.Fprintf(stderr, "mcpload: %q is not a loopback URL (http://127.0.0.1:PORT/mcp)\n", *endpoint)
		return 2
	}
	if *clients < 1 || *clients > 200 || *requests < 1 || *requests > 1000 {
		fmt.Fprintln(stderr, "mcpload: -clients 1..200 and -requests 1..1000")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()

	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      = map[string]int{}
	)
	fail := func(why string) {
		mu.Lock()
		errs[why]++
		mu.Unlock()
	}
	start := time.Now()
	ready := sync.WaitGroup{}
	begin := make(chan struct{})
	var wg sync.WaitGroup
	for i := range *clients {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			c, err := client.NewStreamableHttpClient(*endpoint)
			if err == nil {
				err = c.Start(ctx)
			}
			if err == nil {
				var init mcp.InitializeRequest
				init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
				init.Params.ClientInfo = mcp.Implementation{Name: "mcpload", Version: "1"}
				_, err = c.Initialize(ctx, init)
			}
			ready.Done()
			if err != nil {
				fail("connect: " + err.Error())
				return
			}
			defer c.Close()
			<-begin
			rng := rand.New(rand.NewPCG(uint64(i), 19))
			var tick *time.Ticker
			if *every > 0 {
				// Clients start spread over one period, not all at once.
				time.Sleep(time.Duration(rng.Int64N(int64(*every))))
				tick = time.NewTicker(*every)
				defer tick.Stop()
			}
			for range *requests {
				if tick != nil {
					select {
					case <-tick.C:
					case <-ctx.Done():
						return
					}
				}
				var req mcp.CallToolRequest
				req.Params.Name = "run_sql"
				req.Params.Arguments = map[string]any{"sql": fmt.Sprintf(*sqlf, 1+rng.IntN(*keys))}
				t0 := time.Now()
				res, err := c.CallTool(ctx, req)
				d := time.Since(t0)
				switch {
				case err != nil:
					fail(err.Error())
				case res.IsError:
					fail("error result")
				default:
					mu.Lock()
					latencies = append(latencies, d)
					mu.Unlock()
				}
				if ctx.Err() != nil {
					return
				}
			}
		}()
	}
	ready.Wait()
	connected := time.Since(start)
	start = time.Now()
	close(begin)
	wg.Wait()
	elapsed := time.Since(start)

	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	nerr := 0
	for _, n := range errs {
		nerr += n
	}
	pace := "back to back"
	if *every > 0 {
		pace = "each client one every " + every.String()
	}
	fmt.Fprintf(stdout, "%d clients × %d point queries (run_sql, %s) on %s: %d ok, %d errors in %s (%.0f queries/s; sessions opened in %s)\n",
		*clients, *requests, pace, *endpoint, len(latencies), nerr, elapsed.Round(time.Millisecond), float64(len(latencies))/elapsed.Seconds(), connected.Round(time.Millisecond))
	fmt.Fprintf(stdout, "latency p50 %s  p90 %s  p99 %s  max %s\n", ms(pct(0.5)), ms(pct(0.9)), ms(pct(0.99)), ms(pct(1)))
	for why, n := range errs {
		fmt.Fprintf(stdout, "  %d× %s\n", n, why)
	}
	if nerr > 0 || ctx.Err() != nil {
		return 1
	}
	return 0
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
