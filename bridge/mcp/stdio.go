package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The stdio transport. mcp-go's StdioServer reads each line on a goroutine
// of its own, parses it up to six times and hands every tool call to a
// worker pool: three goroutine hand-offs per call, each of which may have
// to wake a sleeping thread, cost more than the query itself (measured
// with bridge/mcp/testdata/e2e/latency.sh). Here the goroutine that reads a
// message also serves it, and mcp-go parses it once more (HandleMessage).
// A message that takes longer than handOffAfter hands reading to a new
// goroutine, so that a slow call never holds up the next message (a ping,
// another call, a notifications/cancelled for the slow call itself).

// handOffAfter is how long a message is served before the next one is
// read on another goroutine.
const handOffAfter = time.Millisecond

// ServeStdio serves the protocol on in and out (a client's pipes) until in
// ends or ctx is done. Nothing but protocol messages is written to out.
// When in ends, calls still running are cancelled and their answers
// written before it returns.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess := &stdioSession{notifications: make(chan mcpgo.JSONRPCNotification, 100)}
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register stdio session: %w", err)
	}
	defer s.mcp.UnregisterSession(ctx, sess.SessionID())
	ctx, cancel := context.WithCancel(s.mcp.WithContext(ctx, sess))
	defer cancel()
	defer s.readCatalogs(ctx)()
	c := &stdioConn{s: s, ctx: ctx, in: bufio.NewReaderSize(in, 64<<10), out: out, ended: make(chan struct{}), idle: make(chan struct{})}
	s.log.Info("serving MCP on stdio", "databases", strings.Join(s.dbs.Labels(), ","))
	notified := make(chan struct{})
	go func() {
		defer close(notified)
		c.notify(sess.notifications)
	}()
	go c.read()
	select {
	case <-c.ended:
	case <-ctx.Done():
	}
	// Calls still running end now (their context is cancelled); their
	// answers are written before the transport goes.
	cancel()
	c.drain()
	<-notified
	if err := c.readErr; err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// stdioConn is one stdio connection being served.
type stdioConn struct {
	s   *Server
	ctx context.Context
	in  *bufio.Reader

	writeMu sync.Mutex
	out     io.Writer

	ended   chan struct{} // closed when in ends
	endOnce sync.Once
	readErr error // why in ended; set before ended is closed

	mu     sync.Mutex
	active int  // messages being served
	closed bool // no message is served after drain starts
	idle   chan struct{}
}

