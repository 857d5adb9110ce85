// Package discord is the Discord front door of tablewise: a bot that
// answers questions about a database asked in a channel, a thread or a
// direct message, with the answer text, the SQL, a preview table, a CSV of
// the whole result and a chart image.
//
// Triggers are a mention of the bot, a direct message, a reply to the
// bot's open question, and the slash commands /ask and /sql. Every
// question goes through the answer service (core/ask), one conversation
// per channel, thread or DM; SQL typed by a person goes through core/query
// and its guard. Work is serialized per conversation and concurrent across
// conversations.
//
// The bot talks to Discord through discordgo's own HTTP client and
// websocket dialer, left as they are: both take their proxy from
// HTTPS_PROXY and NO_PROXY (http.ProxyFromEnvironment) and trust the
// system certificate store (SSL_CERT_FILE included), for the REST API and
// the gateway alike. Reconnecting after a dropped gateway is discordgo's.
package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
)

// Asker answers a question in a conversation: *ask.Service.
type Asker interface {
	Ask(ctx context.Context, question string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error)
}

var _ Asker = (*ask.Service)(nil)

// Allow restricts where the bot answers. An empty list allows all.
type Allow struct {
	// Guilds are server IDs.
	Guilds []string
	// Channels are channel IDs; a thread is allowed when its parent is.
	Channels []string
	// Roles are role IDs; a member needs one of them.
	Roles []string
}

// Rate is a per-user limit: N questions per Per, in bursts of up to N.
// N ≤ 0 means no limit.
type Rate struct {
	N   int
	Per time.Duration
}

func (r Rate) String() string {
	if r.N <= 0 {
		return "unlimited"
	}
	per := r.Per.String()
	switch r.Per {
	case time.Second:
		per = "second"
	case time.Minute:
		per = "minute"
	case time.Hour:
		per = "hour"
	}
	return fmt.Sprintf("%d per %s", r.N, per)
}

// Defaults.
const (
	// DefaultDeadline bounds one question, from its arrival to its reply.
	DefaultDeadline = 2 * time.Minute
	// DefaultUploadLimit is what one message may upload: Discord's limit
	// for bots in servers without boosts.
	DefaultUploadLimit = 10 << 20
	// DefaultMaxConcurrent is how many questions are worked on at once.
	DefaultMaxConcurrent = 4
	// DefaultShutdownGrace is how long in-flight answers may take to finish
	// once shutdown begins.
	DefaultShutdownGrace = 20 * time.Second
	// DefaultChartTimeout bounds drawing one chart.
	DefaultChartTimeout = 20 * time.Second
)

// DefaultRate is the per-user limit unless told otherwise.
var DefaultRate = Rate{N: 5, Per: time.Minute}

// Options configure a Bot.
type Options struct {
	// Token is the bot token (with or without its "Bot " prefix).
	Token string
	// Databases are the databases questions are about; with several, each
	// question goes to the one it fits, and a menu asks when it fits more
	// than one.
	Databases []*db.DB
	// Ask answers questions.
	Ask Asker
	// Logger receives structured logs; the token never reaches it.
	Logger *slog.Logger
	// Allow restricts where the bot answers.
	Allow Allow
	// UserRate limits each user's questions; the zero Rate means
	// DefaultRate, a negative N no limit.
	UserRate Rate
	// Deadline bounds one question (DefaultDeadline when zero). A slash
	// command's answer is also bound by its interaction token's 15 minutes.
	Deadline time.Duration
	// ChartTimeout bounds drawing a chart (DefaultChartTimeout when zero).
	ChartTimeout time.Duration
	// UploadLimit bounds the files of one message (DefaultUploadLimit when
	// zero).
	UploadLimit int
	// MaxConcurrent bounds the questions worked on at once
	// (DefaultMaxConcurrent when zero).
	MaxConcurrent int
	// ShutdownGrace is how long in-flight answers may take to finish once
	// Run's context ends (DefaultShutdownGrace when zero); after it they
	// are cut and say so.
	ShutdownGrace time.Duration
	// HTTPClient and Dialer replace discordgo's defaults, which honour
	// HTTPS_PROXY, NO_PROXY and the system certificate store. Tests point
	// them at a fake Discord; leave them nil otherwise.
	HTTPClient *http.Client
	Dialer     *websocket.Dialer
}

