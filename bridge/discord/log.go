package discord

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// The bot token must never reach a log: every log line the bot writes,
// and every line discordgo writes, passes through redact, which replaces
// the tokens this process was given and the interaction and webhook
// tokens inside Discord URLs.

var (
	secretsMu sync.RWMutex
	secrets   []string
)

// rememberSecret adds a token to the ones redact removes.
func rememberSecret(s string) {
	if len(s) < 8 {
		return // too short to search for without mangling ordinary text
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	for _, x := range secrets {
		if x == s {
			return
		}
	}
	secrets = append(secrets, s)
}

// urlToken matches the token in webhook and interaction URLs:
// /webhooks/ID/TOKEN, /interactions/ID/TOKEN; jsonToken a "token" field
// of a gateway payload (an interaction's, at debug level).
var (
	urlToken  = regexp.MustCompile(`(/(?:webhooks|interactions)/[0-9]+/)[A-Za-z0-9_.\-]+`)
	jsonToken = regexp.MustCompile(`("token"\s*:\s*")[^"]*"`)
)

// redact removes secrets from s.
func redact(s string) string {
	secretsMu.RLock()
	for _, x := range secrets {
		if strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, "[redacted]")
		}
	}
	secretsMu.RUnlock()
	s = jsonToken.ReplaceAllString(s, `${1}[redacted]"`)
	return urlToken.ReplaceAllString(s, "${1}[redacted]")
}

// redactingHandler is a slog.Handler that redacts messages and attribute
// values before its inner handler sees them.
type redactingHandler struct{ h slog.Handler }

func redacting(h slog.Handler, token string) slog.Handler {
	rememberSecret(token)
	return redactingHandler{h}
}

func (r redactingHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = redactAttr(a)
	}
	return redactingHandler{r.h.WithAttrs(clean)}
}

func (r redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{r.h.WithGroup(name)}
}

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, redact(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = redactAttr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, redact(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, redact(x.String()))
		case []string:
			c := make([]string, len(x))
			for i, s := range x {
				c[i] = redact(s)
			}
			return slog.Any(a.Key, c)
		default:
			return slog.String(a.Key, redact(fmt.Sprint(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// libraryLog is where discordgo's own log lines go: the logger of the bot
// started last (discordgo has one logger per process).
var (
	libraryLog     atomic.Pointer[slog.Logger]
	libraryLogOnce sync.Once
)

// routeLibraryLogs sends discordgo's log lines to l, redacted, at the
// matching level.
func routeLibraryLogs(l *slog.Logger) {
	libraryLog.Store(l.With("source", "discordgo"))
	libraryLogOnce.Do(func() {
		discordgo.Logger = func(level, _ int, format string, a ...any) {
			l := libraryLog.Load()
			if l == nil {
				return
			}
			msg := redact(fmt.Sprintf(format, a...))
			switch level {
			case discordgo.LogError:
				l.Error(msg)
			case discordgo.LogWarning:
				l.Warn(msg)
			case discordgo.LogInformational:
				l.Info(msg)
			default:
				l.Debug(msg)
			}
		}
	})
}
