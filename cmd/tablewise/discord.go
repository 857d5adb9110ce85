package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablewise/tablewise/bridge/discord"
)

// discordTokenEnv holds the bot token; it is never taken from a flag, so
// it stays out of shell history and process listings.
const discordTokenEnv = "DISCORD_BOT_TOKEN"

const discordUsage = `tablewise discord — answer questions about the database in Discord, read-only

Usage:
  tablewise discord [--db PATH ...] [--allow-guild ID ...] [--allow-channel ID ...] [--allow-role ID ...]

The bot token comes from DISCORD_BOT_TOKEN. The bot answers a mention, a direct
message, a reply to its open question, and the slash commands /ask and /sql.
HTTPS_PROXY, NO_PROXY and SSL_CERT_FILE apply to all its connections.

Flags:
  --db PATH             a SQLite file, a postgres:// or mysql:// URL, or data files to serve;
                        repeat for several (LABEL=PATH names one; a question goes to the
                        database it fits, or a menu asks). Default: the built-in sample.
  --allow-guild ID      answer only in this server (repeatable); also registers the slash
                        commands there, where they appear at once
  --allow-channel ID    answer only in this channel and its threads (repeatable)
  --allow-role ID       answer only members with this role (repeatable)
                        (a DM has no server and no roles: with --allow-guild or --allow-role
                        the bot does not answer DMs)
  --user-rate N/PERIOD  questions per person, e.g. 5/1m (default), 20/1h; 0 for no limit
  --deadline DURATION   time for one question, from its arrival to its answer (default 2m)
  --upload-limit MiB    most a message may upload: the CSV and the chart (default 10, Discord's
                        limit for servers without boosts)
  --log-level LEVEL     debug, info, warn or error (default info); logs go to stderr
  --provider, --model   who answers: a model when one is configured (ANTHROPIC_API_KEY,
                        OPENAI_API_KEY…), else the built-in planner
  --trace FILE          append a JSON line per model and tool call to FILE

Setup (Developer Portal, invite URL, permissions): see the README, section "Discord".
`

// runDiscord runs the Discord bot until ctx ends (SIGINT or SIGTERM),
// letting the answers in flight finish.
func runDiscord(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("discord")
	var dbs, guilds, channels, roles stringList
	fs.Var(&dbs, "db", "SQLite file, postgres:// or mysql:// URL, or data files to serve (repeatable; LABEL=PATH names it)")
	fs.Var(&guilds, "allow-guild", "server id to answer in (repeatable)")
	fs.Var(&channels, "allow-channel", "channel id to answer in (repeatable)")
	fs.Var(&roles, "allow-role", "role id a member needs (repeatable)")
	rate := fs.String("user-rate", "5/1m", "questions per person: N/PERIOD, or 0 for no limit")
	deadline := fs.Duration("deadline", discord.DefaultDeadline, "time for one question")
	upload := fs.Int("upload-limit", discord.DefaultUploadLimit>>20, "most a message may upload, in MiB")
	mf, logger, err := parseServer(fs, args, discordUsage, s)
	if err != nil || logger == nil {
		return err
	}
	userRate, err := parseRate(*rate)
	if err != nil {
		return usagef("discord: --user-rate %q: %v", *rate, err)
	}
	if *deadline <= 0 {
		return usagef("discord: --deadline must be positive, e.g. 2m")
	}
	if *upload <= 0 || *upload > 500 {
		return usagef("discord: --upload-limit %d: give MiB between 1 and 500", *upload)
	}
	token := strings.TrimSpace(s.getenv(discordTokenEnv))
	if token == "" {
		return usagef("discord: %v", discord.ErrNoToken)
	}

	// One conversation per channel, thread or DM.
	opened, svc, closeAll, err := openServed(ctx, s, dbs, mf, logger, "answering with")
	if err != nil {
		return err
	}
	defer closeAll()
	bot, err := discord.New(discord.Options{
		Token: token, Databases: opened, Ask: svc, Logger: logger,
		Allow:    discord.Allow{Guilds: guilds, Channels: channels, Roles: roles},
		UserRate: userRate, Deadline: *deadline, UploadLimit: *upload << 20,
	})
	if err != nil {
		return err
	}
	err = bot.Run(ctx)
	switch {
	case errors.Is(err, discord.ErrTokenRejected), errors.Is(err, discord.ErrIntents), errors.Is(err, discord.ErrNoToken):
		return usagef("discord: %v", err)
	case err != nil:
		return fmt.Errorf("discord: %w", err)
	}
	return nil
}

// parseRate reads N/PERIOD ("5/1m", "20/1h", "1/10s"); "0" or "off" is no
// limit.
func parseRate(v string) (discord.Rate, error) {
	v = strings.TrimSpace(v)
	if v == "0" || strings.EqualFold(v, "off") {
		return discord.Rate{N: -1}, nil
	}
	n, per, ok := strings.Cut(v, "/")
	if !ok {
		return discord.Rate{}, errors.New("write it as N/PERIOD, e.g. 5/1m, or 0 for no limit")
	}
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || count <= 0 {
		return discord.Rate{}, errors.New("N must be a whole number above 0, e.g. 5/1m")
	}
	per = strings.TrimSpace(per)
	if len(per) > 0 && (per[0] < '0' || per[0] > '9') {
		per = "1" + per // "5/m" means 5/1m
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return discord.Rate{}, errors.New("PERIOD must be a duration such as 1m, 30s or 1h")
	}
	return discord.Rate{N: count, Per: d}, nil
}
