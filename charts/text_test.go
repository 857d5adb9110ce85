package charts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

func TestTextFitsExactly(t *testing.T) {
	sizes := [][2]int{{40, 10}, {80, 20}, {10, 3}, {8, 2}, {120, 6}}
	for _, c := range goldenCases {
		res := c.res()
		for _, color := range []bool{false, true} {
			for _, sz := range sizes {
				w, h := sz[0], sz[1]
				t.Run(fmt.Sprintf("%s/%dx%d/color=%v", c.name, w, h, color), func(t *testing.T) {
					out, err := TextWithOptions(c.spec, res, w, h, TextOptions{Color: color})
					if err != nil {
						t.Fatal(err)
					}
					lines := strings.Split(out, "\n")
					if len(lines) != h {
						t.Fatalf("%d lines, want %d:\n%s", len(lines), h, out)
					}
					ink := 0
					for i, l := range lines {
						if got := ansi.StringWidth(l); got != w {
							t.Errorf("line %d is %d cells wide, want %d: %q", i, got, w, l)
						}
						ink += len(strings.TrimSpace(ansi.Strip(l)))
					}
					if ink == 0 {
						t.Error("the chart is blank")
					}
					hasEsc := strings.Contains(out, "\x1b[")
					if hasEsc != color {
						t.Errorf("escape sequences present = %v, want %v", hasEsc, color)
					}
				})
			}
		}
	}
}

func TestTextTooSmall(t *testing.T) {
	if _, err := Text(goldenCases[0].spec, goldenCases[0].res(), 7, 10); err == nil {
		t.Error("Text at 7 cells wide: no error")
	}
	if _, err := Text(goldenCases[0].spec, goldenCases[0].res(), 40, 1); err == nil {
		t.Error("Text at 1 line: no error")
	}
}

func TestTextRefusesBadSpec(t *testing.T) {
	_, err := Text(answer.ChartSpec{Kind: answer.KindBar, X: "genre", Y: "genre"}, genreSales(1), 40, 10)
	if err == nil || !strings.Contains(err.Error(), `y column "genre" is TEXT, not numeric`) {
		t.Errorf("Text with a text y: %v", err)
	}
}

var pctRe = regexp.MustCompile(`(\d+\.\d)%`)

func TestTextPieSharesSumTo100(t *testing.T) {
	for _, sz := range [][2]int{{80, 20}, {40, 10}, {30, 4}} {
		out, err := Text(answer.ChartSpec{Kind: answer.KindPie, X: "media_type", Y: "tracks"}, pieShares(), sz[0], sz[1])
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		ms := pctRe.FindAllStringSubmatch(out, -1)
		for _, m := range ms {
			v, _ := strconv.ParseFloat(m[1], 64)
			sum += v
		}
		if len(ms) < 2 || fmt.Sprintf("%.1f", sum) != "100.0" {
			t.Errorf("%dx%d: %d shares summing to %.2f, want 100.0:\n%s", sz[0], sz[1], len(ms), sum, out)
		}
	}
}

func TestTextBarsShowValuesAndWhatIsLeftOut(t *testing.T) {
	out, err := Text(answer.ChartSpec{Kind: answer.KindBar, X: "customer", Y: "spend"}, manyCategories(40), 60, 12)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	// Title plus 11 lines: the 10 largest customers and how many more.
	if !strings.HasPrefix(lines[0], "Spend by customer") {
		t.Errorf("first line %q, want the title", lines[0])
	}
	last := lines[len(lines)-1]
	if strings.TrimSpace(last) != "… 30 more not shown" {
		t.Errorf("last line %q, want how many are not shown", last)
	}
	if !strings.Contains(out, "customer 26") || strings.Contains(out, "customer 01") {
		t.Errorf("the largest customer (26) is missing or the smallest (01) is shown:\n%s", out)
	}
	if !strings.Contains(lines[1], "█") || !strings.Contains(lines[1], ",") {
		t.Errorf("bar line %q, want blocks and a formatted value", lines[1])
	}
}

func TestTextBarLengthsFollowValues(t *testing.T) {
	res := result([]query.Column{{Name: "k", Type: "TEXT"}, {Name: "v", Type: "INTEGER"}},
		[]query.Row{{"a", int64(100)}, {"b", int64(50)}, {"c", int64(25)}})
	out, err := Text(answer.ChartSpec{Kind: answer.KindHBar, X: "k", Y: "v"}, res, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	n := func(l string) int { return strings.Count(l, "█") }
	if !(n(lines[0]) > n(lines[1]) && n(lines[1]) > n(lines[2])) || n(lines[0]) < 2*n(lines[1])-1 {
		t.Errorf("bar lengths %d, %d, %d do not follow 100, 50, 25:\n%s", n(lines[0]), n(lines[1]), n(lines[2]), out)
	}
}

func TestTextSanitizesLabels(t *testing.T) {
	res := result([]query.Column{{Name: "k", Type: "TEXT"}, {Name: "v", Type: "INTEGER"}},
		[]query.Row{{"evil\x1b]52;c;aGk=\x07name", int64(1)}, {"wide 漢字漢字漢字", int64(2)}})
	out, err := Text(answer.ChartSpec{Kind: answer.KindBar, X: "k", Y: "v"}, res, 24, 2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("control characters from the data reached the output: %q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w != 24 {
			t.Errorf("line %q is %d cells, want 24", l, w)
		}
	}
}
