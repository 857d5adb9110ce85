package discord

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tablewise/tablewise/core/format"
)

// jobKind says what a job does.
type jobKind int

const (
	// askJob asks the answer service.
	askJob jobKind = iota
	// sqlJob runs SQL a person wrote.
	sqlJob
	// sayJob only posts text, in its conversation's order.
	sayJob
)

// job is one piece of work in a conversation.
type job struct {
	id   string // request id: in the logs and the reply's footer
	kind jobKind
	conv string // channel, thread or DM channel id
	user string // who asked
	text string // the question, the SQL, or what to say
	db   string // database label; "" lets the bot choose
	// checkChannel says the channel allow-list is checked when the job
	// runs (interactions, which must be acknowledged first).
	checkChannel bool
	// tokenLeft, when set, is the time an interaction's token has left.
	tokenLeft func() time.Duration
	// resolve, when set, runs when the job's turn comes and completes it
	// from the conversation's state; false drops the job.
	resolve func(j *job) bool
	target  target
	log     *slog.Logger
}

// ---- messages ----

// onMessage runs on the gateway's reader: it keeps what concerns the bot
// and hands it to the dispatcher, in order.
func (b *Bot) onMessage(_ *discordgo.Session, m *discordgo.MessageCreate) {
	defer b.survive("message")
	if b.stopping.Load() || m.Message == nil || m.Author == nil {
		return
	}
	if m.Author.Bot || m.WebhookID != "" || m.Author.ID == b.selfID() {
		return // bots (this one included) and webhooks
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return // joins, pins, thread starts…
	}
	if m.GuildID != "" && !b.mentioned(m.Message) && !b.repliesToBot(m.Message) {
		return // unrelated traffic
	}
	select {
	case b.inbox <- m:
	default:
		b.log.Warn("too many messages waiting: one was dropped", "conv", m.ChannelID, "user", m.Author.ID)
	}
}

// mentioned says whether the message really mentions the bot: the bot is
// among its mentioned users and its mention is in the text (a reply's
// ping alone does not count).
func (b *Bot) mentioned(m *discordgo.Message) bool {
	self := b.selfID()
	if self == "" {
		return false
	}
	for _, u := range m.Mentions {
		if u != nil && u.ID == self {
			return strings.Contains(m.Content, "<@"+self+">") || strings.Contains(m.Content, "<@!"+self+">")
		}
	}
	return false
}

// repliesToBot says whether the message replies to one of the bot's.
func (b *Bot) repliesToBot(m *discordgo.Message) bool {
	if m.MessageReference == nil {
		return false
	}
	if r := m.ReferencedMessage; r != nil && r.Author != nil {
		return r.Author.ID == b.selfID()
	}
	return b.mem.byMessage(m.MessageReference.MessageID) != nil
}

// stripMention removes the bot's mentions from a message's text.
func (b *Bot) stripMention(s string) string {
	self := b.selfID()
	s = strings.ReplaceAll(s, "<@"+self+">", " ")
	s = strings.ReplaceAll(s, "<@!"+self+">", " ")
	return strings.TrimSpace(s)
}

// dispatch takes messages one at a time, so each conversation's jobs are
// queued in the order they were written.
func (b *Bot) dispatch() {
	for {
		select {
		case <-b.done:
			return
		case m := <-b.inbox:
			b.handleMessage(m)
		}
	}
}