// Errors Run returns at startup, for the command to explain.
var (
	// ErrNoToken: no token was given.
	ErrNoToken = errors.New("no bot token: set DISCORD_BOT_TOKEN to the token from the Discord Developer Portal (your application → Bot → Reset Token)")
	// ErrTokenRejected: Discord refused the token.
	ErrTokenRejected = errors.New("Discord rejected the bot token in DISCORD_BOT_TOKEN: copy it again from the Developer Portal (your application → Bot → Reset Token)")
	// ErrIntents: the gateway refused the intents the bot needs.
	ErrIntents = errors.New("Discord refused the Message Content intent: enable it in the Developer Portal (your application → Bot → Privileged Gateway Intents → Message Content Intent) and start again")
)

// Intents are the gateway intents the bot asks for: guilds (channels and
// threads), guild and direct messages, and message content (privileged:
// it must be enabled in the Developer Portal), without which a mention
// arrives without its text.
const Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages | discordgo.IntentsMessageContent

// InvitePermissions are the permissions the invite URL asks for: view
// channels, send messages (and in threads), attach files, read message
// history and use application commands.
const InvitePermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionSendMessagesInThreads |
	discordgo.PermissionAttachFiles | discordgo.PermissionReadMessageHistory | discordgo.PermissionUseApplicationCommands

// InviteURL is the URL that adds the bot with application id appID to a
// server, with its commands and InvitePermissions.
func InviteURL(appID string) string {
	return fmt.Sprintf("https://discord.com/oauth2/authorize?client_id=%s&scope=bot+applications.commands&permissions=%d", appID, InvitePermissions)
}

// Bot is a running Discord bot.
type Bot struct {
	opt   Options
	log   *slog.Logger
	s     *discordgo.Session
	token string
	dbs   []*db.DB

	self  atomic.Pointer[string] // the bot's user id, from READY
	appID atomic.Pointer[string]

	limiter  *limiter
	mem      *memory
	work     *workers
	inbox    chan *discordgo.MessageCreate
	stopping atomic.Bool
	done     chan struct{} // closed when the dispatcher should stop

	chmu     sync.Mutex
	channels map[string]string // channel id → parent id ("" when none), for allow-lists

	// tokenTTL is how long an interaction token may be used to answer:
	// Discord's 15 minutes less a margin.
	tokenTTL time.Duration
	ready    chan struct{}
}

// New checks opt and builds a bot; Run connects it.
func New(opt Options) (*Bot, error) {
	token := strings.TrimSpace(opt.Token)
	token = strings.TrimSpace(strings.TrimPrefix(token, "Bot "))
	if token == "" {
		return nil, ErrNoToken
	}
	if len(opt.Databases) == 0 {
		return nil, errors.New("discord: no database given")
	}
	if opt.Ask == nil {
		return nil, errors.New("discord: no answer service given")
	}
	if opt.UserRate.N == 0 {
		opt.UserRate = DefaultRate
	}
	if opt.UserRate.N > 0 && opt.UserRate.Per <= 0 {
		return nil, fmt.Errorf("discord: a rate of %d needs a period", opt.UserRate.N)
	}
	if opt.Deadline <= 0 {
		opt.Deadline = DefaultDeadline
	}
	if opt.ChartTimeout <= 0 {
		opt.ChartTimeout = DefaultChartTimeout
	}
	if opt.UploadLimit <= 0 {
		opt.UploadLimit = DefaultUploadLimit
	}
	if opt.MaxConcurrent <= 0 {
		opt.MaxConcurrent = DefaultMaxConcurrent
	}
	if opt.ShutdownGrace <= 0 {
		opt.ShutdownGrace = DefaultShutdownGrace
	}
	logger := opt.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	rememberSecret(token)
	b := &Bot{
		opt:      opt,
		token:    token,
		log:      slog.New(redacting(logger.Handler(), token)),
		dbs:      opt.Databases,
		limiter:  newLimiter(opt.UserRate),
		mem:      newMemory(),
		inbox:    make(chan *discordgo.MessageCreate, 256),
		done:     make(chan struct{}),
		channels: map[string]string{},
		tokenTTL: 15*time.Minute - 30*time.Second,
		ready:    make(chan struct{}),
	}
	b.work = newWorkers(opt.MaxConcurrent, b.runJob)
	return b, nil
}

