// Command memprobe measures the peak memory of `tablewise mcp --http` while
// many authenticated clients call run_sql at once.
//
// It starts the real binary on 127.0.0.1 with a bearer token, connects
// -clients MCP clients (mcp-go's streamable HTTP client), releases them
// together and has each make -calls run_sql calls whose results are about
// -kb KiB per row × 1,000 rows (8 MB by default). A client told the server
// is busy retries after a short pause, as the message asks. Meanwhile it
// samples the server's /proc/PID/status and prints the peak resident set
// (VmHWM), the calls that succeeded, the busy answers and the wall time.
//
//	go run ./bridge/mcp/internal/memprobe -bin ./tablewise
//
// bridge/mcp/testdata/e2e/memory.sh builds the binary and runs it. Linux
// only (it reads /proc).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func main() {
	bin := flag.String("bin", "tablewise", "the tablewise binary to start")
	dbPath := flag.String("db", "", "database to serve (default: the built-in sample)")
	clients := flag.Int("clients", 40, "concurrent clients")
	calls := flag.Int("calls", 1, "run_sql calls per client")
	kb := flag.Int("kb", 8, "KiB of text per row (1,000 rows)")
	limit := flag.Int("limit-mib", 512, "fail (exit 1) when the peak resident set exceeds this many MiB")
	flag.Parse()
	if err := run(*bin, *dbPath, *clients, *calls, *kb, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "memprobe:", err)
		os.Exit(1)
	}
}

const token = "memprobe-token"

func run(bin, dbPath string, nClients, calls, kb, limitMiB int) error {
	args := []string{"mcp", "--http", "127.0.0.1:0", "--token-env", "MEMPROBE_TOKEN"}
	if dbPath != "" {
		args = append(args, "--db", dbPath)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "MEMPROBE_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	url, err := waitForURL(stderr)
	if err != nil {
		return err
	}
	pid := cmd.Process.Pid
	baseline, _ := status(pid, "VmRSS")

	ctx := context.Background()
	cs := make([]*client.Client, nClients)
	for i := range cs {
		tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
		if err != nil {
			return err
		}
		c := client.NewClient(tr, client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
		if err := c.Start(ctx); err != nil {
			return fmt.Errorf("client %d: %w", i, err)
		}
		var init mcpgo.InitializeRequest
		init.Params.ProtocolVersion = mcpgo.ProtocolVersion20251125
		init.Params.ClientInfo = mcpgo.Implementation{Name: "memprobe", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			return fmt.Errorf("client %d: initialize: %w", i, err)
		}
		defer c.Close()
		cs[i] = c
	}

	var peakRSS atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if v, err := status(pid, "VmRSS"); err == nil && v > peakRSS.Load() {
				peakRSS.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()

	sql := fmt.Sprintf("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000) "+
		"SELECT x, replace(hex(zeroblob(%d)), '00', 'ab') AS pad FROM c", kb*512)
	var ok, busy, failed, bytes atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			for range calls {
				for attempt := 0; ; attempt++ {
					var req mcpgo.CallToolRequest
					req.Params.Name = "run_sql"
					req.Params.Arguments = map[string]any{"sql": sql, "max_rows": 1000}
					cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
					res, err := c.CallTool(cctx, req)
					cancel()
					if err != nil && strings.Contains(err.Error(), "server busy") && attempt < 1000 {
						busy.Add(1) // 503: too many requests at once
						time.Sleep(time.Duration(50+attempt%5*20) * time.Millisecond)
						continue
					}
					if err != nil {
						failed.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
						break
					}
					txt := resultText(res)
					if res.IsError && strings.Contains(txt, "busy") && attempt < 1000 {
						busy.Add(1)
						time.Sleep(time.Duration(50+attempt%5*20) * time.Millisecond)
						continue
					}
					if res.IsError {
						failed.Add(1)
						firstErr.CompareAndSwap(nil, txt)
						break
					}
					ok.Add(1)
					bytes.Add(int64(len(txt)))
					break
				}
			}
		}()
	}
	close(gate)
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	<-sampled
	hwm, err := status(pid, "VmHWM")
	if err != nil {
		return err
	}
	fmt.Printf("clients %d × %d run_sql calls of %.1f MB each (1,000 rows × %d KiB text)\n", nClients, calls, float64(kb)*1024*1000/1e6, kb)
	fmt.Printf("ok %d, busy answers retried %d, failed %d, in %.1f s\n", ok.Load(), busy.Load(), failed.Load(), elapsed.Seconds())
	if e := firstErr.Load(); e != nil {
		fmt.Printf("first failure: %.200s\n", e)
	}
	if ok.Load() > 0 {
		fmt.Printf("text per ok result: %.1f MB\n", float64(bytes.Load())/float64(ok.Load())/1e6)
	}
	fmt.Printf("server RSS: baseline %d MiB, peak sampled %d MiB, VmHWM %d MiB (limit %d MiB)\n",
		baseline>>10, peakRSS.Load()>>10, hwm>>10, limitMiB)
	if hwm>>10 > int64(limitMiB) {
		return fmt.Errorf("peak RSS %d MiB is over %d MiB", hwm>>10, limitMiB)
	}
	if failed.Load() > 0 {
		return errors.New("some calls failed")
	}
	return nil
}

var urlRE = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)

// waitForURL reads the server's log until it names its URL, then keeps
// draining the log to stderr.
func waitForURL(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	found := make(chan string, 1)
	go func() {
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if m := urlRE.FindStringSubmatch(line); m != nil && !sent {
				found <- m[1]
				sent = true
				continue
			}
			fmt.Fprintln(os.Stderr, "server:", line)
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if !ok {
			return "", errors.New("the server exited before listening")
		}
		return u, nil
	case <-time.After(30 * time.Second):
		return "", errors.New("the server did not say where it listens within 30 s")
	}
}

// status reads a "kB" field of /proc/PID/status, in KiB.
func status(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

func resultText(res *mcpgo.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			return tc.Text
		}
	}
	return ""
}