// survive keeps a panic in an event handler from ending the bot: it is
// logged and the event dropped.
func (b *Bot) survive(what string) {
	if p := recover(); p != nil {
		b.log.Error("panic while handling an event; it was dropped", "event", what, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	}
}

func (b *Bot) handleMessage(m *discordgo.MessageCreate) {
	defer b.survive("message")
	user, conv := m.Author.ID, m.ChannelID
	dm := m.GuildID == ""
	var roles []string
	if m.Member != nil {
		roles = m.Member.Roles
	}
	log := b.log.With("conv", conv, "user", user)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !b.allowed(ctx, m.GuildID, conv, roles, dm) {
		log.Debug("ignored: not on the allow-lists", "guild", m.GuildID)
		return
	}
	text := strings.TrimSpace(b.stripMention(m.Content))
	mentioned := b.mentioned(m.Message)
	replyTo := ""
	if m.MessageReference != nil {
		replyTo = m.MessageReference.MessageID
	}
	tgt := &channelTarget{s: b.s, channel: conv, ref: m.SoftReference(), log: log}
	say := func(text string) { b.say(conv, user, tgt, text) }

	// What a message continues (an open question it replies to, or in a
	// DM one of its options) is decided when its turn in the
	// conversation comes: by then the bot's earlier replies there are
	// sent and known.
	if isCancel(text) {
		j := &job{id: newNonce(), kind: sayJob, conv: conv, user: user, target: tgt}
		j.resolve = func(j *job) bool {
			p := b.continued(j.conv, j.user, replyTo, dm, "")
			if p == nil && !dm && !mentioned {
				return false // a reply to someone else's question
			}
			if p == nil {
				if p = b.mem.openIn(j.conv); p != nil && p.asker != j.user {
					p = nil // someone else's open question stays open
				}
			}
			if p != nil && b.mem.take(p.nonce) != nil {
				j.log.Info("open question cancelled")
				j.text = "Dropped the open question. Ask another whenever you like."
			} else {
				j.text = "Nothing here is waiting for an answer."
			}
			return true
		}
		b.submit(j, "cancel", say)
		return
	}
	if text == "" {
		if dm || mentioned {
			say(helpText(dm))
		}
		return
	}
	if ok, wait, tell := b.limiter.take(user); !ok {
		log.Info("rate limited", "wait", wait)
		if tell {
			say(slowDown(b.opt.UserRate, wait))
		}
		return
	}
	trigger := "dm"
	if !dm {
		trigger = "mention"
	}
	j := &job{id: newNonce(), kind: askJob, conv: conv, user: user, text: clip(text, maxQuestion), target: tgt}
	j.resolve = func(j *job) bool {
		cont := b.continued(j.conv, j.user, replyTo, dm, text)
		switch {
		case cont == nil && !dm && !mentioned:
			return false // someone else's reply to the bot's question, or a stale one
		case cont == nil:
			if b.mem.closeOpen(j.conv) != nil {
				j.log.Info("open question replaced by a new one")
			}
			return true
		case !b.continueWith(j, cont, text):
			j.kind, j.text = sayJob, fmt.Sprintf("Pick one of: %s — or say `cancel`.", optionList(cont.options))
			return true
		}
		b.mem.take(cont.nonce)
		j.log.Info("continues the open question")
		return true
	}
	b.submit(j, trigger, say)
}

// continued is the open question of conversation conv that a message of
// user continues: the one it replies to, or in a DM the one whose
// option it names. Only its asker continues it.
func (b *Bot) continued(conv, user, replyTo string, dm bool, text string) *pending {
	var p *pending
	if replyTo != "" {
		if q := b.mem.byMessage(replyTo); q != nil && q.open() && q.conv == conv {
			p = q
		}
	}
	if open := b.mem.openIn(conv); p == nil && dm && open != nil && text != "" && open.option(text) != "" {
		p = open
	}
	if p != nil && p.asker != user {
		return nil
	}
	return p
}

// continueWith makes j continue p with the user's answer: a
// clarification's answer, or a database's label. It is false when the
// answer names no database of a database pick.
func (b *Bot) continueWith(j *job, p *pending, answer string) bool {
	switch p.kind {
	case pendClarify:
		j.text, j.db = clarified(p.question, p.asked, answer), p.db
	case pendDatabase:
		label := p.option(answer)
		if label == "" {
			return false
		}
		j.text, j.db = p.question, label
		if p.sql {
			j.kind = sqlJob
		}
	}
	return true
}

// clarified is the question asked again with the user's answer to the
// clarification (as the explorer does).
func clarified(question, asked, answer string) string {
	return question + "\n\nClarification — " + asked + " " + answer
}

func isCancel(text string) bool {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(text), "!.`"))
	return t == "cancel"
}