// Ready is closed once the bot is connected and its commands registered.
func (b *Bot) Ready() <-chan struct{} { return b.ready }

// Run connects to Discord, registers the slash commands and answers until
// ctx ends; then it stops taking questions, lets in-flight answers finish
// within ShutdownGrace (cutting the rest, with a message saying so) and
// disconnects. A token Discord rejects is ErrTokenRejected; intents it
// refuses, ErrIntents.
func (b *Bot) Run(ctx context.Context) error {
	if err := b.connect(ctx); err != nil {
		return err
	}
	go b.dispatch()
	<-ctx.Done()
	b.shutdown()
	return nil
}

// connect checks the token, opens the gateway and registers the commands.
func (b *Bot) connect(ctx context.Context) error {
	s, err := discordgo.New("Bot " + b.token)
	if err != nil {
		return fmt.Errorf("discord: %w", err)
	}
	if b.opt.HTTPClient != nil {
		s.Client = b.opt.HTTPClient
	} else {
		// discordgo's client, kept (its transport honours the proxy and
		// certificate settings), with time for a 10 MiB upload on a slow
		// link; each request is also bound by its reply's context.
		s.Client.Timeout = sendTimeout
	}
	if b.opt.Dialer != nil {
		s.Dialer = b.opt.Dialer
	}
	s.Identify.Intents = Intents
	// Handlers run on the gateway's reader in arrival order and only hand
	// work on, so messages of a channel keep their order.
	s.SyncEvents = true
	s.StateEnabled = true
	s.LogLevel = discordgo.LogWarning
	if b.log.Enabled(ctx, slog.LevelDebug) {
		s.LogLevel = discordgo.LogDebug
	}
	routeLibraryLogs(b.log)
	b.s = s

	gb, err := s.GatewayBot(discordgo.WithContext(ctx))
	if err != nil {
		var re *discordgo.RESTError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
			return ErrTokenRejected
		}
		return fmt.Errorf("reach Discord (%s): %w", strings.TrimSuffix(discordgo.EndpointGatewayBot, "/"), err)
	}
	if gb.SessionStartLimit.Total > 0 && gb.SessionStartLimit.Remaining == 0 {
		return fmt.Errorf("Discord allows this bot no more logins for now (%d a day); try again in %s",
			gb.SessionStartLimit.Total, (time.Duration(gb.SessionStartLimit.ResetAfter) * time.Millisecond).Round(time.Minute))
	}

	s.AddHandler(b.onReady)
	s.AddHandler(b.onMessage)
	s.AddHandler(b.onInteraction)
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Disconnect) {
		if !b.stopping.Load() {
			b.log.Warn("gateway disconnected; reconnecting")
		}
	})
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Connect) { b.log.Debug("gateway connected") })
	s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Resumed) { b.log.Info("gateway session resumed") })
	s.AddHandler(func(_ *discordgo.Session, t *discordgo.ThreadCreate) { b.noteChannel(t.Channel) })
	s.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildCreate) {
		for _, c := range g.Channels {
			b.noteChannel(c)
		}
		for _, c := range g.Threads {
			b.noteChannel(c)
		}
	})

	if err := s.Open(); err != nil {
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			switch ce.Code {
			case 4004:
				return ErrTokenRejected
			case 4013, 4014:
				return ErrIntents
			}
		}
		return fmt.Errorf("connect to the Discord gateway: %w", err)
	}
	appID := b.app()
	if appID == "" {
		s.Close()
		return errors.New("connect to the Discord gateway: READY named no application")
	}
	if err := b.registerCommands(ctx); err != nil {
		// Mentions and direct messages still work without them.
		b.log.Error("slash commands not registered; mentions and DMs still work", "err", err)
	}
	who := ""
	if s.State != nil && s.State.User != nil {
		who = s.State.User.Username
	}
	b.log.Info("connected to Discord", "bot", who, "application", appID, "databases", b.labels(),
		"user_rate", b.opt.UserRate.String(), "deadline", b.opt.Deadline, "invite", InviteURL(appID))
	close(b.ready)
	return nil
}

