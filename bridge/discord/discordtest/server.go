// Package discordtest is a fake Discord for tests: the REST routes and
// the gateway websocket a bot uses, served in the test process, so the
// real discordgo client talks to it as it would to Discord. It enforces
// Discord's limits (content length, attachments, components, the upload
// limit, the 3-second interaction acknowledgement, the interaction token's
// lifetime) and records every request that breaks one, so a test can
// prove a bot never sends what Discord would refuse.
package discordtest

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Options configure a Server.
type Options struct {
	// Token is the bot token the server accepts (without "Bot ").
	Token string
	// HeartbeatInterval is sent in HELLO (default 1 s).
	HeartbeatInterval time.Duration
	// TokenLifetime is how long an interaction token lasts (Discord: 15
	// minutes, the default).
	TokenLifetime time.Duration
	// AckWindow is how long an interaction may wait for its first
	// response (Discord: 3 s, the default).
	AckWindow time.Duration
	// UploadLimit bounds the files of one message (default 10 MiB).
	UploadLimit int
	// RefuseIntents closes IDENTIFY with 4014 when the message content
	// intent is asked for, as Discord does when the Developer Portal has
	// not enabled it.
	RefuseIntents bool
	// TLS, when set, serves HTTPS with this certificate.
	TLS *tls.Certificate
	// GatewayURL is what GET /gateway answers (default: this server's
	// websocket URL).
	GatewayURL string
}

// IDs the server uses.
const (
	BotID   = "900000000000000001"
	AppID   = "900000000000000002"
	BotName = "tablewise"
)

// Server is a fake Discord.
type Server struct {
	t    testing.TB
	opt  Options
	http *httptest.Server
	// URL is the server's base URL.
	URL string

	mu           sync.Mutex
	nextID       int64
	messages     []*Message
	callbacks    []Callback
	commands     map[string][]*discordgo.ApplicationCommand
	interactions map[string]*interaction // by token
	channels     map[string]*discordgo.Channel
	rejects      []string
	conn         *gatewayConn
	conns        int
	identifies   int
	resumes      int
	heartbeats   int
	seq          int64
	sessionID    string
	authFailures int
}

// Message is a message the bot posted, however it was posted.
type Message struct {
	ID        string
	ChannelID string
	// Via is "channel", "interaction" (the deferred response edited or an
	// immediate response), or "followup".
	Via string
	// Interaction is the id of the interaction it answers.
	Interaction string
	Content     string
	Components  []discordgo.MessageComponent
	Files       []File
	Reference   *discordgo.MessageReference
	// AllowedMentions is the raw allowed_mentions object.
	AllowedMentions json.RawMessage
	Flags           int
	At              time.Time
}

// File is an uploaded attachment.
type File struct {
	Name, ContentType string
	Data              []byte
}

// Callback is an interaction response the bot sent.
type Callback struct {
	Interaction string
	Type        discordgo.InteractionResponseType
	// Delay is the time from the interaction's dispatch to the response.
	Delay time.Duration
}

type interaction struct {
	id, channel, token string
	dispatched         time.Time
	acked              discordgo.InteractionResponseType
	original           *Message
}

// New starts a fake Discord; it stops with the test.
func New(t testing.TB, opt Options) *Server {
	if opt.HeartbeatInterval == 0 {
		opt.HeartbeatInterval = time.Second
	}
	if opt.TokenLifetime == 0 {
		opt.TokenLifetime = 15 * time.Minute
	}
	if opt.AckWindow == 0 {
		opt.AckWindow = 3 * time.Second
	}
	if opt.UploadLimit == 0 {
		opt.UploadLimit = 10 << 20
	}
	s := &Server{t: t, opt: opt, nextID: 1_000_000_000_000_000, commands: map[string][]*discordgo.ApplicationCommand{},
		interactions: map[string]*interaction{}, channels: map[string]*discordgo.Channel{}, sessionID: "fake-session"}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) || r.URL.Path != "/" {
			s.reject("unknown route %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		s.serveGateway(w, r)
	})
	mux.HandleFunc("/api/v9/", s.serveREST)
	s.http = httptest.NewUnstartedServer(mux)
	if opt.TLS != nil {
		s.http.TLS = &tls.Config{Certificates: []tls.Certificate{*opt.TLS}}
		s.http.StartTLS()
	} else {
		s.http.Start()
	}
	s.URL = s.http.URL
	t.Cleanup(func() {
		s.mu.Lock()
		c := s.conn
		s.mu.Unlock()
		if c != nil {
			c.ws.Close()
		}
		s.http.CloseClientConnections()
		s.http.Close()
	})
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.http.Listener.Addr().String() }