func helpText(dm bool) string {
	how := "Mention me with a question"
	if dm {
		how = "Send me a question"
	}
	return how + " about the database, e.g. *How many customers are there per country?* — or use `/ask` for questions and `/sql` for one read-only SQL statement."
}

func slowDown(r Rate, wait time.Duration) string {
	return fmt.Sprintf("You're asking faster than this bot allows (%s questions %s per person). Please try again in %s.",
		strings.Fields(r.String())[0], strings.Join(strings.Fields(r.String())[1:], " "), roundWait(wait))
}

func roundWait(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	if s < 60 {
		return format.Plural(int64(s), "second")
	}
	return format.Plural(int64((s+59)/60), "minute")
}

func optionList(opts []string) string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = "**" + inline(o) + "**"
	}
	return strings.Join(out, ", ")
}

// say posts text in a conversation, in its order.
func (b *Bot) say(conv, user string, tgt target, text string) {
	j := &job{id: newNonce(), kind: sayJob, conv: conv, user: user, text: text, target: tgt}
	j.log = b.log.With("req", j.id, "conv", conv, "user", user)
	if b.work.submit(j) != submitted {
		go b.sendNow(tgt, text, j.log)
	}
}

// sendNow posts text at once, outside the conversation's queue.
func (b *Bot) sendNow(tgt target, text string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	if _, err := tgt.send(ctx, []part{{content: clip(text, maxContent)}}); err != nil {
		log.Warn("send", "err", err)
	}
}

// submit queues j; busy says so when its conversation's queue is full.
func (b *Bot) submit(j *job, trigger string, busy func(string)) bool {
	j.log = b.log.With("req", j.id, "conv", j.conv, "user", j.user, "trigger", trigger)
	log, kind, chars := j.log, j.kind.String(), len(j.text) // j is the worker's once submitted
	switch b.work.submit(j) {
	case queueFull:
		log.Warn("conversation queue full: question refused")
		busy(fmt.Sprintf("I'm still working on %d questions here; please ask again when they are answered.", maxQueued))
		return false
	case shuttingDown:
		busy("I'm restarting and not taking questions for a moment; please ask again shortly.")
		return false
	}
	log.Info("question queued", "kind", kind, "chars", chars)
	return true
}

func (k jobKind) String() string {
	switch k {
	case askJob:
		return "ask"
	case sqlJob:
		return "sql"
	}
	return "say"
}

// ---- allow-lists ----

// allowed says whether the allow-lists let the bot answer there. A DM
// has no guild and no roles, so guild and role lists exclude DMs; a
// channel list allows a DM only when it names its channel.
func (b *Bot) allowed(ctx context.Context, guild, channel string, roles []string, dm bool) bool {
	a := b.opt.Allow
	if dm {
		return len(a.Guilds) == 0 && len(a.Roles) == 0 && (len(a.Channels) == 0 || slices.Contains(a.Channels, channel))
	}
	if len(a.Guilds) > 0 && !slices.Contains(a.Guilds, guild) {
		return false
	}
	if len(a.Roles) > 0 && !slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(a.Roles, r) }) {
		return false
	}
	return b.channelAllowed(ctx, channel)
}

// channelAllowed checks the channel list: the channel, or the parent of
// a thread.
func (b *Bot) channelAllowed(ctx context.Context, channel string) bool {
	a := b.opt.Allow.Channels
	if len(a) == 0 || slices.Contains(a, channel) {
		return true
	}
	parent := b.parentOf(ctx, channel)
	return parent != "" && slices.Contains(a, parent)
}

// maxChannels bounds the channels whose parents are remembered.
const maxChannels = 10_000

// noteChannel remembers a channel's parent (threads have one).
func (b *Bot) noteChannel(c *discordgo.Channel) {
	if c == nil {
		return
	}
	b.chmu.Lock()
	defer b.chmu.Unlock()
	if len(b.channels) >= maxChannels {
		clear(b.channels)
	}
	b.channels[c.ID] = c.ParentID
}

