package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablewise/tablewise/bridge/discord"
	"github.com/tablewise/tablewise/bridge/discord/discordtest"
	"github.com/tablewise/tablewise/core/testdb"
)

func TestDiscordNeedsAToken(t *testing.T) {
	t.Setenv(discordTokenEnv, "")
	code, _, errs := runCLI(t, "", "discord")
	if code != exitUsage || !strings.Contains(errs, "DISCORD_BOT_TOKEN") || !strings.Contains(errs, "Developer Portal") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

func TestDiscordFlags(t *testing.T) {
	t.Setenv(discordTokenEnv, "some-token-that-is-never-used")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--user-rate", "five"}, "--user-rate \"five\": write it as N/PERIOD"},
		{[]string{"--user-rate", "5/soon"}, "PERIOD must be a duration"},
		{[]string{"--deadline", "0s"}, "--deadline must be positive"},
		{[]string{"--upload-limit", "0"}, "--upload-limit 0"},
		{[]string{"--log-level", "loud"}, "unknown --log-level"},
		{[]string{"shop.db"}, "unexpected argument"},
	} {
		code, _, errs := runCLI(t, "", append([]string{"discord"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d: %s", c.args, code, errs)
		}
	}
	code, out, _ := runCLI(t, "", "discord", "--help")
	if code != 0 || !strings.Contains(out, "DISCORD_BOT_TOKEN") {
		t.Errorf("help: exit %d: %s", code, out)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]discord.Rate{
		"5/1m": {N: 5, Per: time.Minute}, "20/1h": {N: 20, Per: time.Hour}, "3/m": {N: 3, Per: time.Minute},
		" 1 / 10s ": {N: 1, Per: 10 * time.Second}, "0": {N: -1}, "off": {N: -1},
	} {
		got, err := parseRate(in)
		if err != nil || got != want {
			t.Errorf("parseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "5", "-1/1m", "x/1m", "5/0s", "5/later"} {
		if _, err := parseRate(in); err == nil {
			t.Errorf("parseRate(%q) accepted", in)
		}
	}
}

// TestDiscordThroughAProxy runs the tablewise binary as a user would,
// behind an HTTPS proxy (HTTPS_PROXY) with the certificate of "Discord"
// in SSL_CERT_FILE: the fake Discord serves TLS as discord.com and
// gateway.discord.gg, reachable only through the proxy, so the bot's REST
// calls and its gateway websocket both went through the proxy and trusted
// the certificate file. It answers a mention, stops on SIGTERM with exit
// 0, and never logs its token, even at debug level. A token Discord
// rejects ends startup with exit 2.
func TestDiscordThroughAProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: starts the tablewise binary behind a proxy (-short)")
	}
	const token = "MTA5ODc2NTQzMjEwOTg3NjU0.GxYzAb.proxy-test-token-0123"
	cert, pem := discordtest.Certificate(t, "discord.com", "gateway.discord.gg")
	dir := t.TempDir()
	certFile := filepath.Join(dir, "discord-ca.pem")
	if err := os.WriteFile(certFile, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	fake := discordtest.New(t, discordtest.Options{Token: token, TLS: &cert, GatewayURL: "wss://gateway.discord.gg"})
	proxy := discordtest.NewProxy(t, fake.Addr())

	env := []string{"HTTPS_PROXY=" + proxy.URL, "SSL_CERT_FILE=" + certFile, "SSL_CERT_DIR=" + dir,
		"TABLEWISE_PROVIDER=offline", "HOME=" + dir, "XDG_STATE_HOME=" + dir, "NO_COLOR=1"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasSuffix(strings.ToUpper(k), "_PROXY"), strings.HasPrefix(k, "SSL_CERT"), strings.HasPrefix(k, "ANTHROPIC_"),
			strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "TABLEWISE_"), k == "HOME", k == "XDG_STATE_HOME", k == discordTokenEnv:
			continue
		}
		env = append(env, kv)
	}

	t.Run("rejected token", func(t *testing.T) {
		cmd := exec.Command(binPath, "discord")
		cmd.Env = append(slices.Clone(env), discordTokenEnv+"=not-the-right-token-0000")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitUsage || !strings.Contains(string(out), "Discord rejected the bot token in DISCORD_BOT_TOKEN") {
			t.Fatalf("want exit 2 and the reason; got %v:\n%s", err, out)
		}
		if strings.Contains(string(out), "not-the-right-token-0000") {
			t.Error("the token is in the output")
		}
	})

	cmd := exec.Command(binPath, "discord", "--log-level", "debug")
	cmd.Env = append(slices.Clone(env), discordTokenEnv+"="+token)
	stderr := &testdb.Buffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	fake.WaitFor(t, "the slash commands", 30*time.Second, func() bool { return len(fake.Commands("")) == 2 })
	id := fake.Send(t, discordtest.Msg{Channel: "300000000000000001", Guild: "200000000000000001",
		Author: discordtest.User{ID: "100000000000000001", Name: "ann"}, Content: "<@" + discordtest.BotID + "> How many customers are there?", MentionBot: true})
	got := fake.WaitMessages(t, 1, func(m discordtest.Message) bool { return m.Reference != nil && m.Reference.MessageID == id })
	if !strings.HasPrefix(got[0].Content, "There are 2,400 customers.") {
		t.Errorf("answer: %q", got[0].Content)
	}
	hosts := proxy.Hosts()
	if !slices.Contains(hosts, "discord.com:443") || !slices.Contains(hosts, "gateway.discord.gg:443") {
		t.Errorf("the proxy saw %q; want the REST API and the gateway", hosts)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", waitErr, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit 30 s after SIGTERM\n%s", stderr.String())
	}
	logs := stderr.String()
	for _, want := range []string{"connected to Discord", "Identify Packet", "shutting down", "msg=stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q", want)
		}
	}
	if strings.Contains(logs, token) {
		t.Errorf("the token is in the logs")
	}
	if rej := fake.Rejects(); len(rej) > 0 {
		t.Errorf("the fake Discord refused: %q", rej)
	}
	if t.Failed() {
		t.Logf("logs:\n%s", logs)
	}
}