// Client is an HTTP client whose transport sends requests for
// discord.com to this server instead; give it to the bot.
func (s *Server) Client() *http.Client {
	base, _ := url.Parse(s.URL)
	return &http.Client{Timeout: 20 * time.Second, Transport: rewrite{base: base, rt: s.http.Client().Transport}}
}

type rewrite struct {
	base *url.URL
	rt   http.RoundTripper
}

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == "discord.com" {
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host = r.base.Scheme, r.base.Host
		req.Host = r.base.Host
	}
	return r.rt.RoundTrip(req)
}

// count adds one to the counter n under the server's lock.
func (s *Server) count(n *int) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}

func (s *Server) id() string {
	s.nextID++
	return fmt.Sprint(s.nextID)
}

// ---- REST ----

func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/api/v9")
	seg := strings.Split(strings.Trim(path, "/"), "/")
	authed := r.Header.Get("Authorization") == "Bot "+s.opt.Token
	needAuth := func() bool {
		if !authed {
			s.count(&s.authFailures)
			writeJSON(w, 401, map[string]any{"message": "401: Unauthorized", "code": 0})
		}
		return authed
	}
	switch {
	case r.Method == "GET" && path == "/gateway":
		writeJSON(w, 200, map[string]any{"url": s.gatewayURL()})
	case r.Method == "GET" && path == "/gateway/bot":
		if needAuth() {
			writeJSON(w, 200, map[string]any{"url": s.gatewayURL(), "shards": 1,
				"session_start_limit": map[string]any{"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}})
		}
	case r.Method == "GET" && path == "/users/@me":
		if needAuth() {
			writeJSON(w, 200, map[string]any{"id": BotID, "username": BotName, "bot": true})
		}
	case r.Method == "PUT" && len(seg) >= 3 && seg[0] == "applications" && seg[len(seg)-1] == "commands":
		if needAuth() {
			s.putCommands(w, r, seg)
		}
	case r.Method == "POST" && len(seg) == 3 && seg[0] == "channels" && seg[2] == "messages":
		if needAuth() {
			s.postMessage(w, r, seg[1], "channel", nil)
		}
	case r.Method == "POST" && len(seg) == 3 && seg[0] == "channels" && seg[2] == "typing":
		if needAuth() {
			w.WriteHeader(204)
		}
	case r.Method == "GET" && len(seg) == 2 && seg[0] == "channels":
		if needAuth() {
			s.mu.Lock()
			c := s.channels[seg[1]]
			s.mu.Unlock()
			if c == nil {
				writeJSON(w, 404, map[string]any{"message": "Unknown Channel", "code": 10003})
				return
			}
			writeJSON(w, 200, c)
		}
	case r.Method == "POST" && len(seg) == 4 && seg[0] == "interactions" && seg[3] == "callback":
		s.callback(w, r, seg[1], seg[2])
	case len(seg) >= 3 && seg[0] == "webhooks":
		s.webhook(w, r, seg)
	default:
		s.reject("unknown route %s %s", r.Method, path)
		writeJSON(w, 404, map[string]any{"message": "404: Not Found", "code": 0})
	}
}

func (s *Server) gatewayURL() string {
	if s.opt.GatewayURL != "" {
		return s.opt.GatewayURL
	}
	return "ws" + strings.TrimPrefix(s.URL, "http")
}

func (s *Server) putCommands(w http.ResponseWriter, r *http.Request, seg []string) {
	if seg[1] != AppID {
		s.reject("commands for application %s, not %s", seg[1], AppID)
		writeJSON(w, 403, map[string]any{"message": "Missing Access", "code": 50001})
		return
	}
	guild := ""
	if len(seg) == 5 && seg[2] == "guilds" {
		guild = seg[3]
	}
	var cmds []*discordgo.ApplicationCommand
	if err := json.NewDecoder(r.Body).Decode(&cmds); err != nil {
		s.reject("commands: %v", err)
		writeJSON(w, 400, map[string]any{"message": "Invalid Form Body", "code": 50035})
		return
	}
	for _, c := range cmds {
		if c.Name == "" || len(c.Name) > 32 || strings.ToLower(c.Name) != c.Name || len(c.Description) > 100 || len(c.Options) > 25 {
			s.reject("command %q breaks Discord's command limits", c.Name)
			writeJSON(w, 400, map[string]any{"message": "Invalid Form Body", "code": 50035})
			return
		}
		c.ID, c.ApplicationID = s.lockedID(), AppID
	}
	s.mu.Lock()
	s.commands[guild] = cmds
	s.mu.Unlock()
	writeJSON(w, 200, cmds)
}

func (s *Server) lockedID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id()
}

// outgoing is a message body as the bot sends it.
type outgoing struct {
	Content         string                      `json:"content"`
	Components      []json.RawMessage           `json:"components"`
	AllowedMentions json.RawMessage             `json:"allowed_mentions"`
	Reference       *discordgo.MessageReference `json:"message_reference"`
	Flags           int                         `json:"flags"`
	// interaction responses wrap it
	Type int       `json:"type"`
	Data *outgoing `json:"data"`
}

// readBody decodes a JSON or multipart message body.
func (s *Server) readBody(r *http.Request) (*outgoing, []File, error) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var out outgoing
	var files []File
	if mt != "multipart/form-data" {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, nil, err
		}
		return &out, nil, json.Unmarshal(body, &out)
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case p.FormName() == "payload_json":
			if err := json.Unmarshal(data, &out); err != nil {
				return nil, nil, err
			}
		case strings.HasPrefix(p.FormName(), "files["):
			files = append(files, File{Name: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: data})
		default:
			return nil, nil, fmt.Errorf("unexpected form part %q", p.FormName())
		}
	}
	return &out, files, nil
}

