package discord

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// target is where a reply goes: a channel (a reply to a message), or an
// interaction's deferred response.
type target interface {
	// send posts parts in order and returns the ids of the messages.
	send(ctx context.Context, parts []part) ([]string, error)
	// working shows that an answer is on its way until stop is called.
	working(ctx context.Context) (stop func())
}

// noMentions keeps replies from pinging anyone: model and database text
// may hold @everyone or <@id>.
var noMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}

// channelTarget replies in a channel, the first message as a reply to
// the message that asked.
type channelTarget struct {
	s       *discordgo.Session
	channel string
	ref     *discordgo.MessageReference
	// mention, when set, starts the first message (a reply that could not
	// go through its interaction names its asker instead).
	mention string
	log     *slog.Logger
}

func (t *channelTarget) send(ctx context.Context, parts []part) ([]string, error) {
	var ids []string
	for i, p := range parts {
		m := &discordgo.MessageSend{Content: p.content, Components: p.components, AllowedMentions: noMentions}
		if i == 0 {
			m.Reference = t.ref
			if t.mention != "" {
				m.Content = clip("<@"+t.mention+"> "+m.Content, maxContent)
				m.AllowedMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{t.mention}}
			}
		}
		for _, f := range p.files {
			m.Files = append(m.Files, f.file())
		}
		msg, err := t.s.ChannelMessageSendComplex(t.channel, m, discordgo.WithContext(ctx))
		if err != nil && len(p.files) > 0 && ctx.Err() == nil {
			// The files were refused (too large for this server, say) or
			// did not get through: the text still goes, saying so.
			t.log.Warn("attachments refused; sending the text without them", "err", err)
			m.Files = nil
			m.Content = withoutFiles(part{content: m.Content}).content
			msg, err = t.s.ChannelMessageSendComplex(t.channel, m, discordgo.WithContext(ctx))
		}
		if err != nil && m.Reference != nil && rejected(err) {
			// The message asked about is gone: answer without the reply.
			m.Reference = nil
			msg, err = t.s.ChannelMessageSendComplex(t.channel, m, discordgo.WithContext(ctx))
		}
		if err != nil {
			return ids, err
		}
		ids = append(ids, msg.ID)
	}
	return ids, nil
}

const filesRefused = "-# the attachments could not be uploaded (too large for this server, or the upload failed)"

// typingEvery renews the typing indicator, which Discord shows for 10 s.
const typingEvery = 8 * time.Second

func (t *channelTarget) working(ctx context.Context) func() {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		for {
			if err := t.s.ChannelTyping(t.channel, discordgo.WithContext(ctx)); err != nil && ctx.Err() == nil {
				t.log.Debug("typing indicator", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(typingEvery):
			}
		}
	}()
	return cancel
}

// interactionTarget answers an interaction that was acknowledged with a
// deferred response: the first message edits it, the rest follow up. An
// interaction token lasts 15 minutes; past ttl, or when Discord refuses
// the token, the reply goes to the channel instead, naming the asker.
type interactionTarget struct {
	s        *discordgo.Session
	i        *discordgo.Interaction
	received time.Time
	ttl      time.Duration
	// acked delivers the result of the deferred response.
	acked    <-chan error
	fallback *channelTarget
	log      *slog.Logger
}

func (t *interactionTarget) send(ctx context.Context, parts []part) ([]string, error) {
	var ackErr error
	select {
	case ackErr = <-t.acked:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if ackErr != nil || time.Since(t.received) > t.ttl {
		t.log.Warn("answering in the channel: the interaction can no longer be answered", "ack_err", ackErr, "age", time.Since(t.received).Round(time.Second))
		return t.fallback.send(ctx, parts)
	}
	var ids []string
	for i, p := range parts {
		msg, err := t.post(ctx, i == 0, p)
		if err != nil && len(p.files) > 0 && !tokenGone(err) && ctx.Err() == nil {
			t.log.Warn("attachments refused; sending the text without them", "err", err)
			msg, err = t.post(ctx, i == 0, withoutFiles(p))
		}
		if err != nil && tokenGone(err) {
			t.log.Warn("interaction token refused; answering in the channel", "err", err)
			rest, err := t.fallback.send(ctx, parts[i:])
			return append(ids, rest...), err
		}
		if err != nil {
			return ids, err
		}
		if msg != nil {
			ids = append(ids, msg.ID)
		}
	}
	return ids, nil
}

// post edits the deferred response (first) or adds a follow-up message.
func (t *interactionTarget) post(ctx context.Context, first bool, p part) (*discordgo.Message, error) {
	var files []*discordgo.File
	for _, f := range p.files {
		files = append(files, f.file())
	}
	if first {
		content, comps := p.content, p.components
		if comps == nil {
			comps = []discordgo.MessageComponent{}
		}
		return t.s.InteractionResponseEdit(t.i, &discordgo.WebhookEdit{Content: &content, Components: &comps, Files: files, AllowedMentions: noMentions}, discordgo.WithContext(ctx))
	}
	return t.s.FollowupMessageCreate(t.i, true, &discordgo.WebhookParams{Content: p.content, Components: p.components, Files: files, AllowedMentions: noMentions}, discordgo.WithContext(ctx))
}

// withoutFiles is p without its files, saying so above its footer.
func withoutFiles(p part) part {
	p.files = nil
	text := cutTo(p.content, maxContent-textLen(filesRefused)-1)
	if i := strings.LastIndex(text, "\n-# "); i >= 0 && i == strings.LastIndex(p.content, "\n-# ") {
		p.content = text[:i] + "\n" + filesRefused + text[i:]
	} else {
		p.content = closeFence(cutTo(text, maxContent-textLen(filesRefused)-5)) + "\n" + filesRefused
	}
	return p
}

func (t *interactionTarget) working(context.Context) func() {
	return func() {} // the deferred response shows "thinking…"
}

// rejected says whether Discord refused a request as such (4xx other
// than a rate limit, which discordgo waits out).
func rejected(err error) bool {
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 && re.Response.StatusCode != http.StatusTooManyRequests
}

// tokenGone says whether Discord refused an interaction token: expired
// (after 15 minutes) or unknown.
func tokenGone(err error) bool {
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Response == nil {
		return false
	}
	if re.Message != nil && (re.Message.Code == discordgo.ErrCodeInvalidWebhookTokenProvided || re.Message.Code == discordgo.ErrCodeUnknownWebhook || re.Message.Code == discordgo.ErrCodeUnknownInteraction) {
		return true
	}
	return re.Response.StatusCode == http.StatusUnauthorized || re.Response.StatusCode == http.StatusNotFound
}