func (b *Bot) onReady(_ *discordgo.Session, r *discordgo.Ready) {
	if r.User != nil {
		id := r.User.ID
		b.self.Store(&id)
	}
	app := ""
	if r.Application != nil {
		app = r.Application.ID
	}
	if app == "" && r.User != nil {
		app = r.User.ID // a bot's application shares its user's id
	}
	b.appID.Store(&app)
}

func (b *Bot) selfID() string {
	if p := b.self.Load(); p != nil {
		return *p
	}
	return ""
}

func (b *Bot) app() string {
	if p := b.appID.Load(); p != nil {
		return *p
	}
	return ""
}

func (b *Bot) labels() []string {
	out := make([]string, len(b.dbs))
	for i, d := range b.dbs {
		out[i] = d.Label()
	}
	return out
}

// registerCommands installs /ask and /sql: for each allowed guild when
// guilds are listed (they appear at once), else globally.
func (b *Bot) registerCommands(ctx context.Context) error {
	cmds := commands(b.labels())
	guilds := b.opt.Allow.Guilds
	if len(guilds) == 0 {
		guilds = []string{""}
	}
	for _, g := range guilds {
		if _, err := b.s.ApplicationCommandBulkOverwrite(b.app(), g, cmds, discordgo.WithContext(ctx)); err != nil {
			if g != "" {
				return fmt.Errorf("register commands in guild %s: %w", g, err)
			}
			return fmt.Errorf("register commands: %w", err)
		}
	}
	return nil
}

// commands are the slash commands; with several databases each takes an
// optional database choice.
func commands(labels []string) []*discordgo.ApplicationCommand {
	dbOpt := func() []*discordgo.ApplicationCommandOption {
		if len(labels) < 2 {
			return nil
		}
		o := &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: "database", Description: "Which database (default: the one the question fits)"}
		for i, l := range labels {
			if i == maxSelectOptions {
				break
			}
			o.Choices = append(o.Choices, &discordgo.ApplicationCommandOptionChoice{Name: clip(l, maxOptionText), Value: l})
		}
		return []*discordgo.ApplicationCommandOption{o}
	}
	return []*discordgo.ApplicationCommand{
		{Name: "ask", Description: "Ask the database a question in plain language", Options: append([]*discordgo.ApplicationCommandOption{{
			Type: discordgo.ApplicationCommandOptionString, Name: "question", Description: "e.g. How many customers are there per country?", Required: true, MaxLength: maxQuestion,
		}}, dbOpt()...)},
		{Name: "sql", Description: "Run one read-only SQL statement", Options: append([]*discordgo.ApplicationCommandOption{{
			Type: discordgo.ApplicationCommandOptionString, Name: "query", Description: "one SELECT, WITH or VALUES statement", Required: true, MaxLength: 6000,
		}}, dbOpt()...)},
	}
}

// maxQuestion bounds a question's length.
const maxQuestion = 2000

// shutdown stops taking questions, closes the gateway, and gives the
// questions in flight ShutdownGrace to finish before cutting them.
func (b *Bot) shutdown() {
	b.stopping.Store(true)
	close(b.done)
	b.log.Info("shutting down: finishing the answers in flight", "grace", b.opt.ShutdownGrace)
	b.work.close()
	if err := b.s.Close(); err != nil {
		b.log.Warn("close the gateway", "err", err)
	}
	finished := make(chan struct{})
	go func() { b.work.wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(b.opt.ShutdownGrace):
		b.log.Warn("grace period over: cutting the answers still in flight")
		b.work.cancel()
		<-finished
	}
	b.log.Info("stopped")
}