// body reads a request's message body; when it cannot, it answers w with
// Discord's 400 and ok is false. what names the body in the rejection.
func (s *Server) body(w http.ResponseWriter, r *http.Request, what string) (o *outgoing, files []File, ok bool) {
	o, files, err := s.readBody(r)
	if err != nil {
		s.reject("%s body: %v", what, err)
		writeJSON(w, 400, map[string]any{"message": "Invalid Form Body", "code": 50035})
		return nil, nil, false
	}
	return o, files, true
}

// allowed enforces Discord's limits on a message with check; when it
// breaks one, it answers w and returns false.
func (s *Server) allowed(w http.ResponseWriter, o *outgoing, files []File) bool {
	if code, body := s.check(o, files); code != 0 {
		writeJSON(w, code, body)
		return false
	}
	return true
}

// check enforces Discord's limits on a message; it returns the status
// and error body to answer with, or 0.
func (s *Server) check(o *outgoing, files []File) (int, map[string]any) {
	bad := func(format string, args ...any) (int, map[string]any) {
		msg := fmt.Sprintf(format, args...)
		s.reject("%s", msg)
		return 400, map[string]any{"message": "Invalid Form Body", "code": 50035, "errors": msg}
	}
	if n := len(utf16.Encode([]rune(o.Content))); n > 2000 {
		return bad("content is %d characters, more than 2000", n)
	}
	if o.Content == "" && len(files) == 0 && len(o.Components) == 0 {
		s.reject("empty message")
		return 400, map[string]any{"message": "Cannot send an empty message", "code": 50006}
	}
	if len(files) > 10 {
		return bad("%d files, more than 10", len(files))
	}
	size := 0
	for _, f := range files {
		size += len(f.Data)
		if f.Name == "" {
			return bad("a file without a name")
		}
	}
	if size > s.opt.UploadLimit {
		s.reject("files of %d bytes, more than the upload limit of %d", size, s.opt.UploadLimit)
		return 413, map[string]any{"message": "Request entity too large", "code": 40005}
	}
	if len(o.Components) > 5 {
		return bad("%d action rows, more than 5", len(o.Components))
	}
	ids := map[string]bool{}
	for _, raw := range o.Components {
		c, err := discordgo.MessageComponentFromJSON(raw)
		if err != nil {
			return bad("component: %v", err)
		}
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			return bad("a top-level component that is not an action row")
		}
		if len(row.Components) == 0 || len(row.Components) > 5 {
			return bad("an action row of %d components", len(row.Components))
		}
		for _, c := range row.Components {
			switch x := c.(type) {
			case *discordgo.Button:
				if l := len([]rune(x.Label)); l > 80 || l == 0 {
					return bad("a button label of %d characters", l)
				}
				if x.CustomID == "" || len(x.CustomID) > 100 || ids[x.CustomID] {
					return bad("button custom_id %q missing, too long or repeated", x.CustomID)
				}
				ids[x.CustomID] = true
			case *discordgo.SelectMenu:
				if len(row.Components) != 1 {
					return bad("a select menu shares its row")
				}
				if len(x.Options) == 0 || len(x.Options) > 25 {
					return bad("a select menu of %d options", len(x.Options))
				}
				if len([]rune(x.Placeholder)) > 150 || x.CustomID == "" || len(x.CustomID) > 100 || ids[x.CustomID] {
					return bad("select menu placeholder or custom_id breaks the limits")
				}
				ids[x.CustomID] = true
				values := map[string]bool{}
				for _, o := range x.Options {
					if l := len([]rune(o.Label)); l == 0 || l > 100 || len([]rune(o.Value)) > 100 || o.Value == "" || values[o.Value] {
						return bad("select option %q/%q breaks the limits", o.Label, o.Value)
					}
					values[o.Value] = true
				}
			default:
				return bad("unexpected component %T", c)
			}
		}
	}
	return 0, nil
}