// parentOf is a channel's parent id: remembered from the gateway, else
// asked of the REST API (once per channel).
func (b *Bot) parentOf(ctx context.Context, channel string) string {
	b.chmu.Lock()
	p, ok := b.channels[channel]
	b.chmu.Unlock()
	if ok {
		return p
	}
	c, err := b.s.Channel(channel, discordgo.WithContext(ctx))
	if err != nil {
		b.log.Warn("look up a channel for the allow-list", "channel", channel, "err", err)
		return ""
	}
	b.noteChannel(c)
	return c.ParentID
}

// ---- interactions ----

// onInteraction runs on the gateway's reader. Discord wants an answer
// within 3 seconds: a slash command or a menu pick is acknowledged at
// once with a deferred response, and its job edits the answer in.
func (b *Bot) onInteraction(_ *discordgo.Session, ic *discordgo.InteractionCreate) {
	defer b.survive("interaction")
	i := ic.Interaction
	if i == nil {
		return
	}
	user := interactionUser(i)
	if user == nil || user.Bot {
		return
	}
	if b.stopping.Load() {
		go b.respond(i, "I'm restarting and not taking questions for a moment; please ask again shortly.", true)
		return
	}
	switch i.Type {
	case discordgo.InteractionApplicationCommand:
		b.onCommand(i, user.ID)
	case discordgo.InteractionMessageComponent:
		b.onComponent(i, user.ID)
	}
}

func interactionUser(i *discordgo.Interaction) *discordgo.User {
	if i.Member != nil && i.Member.User != nil {
		return i.Member.User
	}
	return i.User
}

func (b *Bot) onCommand(i *discordgo.Interaction, user string) {
	received := time.Now()
	data := i.ApplicationCommandData()
	var text, label string
	for _, o := range data.Options {
		switch o.Name {
		case "question", "query":
			text = strings.TrimSpace(o.StringValue())
		case "database":
			label = o.StringValue()
		}
	}
	kind := askJob
	if data.Name == "sql" {
		kind = sqlJob
	} else if data.Name != "ask" {
		return
	}
	var roles []string
	if i.Member != nil {
		roles = i.Member.Roles
	}
	dm := i.GuildID == ""
	if !b.allowedQuick(i.GuildID, i.ChannelID, roles, dm) {
		go b.respond(i, "I don't answer here.", true)
		return
	}
	if text == "" {
		go b.respond(i, helpText(dm), true)
		return
	}
	if label != "" && b.db(label) == nil {
		go b.respond(i, fmt.Sprintf("There is no database %q here; the databases are %s.", label, optionList(b.labels())), true)
		return
	}
	if ok, wait, _ := b.limiter.take(user); !ok {
		b.log.Info("rate limited", "conv", i.ChannelID, "user", user, "wait", wait)
		go b.respond(i, slowDown(b.opt.UserRate, wait), true)
		return
	}
	if b.mem.openIn(i.ChannelID) != nil {
		b.mem.closeOpen(i.ChannelID) // a new question replaces the open one
	}
	j := &job{id: newNonce(), kind: kind, conv: i.ChannelID, user: user, text: clip(text, maxQuestion), db: label}
	if kind == sqlJob {
		j.text = text
	}
	b.deferAndSubmit(i, j, "/"+data.Name, received)
}

// allowedQuick checks what an interaction carries (guild, roles, the
// channel itself); a thread's parent is checked when its job runs.
func (b *Bot) allowedQuick(guild, channel string, roles []string, dm bool) bool {
	a := b.opt.Allow
	if dm {
		return b.allowed(context.Background(), guild, channel, roles, dm)
	}
	if len(a.Guilds) > 0 && !slices.Contains(a.Guilds, guild) {
		return false
	}
	return len(a.Roles) == 0 || slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(a.Roles, r) })
}

