package charts

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/iterm2"
	"github.com/charmbracelet/x/ansi/sixel"
	xdraw "golang.org/x/image/draw"
)

// Protocol is a way of showing an image inline in a terminal.
type Protocol int

// Terminal image protocols.
const (
	None   Protocol = iota // no inline images: draw a text chart
	Kitty                  // the Kitty graphics protocol (kitty, Ghostty)
	ITerm2                 // iTerm2's OSC 1337 inline files (iTerm2, WezTerm)
	Sixel                  // DEC sixel graphics (foot, mlterm, …)
)

// String names the protocol.
func (p Protocol) String() string {
	switch p {
	case Kitty:
		return "kitty"
	case ITerm2:
		return "iterm2"
	case Sixel:
		return "sixel"
	}
	return "none"
}

// ImageProtocolEnv overrides detection: "kitty", "iterm2", "sixel", or
// "none" (also "off", "0").
const ImageProtocolEnv = "TABLEWISE_IMAGE_PROTOCOL"

// DetectImageProtocol guesses which inline image protocol the terminal
// speaks from environment variables alone (env is usually os.Getenv). It
// never queries the terminal, so it writes nothing and leaves no reply
// bytes in the input stream; the price is that it only knows terminals
// that announce themselves:
//
//   - TABLEWISE_IMAGE_PROTOCOL, when set, decides;
//   - inside tmux or screen (TMUX, STY, TERM=screen*/tmux*) it says None:
//     multiplexers drop or garble image sequences unless passthrough is
//     configured;
//   - Kitty for KITTY_WINDOW_ID, TERM=xterm-kitty, and Ghostty
//     (TERM_PROGRAM=ghostty, TERM=xterm-ghostty, GHOSTTY_RESOURCES_DIR);
//   - ITerm2 for TERM_PROGRAM=iTerm.app or LC_TERMINAL=iTerm2, and for
//     WezTerm (TERM_PROGRAM=WezTerm, WEZTERM_EXECUTABLE);
//   - Sixel for TERM foot*, mlterm*, yaft* or any TERM naming sixel;
//   - None otherwise, including for TERM=dumb.
func DetectImageProtocol(env func(string) string) Protocol {
	if env == nil {
		return None
	}
	switch strings.ToLower(strings.TrimSpace(env(ImageProtocolEnv))) {
	case "kitty":
		return Kitty
	case "iterm2", "iterm":
		return ITerm2
	case "sixel":
		return Sixel
	case "none", "off", "0", "no", "false":
		return None
	}
	term := strings.ToLower(env("TERM"))
	prog := strings.ToLower(env("TERM_PROGRAM"))
	switch {
	case term == "dumb":
		return None
	case env("TMUX") != "" || env("STY") != "" || strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "tmux") || prog == "tmux":
		return None
	case env("KITTY_WINDOW_ID") != "" || term == "xterm-kitty":
		return Kitty
	case prog == "ghostty" || term == "xterm-ghostty" || env("GHOSTTY_RESOURCES_DIR") != "":
		return Kitty
	case prog == "iterm.app" || env("LC_TERMINAL") == "iTerm2":
		return ITerm2
	case prog == "wezterm" || env("WEZTERM_EXECUTABLE") != "":
		return ITerm2
	case strings.HasPrefix(term, "foot") || strings.HasPrefix(term, "mlterm") || strings.HasPrefix(term, "yaft") || strings.Contains(term, "sixel"):
		return Sixel
	}
	return None
}

// kittyChunk is the largest base64 payload of one Kitty graphics escape.
const kittyChunk = 4096

// Assumed size of a terminal cell in pixels when an image must be scaled
// before it is sent (Sixel): terminals do not say without a query.
const (
	cellPixelsW = 10
	cellPixelsH = 20
)

// EncodeImage returns the escape sequence that shows a PNG inline in a
// terminal speaking protocol p, scaled into cols x rows cells (0 lets the
// terminal use the image's own size):
//
//   - Kitty: the graphics protocol with the PNG sent as is (f=100), in
//     base64 chunks of at most 4096 bytes, displayed at once (a=T) with
//     replies suppressed (q=2) so nothing comes back on stdin;
//   - ITerm2: OSC 1337 File=inline=1 with the size in cells and the aspect
//     ratio kept;
//   - Sixel: the image decoded, scaled to fit cols x rows cells assuming
//     10x20-pixel cells, quantized to at most 256 colors and encoded as
//     sixels — large and slower than the others, and the cell size is a
//     guess;
//   - None: an error.
//
// The cursor ends below or beside the image, as the terminal decides.
//
// Bubble Tea v2 drops image escape sequences that appear inside a View's
// content, so a TUI must write the result outside the view (for example
// with tea.Raw) after reserving the cells it will cover.
func EncodeImage(p Protocol, pngData []byte, cols, rows int) (string, error) {
	if !bytes.HasPrefix(pngData, []byte("\x89PNG\r\n\x1a\n")) {
		return "", errors.New("encode image: not a png")
	}
	cols, rows = max(0, cols), max(0, rows)
	switch p {
	case Kitty:
		return kittyImage(pngData, cols, rows), nil
	case ITerm2:
		f := iterm2.File{
			Name:    base64.StdEncoding.EncodeToString([]byte("chart.png")),
			Size:    int64(len(pngData)),
			Inline:  true,
			Content: []byte(base64.StdEncoding.EncodeToString(pngData)),
		}
		if cols > 0 {
			f.Width = iterm2.Cells(cols)
		}
		if rows > 0 {
			f.Height = iterm2.Cells(rows)
		}
		return ansi.ITerm2(f), nil
	case Sixel:
		return sixelImage(pngData, cols, rows)
	}
	return "", fmt.Errorf("encode image: protocol %s shows no images", p)
}

// kittyImage splits the base64 PNG into chunks: the first carries the
// options, every chunk but the last says m=1.
func kittyImage(pngData []byte, cols, rows int) string {
	payload := base64.StdEncoding.EncodeToString(pngData)
	opts := []string{"a=T", "f=100", "q=2"}
	if cols > 0 {
		opts = append(opts, "c="+strconv.Itoa(cols))
	}
	if rows > 0 {
		opts = append(opts, "r="+strconv.Itoa(rows))
	}
	var b strings.Builder
	b.Grow(len(payload) + len(payload)/kittyChunk*16 + 64)
	for first := true; first || payload != ""; first = false {
		n := min(kittyChunk, len(payload))
		chunk := payload[:n]
		payload = payload[n:]
		var o []string
		if first {
			o = append(o, opts...)
		} else {
			o = append(o, "q=2")
		}
		if payload != "" {
			o = append(o, "m=1")
		} else if !first {
			o = append(o, "m=0")
		}
		b.WriteString(ansi.KittyGraphics([]byte(chunk), o...))
	}
	return b.String()
}

// sixelImage decodes, scales and sixel-encodes a PNG.
func sixelImage(pngData []byte, cols, rows int) (string, error) {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return "", fmt.Errorf("encode image: %w", err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if cols > 0 && rows > 0 && w > 0 && h > 0 {
		maxW, maxH := cols*cellPixelsW, rows*cellPixelsH
		scale := min(float64(maxW)/float64(w), float64(maxH)/float64(h), 1)
		if scale < 1 {
			w, h = max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
			img = dst
		}
	}
	var payload bytes.Buffer
	if err := (&sixel.Encoder{}).Encode(&payload, img); err != nil {
		return "", fmt.Errorf("encode image: %w", err)
	}
	return ansi.SixelGraphics(0, 1, 0, payload.Bytes()), nil
}