// store records a message and answers with it.
func (s *Server) store(w http.ResponseWriter, o *outgoing, files []File, channel, via, interactionID string) *Message {
	var comps []discordgo.MessageComponent
	for _, raw := range o.Components {
		c, _ := discordgo.MessageComponentFromJSON(raw)
		comps = append(comps, c)
	}
	s.mu.Lock()
	m := &Message{ID: s.id(), ChannelID: channel, Via: via, Interaction: interactionID, Content: o.Content, Components: comps,
		Files: files, Reference: o.Reference, AllowedMentions: o.AllowedMentions, Flags: o.Flags, At: time.Now()}
	s.messages = append(s.messages, m)
	s.mu.Unlock()
	writeJSON(w, 200, s.wireMessage(m))
	return m
}

func (s *Server) wireMessage(m *Message) map[string]any {
	att := []any{}
	for i, f := range m.Files {
		att = append(att, map[string]any{"id": fmt.Sprint(i + 1), "filename": f.Name, "size": len(f.Data), "content_type": f.ContentType})
	}
	return map[string]any{"id": m.ID, "channel_id": m.ChannelID, "content": m.Content, "type": 0, "attachments": att,
		"author": map[string]any{"id": BotID, "username": BotName, "bot": true}}
}

func (s *Server) postMessage(w http.ResponseWriter, r *http.Request, channel, via string, in *interaction) {
	o, files, ok := s.body(w, r, "message")
	if !ok {
		return
	}
	if !s.allowed(w, o, files) {
		return
	}
	id := ""
	if in != nil {
		id = in.id
	}
	s.store(w, o, files, channel, via, id)
}

func (s *Server) callback(w http.ResponseWriter, r *http.Request, id, token string) {
	s.mu.Lock()
	in := s.interactions[token]
	s.mu.Unlock()
	if in == nil || in.id != id {
		s.reject("callback for unknown interaction %s", id)
		writeJSON(w, 404, map[string]any{"message": "Unknown interaction", "code": 10062})
		return
	}
	o, files, ok := s.body(w, r, "callback")
	if !ok {
		return
	}
	delay := time.Since(in.dispatched)
	s.mu.Lock()
	s.callbacks = append(s.callbacks, Callback{Interaction: id, Type: discordgo.InteractionResponseType(o.Type), Delay: delay})
	already := in.acked != 0
	s.mu.Unlock()
	switch {
	case already:
		s.reject("interaction %s acknowledged twice", id)
		writeJSON(w, 400, map[string]any{"message": "Interaction has already been acknowledged.", "code": 40060})
		return
	case delay > s.opt.AckWindow:
		s.reject("interaction %s acknowledged after %s", id, delay)
		writeJSON(w, 404, map[string]any{"message": "Unknown interaction", "code": 10062})
		return
	}
	typ := discordgo.InteractionResponseType(o.Type)
	switch typ {
	case discordgo.InteractionResponseDeferredChannelMessageWithSource, discordgo.InteractionResponseDeferredMessageUpdate:
		s.mu.Lock()
		in.acked = typ
		s.mu.Unlock()
		w.WriteHeader(204)
	case discordgo.InteractionResponseChannelMessageWithSource:
		data := o.Data
		if data == nil {
			data = &outgoing{}
		}
		if !s.allowed(w, data, files) {
			return
		}
		s.mu.Lock()
		in.acked = typ
		s.mu.Unlock()
		m := s.store(httptest.NewRecorder(), data, files, in.channel, "interaction", id)
		s.mu.Lock()
		in.original = m
		s.mu.Unlock()
		w.WriteHeader(204)
	default:
		s.reject("interaction response type %d", o.Type)
		writeJSON(w, 400, map[string]any{"message": "Invalid Form Body", "code": 50035})
	}
}