// deferAndSubmit queues j and acknowledges the interaction with a
// deferred response; the job answers through it.
func (b *Bot) deferAndSubmit(i *discordgo.Interaction, j *job, trigger string, received time.Time) {
	acked := make(chan error, 1)
	log := b.log.With("req", j.id, "conv", j.conv, "user", j.user, "trigger", trigger)
	j.checkChannel = len(b.opt.Allow.Channels) > 0 && i.GuildID != ""
	j.tokenLeft = func() time.Duration { return b.tokenTTL - time.Since(received) }
	j.target = &interactionTarget{
		s: b.s, i: i, received: received, ttl: b.tokenTTL, acked: acked, log: log,
		fallback: &channelTarget{s: b.s, channel: i.ChannelID, mention: j.user, log: log},
	}
	if !b.submit(j, trigger, func(msg string) { go b.respond(i, msg, true) }) {
		return
	}
	go func() {
		err := b.s.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource})
		if err != nil {
			log.Warn("acknowledge the interaction", "err", err)
		}
		acked <- err
	}()
}

// respond answers an interaction at once with a message, only for its
// user when ephemeral.
func (b *Bot) respond(i *discordgo.Interaction, text string, ephemeral bool) {
	data := &discordgo.InteractionResponseData{Content: clip(text, maxContent), AllowedMentions: noMentions}
	if ephemeral {
		data.Flags = discordgo.MessageFlagsEphemeral
	}
	err := b.s.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: data})
	if err != nil {
		b.log.Warn("respond to an interaction", "conv", i.ChannelID, "err", err)
	}
}

// Custom ids of components: tw:fu:NONCE (follow-up menu), tw:db:NONCE
// (database menu), tw:cl:NONCE:N (clarification option N), tw:cl:NONCE:x
// (cancel).
const customPrefix = "tw:"

func (b *Bot) onComponent(i *discordgo.Interaction, user string) {
	received := time.Now()
	data := i.MessageComponentData()
	f := strings.Split(data.CustomID, ":")
	if len(f) < 3 || f[0]+":" != customPrefix {
		return
	}
	kind, nonce := f[1], f[2]
	p := b.mem.get(nonce)
	if p == nil {
		go b.respond(i, "This is no longer open — ask again with `/ask` or by mentioning me.", true)
		return
	}
	if p.asker != user {
		go b.respond(i, fmt.Sprintf("Only <@%s> can use this. Ask your own question with `/ask` or by mentioning me.", p.asker), true)
		return
	}
	pick := func() (int, bool) {
		v := ""
		if len(data.Values) > 0 {
			v = data.Values[0]
		} else if len(f) > 3 {
			v = f[3]
		}
		n, err := strconv.Atoi(v)
		return n, err == nil && n >= 0 && n < len(p.options)
	}
	j := &job{id: newNonce(), kind: askJob, conv: p.conv, user: user}
	trigger, consume := "", false
	switch kind {
	case "fu":
		n, ok := pick()
		if !ok {
			return
		}
		j.text, j.db, trigger = p.options[n], p.db, "follow-up"
		if b.mem.openIn(p.conv) != nil {
			b.mem.closeOpen(p.conv)
		}
	case "cl":
		if len(f) > 3 && f[3] == "x" {
			if b.mem.take(nonce) != nil {
				go b.respond(i, "Dropped the open question. Ask another whenever you like.", false)
			}
			return
		}
		n, ok := pick()
		if !ok {
			return
		}
		j.text, j.db, trigger, consume = clarified(p.question, p.asked, p.options[n]), p.db, "clarification", true
	case "db":
		n, ok := pick()
		if !ok {
			return
		}
		j.text, j.db, trigger, consume = p.question, p.options[n], "database pick", true
		if p.sql {
			j.kind = sqlJob
		}
	default:
		return
	}
	if ok, wait, _ := b.limiter.take(user); !ok {
		go b.respond(i, slowDown(b.opt.UserRate, wait), true)
		return
	}
	if consume && b.mem.take(nonce) == nil {
		go b.respond(i, "That question was already answered.", true)
		return
	}
	b.deferAndSubmit(i, j, trigger, received)
}
