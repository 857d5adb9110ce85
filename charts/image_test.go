package charts

import (
	"bytes"
	"context"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

func TestDetectImageProtocol(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Protocol
	}{
		{"nothing", nil, None},
		{"plain xterm", map[string]string{"TERM": "xterm-256color"}, None},
		{"dumb", map[string]string{"TERM": "dumb", "KITTY_WINDOW_ID": "1"}, None},
		{"kitty window", map[string]string{"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"}, Kitty},
		{"kitty term", map[string]string{"TERM": "xterm-kitty"}, Kitty},
		{"ghostty", map[string]string{"TERM": "xterm-ghostty", "TERM_PROGRAM": "ghostty"}, Kitty},
		{"iterm2", map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, ITerm2},
		{"iterm2 over ssh", map[string]string{"TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"}, ITerm2},
		{"wezterm program", map[string]string{"TERM_PROGRAM": "WezTerm"}, ITerm2},
		{"wezterm executable", map[string]string{"TERM": "xterm-256color", "WEZTERM_EXECUTABLE": "/usr/bin/wezterm-gui"}, ITerm2},
		{"foot", map[string]string{"TERM": "foot"}, Sixel},
		{"mlterm", map[string]string{"TERM": "mlterm"}, Sixel},
		{"tmux hides kitty", map[string]string{"TERM": "tmux-256color", "KITTY_WINDOW_ID": "1", "TMUX": "/tmp/tmux-0/default,1,0"}, None},
		{"screen", map[string]string{"TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"}, None},
		{"override wins", map[string]string{"TERM": "xterm", ImageProtocolEnv: "sixel"}, Sixel},
		{"override off", map[string]string{"TERM": "xterm-kitty", ImageProtocolEnv: "none"}, None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DetectImageProtocol(func(k string) string { return tt.env[k] })
			if got != tt.want {
				t.Errorf("DetectImageProtocol = %v, want %v", got, tt.want)
			}
		})
	}
	if got := DetectImageProtocol(nil); got != None {
		t.Errorf("DetectImageProtocol(nil) = %v, want none", got)
	}
}

func testPNG(t *testing.T) []byte {
	t.Helper()
	b, err := PNG(context.Background(), goldenCases[0].spec, genreSales(1), Options{Width: 600, Height: 400})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var kittyRe = regexp.MustCompile(`\x1b_G([^;\x1b]*)(?:;([A-Za-z0-9+/=]*))?\x1b\\`)

func TestEncodeImageKitty(t *testing.T) {
	img := testPNG(t)
	out, err := EncodeImage(Kitty, img, 60, 20)
	if err != nil {
		t.Fatal(err)
	}
	ms := kittyRe.FindAllStringSubmatch(out, -1)
	if len(ms) < 2 {
		t.Fatalf("%d kitty escapes, want the image split into several chunks", len(ms))
	}
	if joined := len(strings.Join(func() []string {
		var all []string
		for _, m := range ms {
			all = append(all, m[0])
		}
		return all
	}(), "")); joined != len(out) {
		t.Errorf("output has %d bytes outside kitty escapes", len(out)-joined)
	}
	var payload strings.Builder
	for i, m := range ms {
		opts, chunk := m[1], m[2]
		if len(chunk) > 4096 {
			t.Errorf("chunk %d has %d bytes, more than 4096", i, len(chunk))
		}
		last := i == len(ms)-1
		switch {
		case i == 0:
			for _, want := range []string{"a=T", "f=100", "q=2", "c=60", "r=20", "m=1"} {
				if !strings.Contains(","+opts+",", ","+want+",") {
					t.Errorf("first chunk options %q lack %s", opts, want)
				}
			}
		case last:
			if !strings.Contains(opts, "m=0") {
				t.Errorf("last chunk options %q, want m=0", opts)
			}
		default:
			if !strings.Contains(opts, "m=1") || strings.Contains(opts, "f=100") {
				t.Errorf("middle chunk options %q, want m=1 only", opts)
			}
		}
		payload.WriteString(chunk)
	}
	got, err := base64.StdEncoding.DecodeString(payload.String())
	if err != nil || !bytes.Equal(got, img) {
		t.Errorf("reassembled payload is not the PNG (err %v)", err)
	}
}

func TestEncodeImageITerm2(t *testing.T) {
	img := testPNG(t)
	out, err := EncodeImage(ITerm2, img, 60, 20)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "\x1b]1337;File=") || !strings.HasSuffix(out, "\x07") {
		t.Fatalf("not an OSC 1337 sequence: %q…", out[:min(40, len(out))])
	}
	head, content, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(out, "\x1b]1337;File="), "\x07"), ":")
	if !ok {
		t.Fatal("no content after the arguments")
	}
	for _, want := range []string{"inline=1", "width=60", "height=20"} {
		if !strings.Contains(head, want) {
			t.Errorf("arguments %q lack %s", head, want)
		}
	}
	if got, err := base64.StdEncoding.DecodeString(content); err != nil || !bytes.Equal(got, img) {
		t.Errorf("content is not the base64 PNG (err %v)", err)
	}
}

func TestEncodeImageSixel(t *testing.T) {
	out, err := EncodeImage(Sixel, testPNG(t), 30, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "\x1bP") || !strings.HasSuffix(out, "\x1b\\") {
		t.Fatalf("not a DCS sequence: %q…", out[:min(20, len(out))])
	}
	// The raster attributes say the scaled size: 30x10 cells of 10x20
	// pixels hold at most 300x200 of a 600x400 image.
	m := regexp.MustCompile(`q"1;1;(\d+);(\d+)`).FindStringSubmatch(out)
	if m == nil || m[1] != "300" || m[2] != "200" {
		t.Errorf("raster attributes %v, want 300x200", m)
	}
}

func TestEncodeImageErrors(t *testing.T) {
	if _, err := EncodeImage(None, testPNG(t), 10, 10); err == nil {
		t.Error("EncodeImage(None): no error")
	}
	if _, err := EncodeImage(Kitty, []byte("GIF89a"), 10, 10); err == nil {
		t.Error("EncodeImage of a non-PNG: no error")
	}
}