// webhook serves the interaction webhook routes: PATCH
// /webhooks/APP/TOKEN/messages/@original (or ID), POST /webhooks/APP/TOKEN.
func (s *Server) webhook(w http.ResponseWriter, r *http.Request, seg []string) {
	app, token := seg[1], seg[2]
	s.mu.Lock()
	in := s.interactions[token]
	s.mu.Unlock()
	if app != AppID || in == nil || time.Since(in.dispatched) > s.opt.TokenLifetime {
		s.reject("webhook with an unknown or expired token")
		writeJSON(w, 401, map[string]any{"message": "Invalid Webhook Token", "code": 50027})
		return
	}
	switch {
	case r.Method == "POST" && len(seg) == 3:
		s.mu.Lock()
		acked := in.acked
		s.mu.Unlock()
		if acked == 0 {
			s.reject("follow-up before the interaction was acknowledged")
			writeJSON(w, 404, map[string]any{"message": "Unknown Webhook", "code": 10015})
			return
		}
		s.postMessage(w, r, in.channel, "followup", in)
	case r.Method == "PATCH" && len(seg) == 5 && seg[3] == "messages" && seg[4] == "@original":
		s.mu.Lock()
		acked, orig := in.acked, in.original
		s.mu.Unlock()
		if acked == 0 {
			s.reject("@original edited before the interaction was acknowledged")
			writeJSON(w, 404, map[string]any{"message": "Unknown Message", "code": 10008})
			return
		}
		o, files, ok := s.body(w, r, "edit")
		if !ok {
			return
		}
		if !s.allowed(w, o, files) {
			return
		}
		if orig != nil {
			s.mu.Lock()
			orig.Content, orig.Files = o.Content, files
			s.mu.Unlock()
			writeJSON(w, 200, s.wireMessage(orig))
			return
		}
		m := s.store(w, o, files, in.channel, "interaction", in.id)
		s.mu.Lock()
		in.original = m
		s.mu.Unlock()
	default:
		s.reject("webhook route %s %s", r.Method, strings.Join(seg, "/"))
		writeJSON(w, 404, map[string]any{"message": "404: Not Found", "code": 0})
	}
}

func (s *Server) reject(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejects = append(s.rejects, fmt.Sprintf(format, args...))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// ---- what tests read ----

// Messages returns the messages posted so far, oldest first (copies).
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		out[i] = *m
	}
	return out
}

// Callbacks returns the interaction responses so far.
func (s *Server) Callbacks() []Callback {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Callback(nil), s.callbacks...)
}

// Commands returns the commands registered for guild ("" is global).
func (s *Server) Commands(guild string) []*discordgo.ApplicationCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commands[guild]
}

// Rejects lists the requests the server refused for breaking a limit or
// a rule, in words.
func (s *Server) Rejects() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejects...)
}

// ClearRejects forgets the refused requests (after a test has checked
// the ones it provoked).
func (s *Server) ClearRejects() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejects = nil
}

// Stats counts gateway connections, IDENTIFYs, RESUMEs and heartbeats.
type Stats struct{ Connections, Identifies, Resumes, Heartbeats, AuthFailures int }

// Stats returns the gateway counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{s.conns, s.identifies, s.resumes, s.heartbeats, s.authFailures}
}

// AddChannel makes GET /channels/ID answer with c (a thread's parent,
// say).
func (s *Server) AddChannel(c *discordgo.Channel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channels[c.ID] = c
}