// read reads messages and serves each in turn, until in ends, the
// connection closes, or serving one took long enough that reading was
// handed to another goroutine.
func (c *stdioConn) read() {
	for {
		line, tooLong, err := c.readLine()
		if err != nil {
			// Whatever came before the end is served first; the
			// connection then ends.
			defer c.end(err)
		}
		if tooLong {
			c.write(mcpgo.NewJSONRPCError(mcpgo.NewRequestId(nil), mcpgo.PARSE_ERROR,
				fmt.Sprintf("message too large: over %d KiB (SQL is limited to 100 KB)", maxBodyBytes>>10), nil))
		} else if len(bytes.TrimSpace(line)) > 0 && c.serve(line) {
			return
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one message, a line of at most maxBodyBytes as an HTTP
// request body is. A longer line is read past without being kept, and
// reported as too long.
func (c *stdioConn) readLine() (line []byte, tooLong bool, err error) {
	for {
		frag, err := c.in.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(frag) > maxBodyBytes+1: // +1: the newline
			line, tooLong = nil, true
		default:
			line = append(line, frag...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

func (c *stdioConn) end(err error) {
	c.endOnce.Do(func() {
		c.readErr = err
		close(c.ended)
	})
}

// serve handles one message and writes its answer. If it takes longer than
// handOffAfter, another goroutine goes on reading; serve then reports that
// this one must stop reading, as it does once the connection is closing.
func (c *stdioConn) serve(line []byte) (stop bool) {
	if !c.begin() {
		return true
	}
	defer c.finish()
	const serving, served, handed = 0, 1, 2
	var state atomic.Int32
	t := time.AfterFunc(handOffAfter, func() {
		if state.CompareAndSwap(serving, handed) {
			go c.read()
		}
	})
	c.write(c.handle(line))
	t.Stop()
	return !state.CompareAndSwap(serving, served)
}

// handle runs one message through the server. A panic that escapes the
// server's own recovery becomes an internal error answer, not the end of
// the process.
func (c *stdioConn) handle(line []byte) (resp mcpgo.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.s.log.Error("panic serving a stdio message", "panic", r)
			var msg struct {
				ID any `json:"id"`
			}
			if json.Unmarshal(line, &msg) == nil && msg.ID != nil {
				resp = mcpgo.NewJSONRPCError(mcpgo.NewRequestId(msg.ID), mcpgo.INTERNAL_ERROR, fmt.Sprintf("internal error: %v", r), nil)
			}
		}
	}()
	return c.s.mcp.HandleMessage(c.ctx, json.RawMessage(line))
}

// write writes one message as a line; nil writes nothing.
func (c *stdioConn) write(msg mcpgo.JSONRPCMessage) {
	if msg == nil {
		return
	}
	b, err := encodeLine(msg)
	if err != nil {
		c.s.log.Error("encode a stdio message", "err", err)
		return
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.out.Write(b); err != nil {
		c.s.log.Warn("write to stdout", "err", err)
	}
}

// encodeLine is json.Marshal(msg) and a newline. A tool's answer, the
// bulk of what is written, goes out as CallToolResult.MarshalJSON made
// it: json.Marshal would only pass those bytes through its compaction,
// which leaves json.Marshal's own output as it is (no space outside
// strings; <, >, &, U+2028 and U+2029 already escaped).
func encodeLine(msg mcpgo.JSONRPCMessage) ([]byte, error) {
	if r, ok := msg.(mcpgo.JSONRPCResponse); ok && r.JSONRPC == mcpgo.JSONRPC_VERSION {
		if res, ok := r.Result.(*mcpgo.CallToolResult); ok && res != nil {
			id, err := json.Marshal(r.ID)
			result, err2 := res.MarshalJSON()
			if err == nil && err2 == nil {
				const head, mid = `{"jsonrpc":"` + mcpgo.JSONRPC_VERSION + `","id":`, `,"result":`
				b := make([]byte, 0, len(head)+len(id)+len(mid)+len(result)+2)
				b = append(append(append(append(b, head...), id...), mid...), result...)
				return append(b, '}', '\n'), nil
			}
			// json.Marshal fails too, with its own words for it.
		}
	}
	b, err := json.Marshal(msg)
	return append(b, '\n'), err
}

// notify writes the server's notifications (log messages) until the
// connection's context ends.
func (c *stdioConn) notify(ch <-chan mcpgo.JSONRPCNotification) {
	for {
		select {
		case n := <-ch:
			c.write(n)
		case <-c.ctx.Done():
			return
		}
	}
}

func (c *stdioConn) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.active++
	return true
}

func (c *stdioConn) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.active--
	if c.closed && c.active == 0 {
		close(c.idle)
	}
}

// drain stops serving new messages and waits for those being served.
func (c *stdioConn) drain() {
	c.mu.Lock()
	c.closed = true
	if c.active == 0 {
		close(c.idle)
	}
	c.mu.Unlock()
	<-c.idle
}

// stdioSession is the one client session of a stdio connection: what
// mcp-go keeps per session (initialization, log level, client info,
// protocol version) and the channel its notifications come through.
// Nothing here sends requests to the client (sampling, elicitation, roots):
// tablewise asks the client for nothing.
type stdioSession struct {
	notifications chan mcpgo.JSONRPCNotification
	initialized   atomic.Bool
	logLevel      atomic.Value // mcpgo.LoggingLevel
	clientInfo    atomic.Value // mcpgo.Implementation
	clientCaps    atomic.Value // mcpgo.ClientCapabilities
	protocol      atomic.Value // string
}

var (
	_ server.ClientSession              = (*stdioSession)(nil)
	_ server.SessionWithLogging         = (*stdioSession)(nil)
	_ server.SessionWithClientInfo      = (*stdioSession)(nil)
	_ server.SessionWithProtocolVersion = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string { return "stdio" }

func (s *stdioSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification {
	return s.notifications
}

// Initialize marks the session initialized, with the error log level as
// mcp-go's own stdio session does.
func (s *stdioSession) Initialize() {
	s.logLevel.Store(mcpgo.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

func (s *stdioSession) SetLogLevel(level mcpgo.LoggingLevel) { s.logLevel.Store(level) }

func (s *stdioSession) GetLogLevel() mcpgo.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcpgo.LoggingLevel); ok {
		return l
	}
	return mcpgo.LoggingLevelError
}

func (s *stdioSession) GetClientInfo() mcpgo.Implementation {
	v, _ := s.clientInfo.Load().(mcpgo.Implementation)
	return v
}

func (s *stdioSession) SetClientInfo(info mcpgo.Implementation) { s.clientInfo.Store(info) }

func (s *stdioSession) GetClientCapabilities() mcpgo.ClientCapabilities {
	v, _ := s.clientCaps.Load().(mcpgo.ClientCapabilities)
	return v
}

func (s *stdioSession) SetClientCapabilities(caps mcpgo.ClientCapabilities) { s.clientCaps.Store(caps) }

// ProtocolVersion is the version negotiated at initialize ("" before).
func (s *stdioSession) ProtocolVersion() string {
	v, _ := s.protocol.Load().(string)
	return v
}

// SetProtocolVersion records the negotiated version.
func (s *stdioSession) SetProtocolVersion(v string) { s.protocol.Store(v) }
