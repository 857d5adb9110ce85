// Command wngen extracts the word relations core/text embeds from a
// WordNet 3.0 database (Debian's wordnet-base installs one in
// /usr/share/wordnet):
//
//	go run ./core/text/internal/wngen -dict /usr/share/wordnet -out core/text/wordnet/related.txt.gz
//
// For every single-word lemma it keeps the senses people mostly mean (the
// first senses, ordered by WordNet's tagged frequency) and writes one line
//
//	stem<TAB>s:syn,syn<TAB>d:derived,…<TAB>1:hypernym,…<TAB>2:…
//
// with every word as text.Stem gives it (regenerate after a change to the
// stemmer).
//
// s: other words of the same senses; d: derivationally related words
// (die → death, teach → teacher); 1–2: the words of the hypernyms one to
// two levels up (clinic → medical institution → institution). Only single-word lemmas of letters appear. The output is
// sorted, so two runs on the same dictionary are byte-identical.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/text"
)

type ref struct {
	off int64
	idx int
	pos string
}

type synset struct {
	words []string
	hyper []int64
	// deriv[i]: derivation targets of word i.
	deriv map[int][]ref
	pos   byte
}

// maxSenses is how many senses of a lemma count: the first ones by
// tagged frequency.
const maxSenses = 2

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet dict directory")
	out := flag.String("out", "related.txt.gz", "output file")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		fmt.Fprintln(os.Stderr, "wngen:", err)
		os.Exit(1)
	}
}

func run(dict, out string) error {
	sets := map[string]map[int64]*synset{} // pos → offset → synset
	for _, pos := range []string{"noun", "verb", "adj"} {
		m, err := readData(filepath.Join(dict, "data."+pos))
		if err != nil {
			return err
		}
		sets[pos[:1]] = m
	}
	rel := map[string][4]map[string]bool{}
	add := func(lemma string, kind int, w string) {
		w = strings.ToLower(w)
		if !plain(w) {
			return
		}
		lemma, w = text.Stem(lemma), text.Stem(w)
		if w == lemma {
			return
		}
		r := rel[lemma]
		if r[kind] == nil {
			r[kind] = map[string]bool{}
		}
		r[kind][w] = true
		rel[lemma] = r
	}
	posOf := map[byte]string{'n': "n", 'v': "v", 'a': "a", 's': "a"}
	for _, pos := range []string{"noun", "verb", "adj"} {
		err := eachEntry(filepath.Join(dict, "index."+pos), func(line string) error {
			fs := strings.Fields(line)
			lemma := fs[0]
			if !plain(lemma) {
				return nil
			}
			nSenses, _ := strconv.Atoi(fs[2])
			nPtr, _ := strconv.Atoi(fs[3])
			tagged, _ := strconv.Atoi(fs[5+nPtr])
			offs := fs[6+nPtr:]
			if len(offs) != nSenses {
				return fmt.Errorf("index.%s: %s: %d senses, %d offsets", pos, lemma, nSenses, len(offs))
			}
			if tagged == 0 {
				// Only words people use: WordNet saw this lemma in its
				// sense-tagged texts.
				return nil
			}
			keep := min(tagged, maxSenses, len(offs))
			m := sets[pos[:1]]
			for _, o := range offs[:keep] {
				off, _ := strconv.ParseInt(o, 10, 64)
				s := m[off]
				if s == nil {
					continue
				}
				self := -1
				for i, w := range s.words {
					if strings.EqualFold(w, lemma) {
						self = i
					}
				}
				if self < 0 || s.words[self] != lemma {
					continue // a proper noun ("Born" the physicist)
				}
				for i, w := range s.words {
					if i != self {
						add(lemma, 0, w)
					}
				}
				for _, d := range s.deriv[self] {
					if t := sets[d.pos][d.off]; t != nil && d.idx < len(t.words) {
						add(lemma, 1, t.words[d.idx])
					}
				}
				// Hypernyms, nouns and verbs, three levels.
				level := []*synset{s}
				for depth := 2; depth <= 3; depth++ {
					var next []*synset
					for _, x := range level {
						for _, h := range x.hyper {
							if y := sets[posOf[x.pos]][h]; y != nil {
								next = append(next, y)
								for _, w := range y.words {
									add(lemma, depth, w)
								}
							}
						}
					}
					level = next
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	lemmas := make([]string, 0, len(rel))
	for l := range rel {
		lemmas = append(lemmas, l)
	}
	sort.Strings(lemmas)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	for _, l := range lemmas {
		r := rel[l]
		w.WriteString(l)
		for k, tag := range []string{"s", "d", "1", "2"} {
			if len(r[k]) == 0 {
				continue
			}
			ws := make([]string, 0, len(r[k]))
			for x := range r[k] {
				ws = append(ws, x)
			}
			sort.Strings(ws)
			w.WriteString("\t" + tag + ":" + strings.Join(ws, ","))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// plain: a single word of lower-case ASCII letters, three or more long.
func plain(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// eachEntry calls fn with each line of a WordNet file but its licence
// (the lines that start with a space), until fn fails.
func eachEntry(path string, fn func(line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, " ") {
			if err := fn(line); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

func readData(path string) (map[int64]*synset, error) {
	m := map[int64]*synset{}
	err := eachEntry(path, func(line string) error {
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		fs := strings.Fields(line)
		off, _ := strconv.ParseInt(fs[0], 10, 64)
		s := &synset{pos: fs[2][0], deriv: map[int][]ref{}}
		n, _ := strconv.ParseInt(fs[3], 16, 64)
		k := 4
		for range n {
			w := fs[k]
			if j := strings.IndexByte(w, '('); j > 0 {
				w = w[:j] // adjective markers: (a), (p), (ip)
			}
			s.words = append(s.words, w)
			k += 2
		}
		np, _ := strconv.Atoi(fs[k])
		k++
		for range np {
			sym, target, tpos, st := fs[k], fs[k+1], fs[k+2], fs[k+3]
			k += 4
			to, _ := strconv.ParseInt(target, 10, 64)
			switch sym {
			case "@", "@i":
				s.hyper = append(s.hyper, to)
			case "+":
				src, _ := strconv.ParseInt(st[:2], 16, 64)
				dst, _ := strconv.ParseInt(st[2:], 16, 64)
				if src > 0 && dst > 0 {
					if tpos == "s" {
						tpos = "a"
					}
					s.deriv[int(src-1)] = append(s.deriv[int(src-1)], ref{to, int(dst - 1), tpos})
				}
			}
		}
		m[off] = s
		return nil
	})
	return m, err
}