// WaitFor polls cond until it holds, failing the test after timeout.
func (s *Server) WaitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; messages: %s; rejects: %q", timeout, what, s.describe(), s.Rejects())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitMessages waits until n messages match keep and returns them.
func (s *Server) WaitMessages(t testing.TB, n int, keep func(Message) bool) []Message {
	t.Helper()
	var got []Message
	s.WaitFor(t, fmt.Sprintf("%d messages", n), 15*time.Second, func() bool {
		got = got[:0]
		for _, m := range s.Messages() {
			if keep == nil || keep(m) {
				got = append(got, m)
			}
		}
		return len(got) >= n
	})
	return got
}

func (s *Server) describe() string {
	var b strings.Builder
	for _, m := range s.Messages() {
		fmt.Fprintf(&b, "\n[%s %s in %s] %q (%d files)", m.Via, m.ID, m.ChannelID, clip(m.Content, 200), len(m.Files))
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ---- gateway ----

type gatewayConn struct {
	ws *websocket.Conn
	wm sync.Mutex
}

func (c *gatewayConn) send(v any) error {
	c.wm.Lock()
	defer c.wm.Unlock()
	return c.ws.WriteJSON(v)
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("v") != "9" || r.URL.Query().Get("encoding") != "json" {
		s.reject("gateway URL without v=9&encoding=json: %s", r.URL)
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &gatewayConn{ws: ws}
	s.mu.Lock()
	if s.conn != nil {
		s.conn.ws.Close()
	}
	s.conn = c
	s.conns++
	s.mu.Unlock()
	defer ws.Close()
	if err := c.send(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": s.opt.HeartbeatInterval.Milliseconds()}}); err != nil {
		return
	}
	for {
		var p struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if err := ws.ReadJSON(&p); err != nil {
			return
		}
		switch p.Op {
		case 1:
			s.count(&s.heartbeats)
			c.send(map[string]any{"op": 11})
		case 2:
			var id struct {
				Token   string `json:"token"`
				Intents int64  `json:"intents"`
			}
			json.Unmarshal(p.D, &id)
			s.count(&s.identifies)
			if id.Token != "Bot "+s.opt.Token {
				s.closeWith(c, 4004, "Authentication failed.")
				return
			}
			if s.opt.RefuseIntents && id.Intents&int64(discordgo.IntentsMessageContent) != 0 {
				s.closeWith(c, 4014, "Disallowed intent(s).")
				return
			}
			s.dispatchOn(c, "READY", map[string]any{"v": 9, "session_id": s.sessionID,
				"user":        map[string]any{"id": BotID, "username": BotName, "bot": true},
				"application": map[string]any{"id": AppID, "flags": 0},
				"guilds":      []any{}, "private_channels": []any{}, "resume_gateway_url": s.gatewayURL()})
		case 6:
			var res struct {
				Token     string `json:"token"`
				SessionID string `json:"session_id"`
			}
			json.Unmarshal(p.D, &res)
			s.count(&s.resumes)
			if res.Token != "Bot "+s.opt.Token || res.SessionID != s.sessionID {
				c.send(map[string]any{"op": 9, "d": false})
				continue
			}
			s.dispatchOn(c, "RESUMED", map[string]any{})
		default:
			s.reject("gateway op %d", p.Op)
		}
	}
}

func (s *Server) closeWith(c *gatewayConn, code int, text string) {
	c.wm.Lock()
	defer c.wm.Unlock()
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
}

func (s *Server) dispatchOn(c *gatewayConn, typ string, d any) error {
	s.mu.Lock()
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	return c.send(map[string]any{"op": 0, "t": typ, "s": seq, "d": d})
}

// Dispatch sends an event to the connected bot, waiting up to 10 s for
// one to connect.
func (s *Server) Dispatch(t testing.TB, typ string, d any) {
	t.Helper()
	var c *gatewayConn
	s.WaitFor(t, "a gateway connection", 10*time.Second, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		c = s.conn
		return c != nil
	})
	if err := s.dispatchOn(c, typ, d); err != nil {
		t.Fatalf("dispatch %s: %v", typ, err)
	}
}

// Drop closes the gateway connection without a close frame, as a
// network failure would.
func (s *Server) Drop() {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	if c != nil {
		c.ws.UnderlyingConn().Close()
	}
}

// ---- events a test sends ----

// User is who writes a message or uses a command.
type User struct {
	ID, Name string
	Bot      bool
	Roles    []string
}

func (u User) wire() map[string]any {
	return map[string]any{"id": u.ID, "username": u.Name, "bot": u.Bot}
}

// Msg is a message a user writes.
type Msg struct {
	Channel, Guild string // no guild: a DM
	Author         User
	Content        string
	// MentionBot puts the bot among the mentioned users (the text should
	// hold <@BotID>).
	MentionBot bool
	// ReplyTo is the id of the message it replies to, by the bot unless
	// ReplyToAuthor says otherwise.
	ReplyTo       string
	ReplyToAuthor *User
	// Webhook marks a message posted by a webhook.
	Webhook string
}

// Send dispatches MESSAGE_CREATE and returns the message's id.
func (s *Server) Send(t testing.TB, m Msg) string {
	t.Helper()
	id := s.lockedID()
	d := map[string]any{"id": id, "channel_id": m.Channel, "content": m.Content, "author": m.Author.wire(), "type": 0,
		"mentions": []any{}, "attachments": []any{}, "embeds": []any{}, "timestamp": time.Now().UTC().Format(time.RFC3339)}
	if m.Guild != "" {
		d["guild_id"] = m.Guild
		d["member"] = map[string]any{"roles": nonNil(m.Author.Roles)}
	}
	if m.MentionBot {
		d["mentions"] = []any{map[string]any{"id": BotID, "username": BotName, "bot": true}}
	}
	if m.ReplyTo != "" {
		d["type"] = 19
		d["message_reference"] = map[string]any{"message_id": m.ReplyTo, "channel_id": m.Channel, "guild_id": m.Guild}
		author := map[string]any{"id": BotID, "username": BotName, "bot": true}
		if m.ReplyToAuthor != nil {
			author = m.ReplyToAuthor.wire()
		}
		d["referenced_message"] = map[string]any{"id": m.ReplyTo, "channel_id": m.Channel, "type": 0, "content": "", "author": author}
	}
	if m.Webhook != "" {
		d["webhook_id"] = m.Webhook
	}
	s.Dispatch(t, "MESSAGE_CREATE", d)
	return id
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Command is a slash command a user runs.
type Command struct {
	Channel, Guild string
	User           User
	Name           string
	Options        map[string]string
}

// Run dispatches INTERACTION_CREATE for a slash command and returns the
// interaction's id.
func (s *Server) Run(t testing.TB, c Command) string {
	t.Helper()
	var opts []any
	for k, v := range c.Options {
		opts = append(opts, map[string]any{"name": k, "type": 3, "value": v})
	}
	return s.interact(t, c.Channel, c.Guild, c.User, 2, map[string]any{"id": "cmd-" + c.Name, "name": c.Name, "type": 1, "options": opts}, nil)
}

// Click dispatches INTERACTION_CREATE for a component of message m: a
// button (no values) or a select menu (the values picked).
func (s *Server) Click(t testing.TB, m Message, guild string, u User, customID string, values ...string) string {
	t.Helper()
	data := map[string]any{"custom_id": customID, "component_type": 2}
	if len(values) > 0 {
		data["component_type"], data["values"] = 3, values
	}
	return s.interact(t, m.ChannelID, guild, u, 3, data, map[string]any{"id": m.ID, "channel_id": m.ChannelID, "content": m.Content,
		"author": map[string]any{"id": BotID, "username": BotName, "bot": true}})
}

func (s *Server) interact(t testing.TB, channel, guild string, u User, typ int, data, msg map[string]any) string {
	t.Helper()
	s.mu.Lock()
	id, token := s.id(), "itok"+s.id()+"-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	in := &interaction{id: id, channel: channel, token: token}
	s.interactions[token] = in
	s.mu.Unlock()
	d := map[string]any{"id": id, "application_id": AppID, "type": typ, "token": token, "version": 1, "channel_id": channel, "data": data}
	if guild != "" {
		d["guild_id"] = guild
		d["member"] = map[string]any{"user": u.wire(), "roles": nonNil(u.Roles)}
	} else {
		d["user"] = u.wire()
	}
	if msg != nil {
		d["message"] = msg
	}
	s.mu.Lock()
	in.dispatched = time.Now()
	s.mu.Unlock()
	s.Dispatch(t, "INTERACTION_CREATE", d)
	return id
}

// Tokens returns the interaction tokens handed out, for tests that look
// for them in logs.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for tok := range s.interactions {
		out = append(out, tok)
	}
	return out
}

// TextOf joins the contents of messages.
func TextOf(ms []Message) string {
	var b bytes.Buffer
	for i, m := range ms {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.Content)
	}
	return b.String()
}
