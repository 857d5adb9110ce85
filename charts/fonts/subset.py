#!/usr/bin/python3
"""Rebuild cjk-subset.otf, the CJK font the PNG charts fall back to.

It is Noto Sans CJK JP Regular (SIL Open Font License 1.1, see OFL.txt)
cut down to the characters people write most: kana, CJK punctuation and
full-width forms, the 2,350 Hangul syllables of KS X 1001, and the Han
characters of JIS X 0208 (levels 1 and 2), GB 2312 (levels 1 and 2) and
Big5's frequently used set, plus every CJK character of the built-in sample
database. The family is renamed, as the licence asks of a modified font.

Needs Debian's fonts-noto-cjk and fonttools (python3-fonttools):

    apt-get install fonts-noto-cjk fonttools
    charts/fonts/subset.py   (from the repository root)
"""
import sqlite3
import subprocess
import sys
import tempfile

SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"  # face 0 is JP
OUT = "charts/fonts/cjk-subset.otf"
FAMILY = "Tablewise CJK Subset"
RANGES = ",".join([
    "U+3000-303F",  # CJK symbols and punctuation
    "U+3040-30FF",  # hiragana, katakana
    "U+31F0-31FF",  # katakana phonetic extensions
    "U+3130-318F",  # Hangul compatibility jamo
    "U+FF01-FFE6",  # full-width and half-width forms
])


def decode_all(encoding, leads, trails):
    chars = set()
    for a in leads:
        for b in trails:
            try:
                chars.add(bytes([a, b]).decode(encoding))
            except UnicodeDecodeError:
                pass
    return chars


def han(chars):
    return {c for c in chars if 0x4E00 <= ord(c) <= 0x9FFF}


def main():
    chars = set()
    chars |= {c for c in decode_all("euc-kr", range(0xB0, 0xC9), range(0xA1, 0xFF)) if 0xAC00 <= ord(c) <= 0xD7A3}
    chars |= han(decode_all("euc-jp", range(0xB0, 0xF5), range(0xA1, 0xFF)))
    chars |= han(decode_all("gb2312", range(0xB0, 0xF8), range(0xA1, 0xFF)))
    chars |= han(decode_all("big5", range(0xA4, 0xC7), range(0x40, 0xFF)))
    db = sqlite3.connect("file:data/sample.db?mode=ro", uri=True)
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        for col in [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]:
            for (v,) in db.execute(f'SELECT DISTINCT "{col}" FROM "{table}" WHERE typeof("{col}") = \'text\''):
                chars |= {c for c in v if ord(c) >= 0x2E80}
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as text:
        text.write("".join(sorted(chars)))
        text.flush()
        subprocess.run(["pyftsubset", SOURCE, "--font-number=0", "--text-file=" + text.name,
                        "--unicodes=" + RANGES, "--layout-features=", "--no-hinting",
                        "--name-IDs=*", "--output-file=" + OUT], check=True)
    from fontTools.ttLib import TTFont
    font = TTFont(OUT)
    for rec in font["name"].names:
        if rec.nameID in (1, 4, 16):
            rec.string = FAMILY
        elif rec.nameID in (3, 6):
            rec.string = FAMILY.replace(" ", "") + "-Regular"
    font["CFF "].cff.fontNames = [FAMILY.replace(" ", "") + "-Regular"]
    font.save(OUT)
    print(f"{OUT}: {len(chars)} characters from the lists, {font['maxp'].numGlyphs} glyphs", file=sys.stderr)


if __name__ == "__main__":
    main()
