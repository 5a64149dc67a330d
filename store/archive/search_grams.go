package archive

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"microblog/store"
)

// The search index keeps, for each post, the grams of its folded content
// (store.FoldWord): every run of one, two and three neighbouring characters
// that holds no white space, each once, except runs of three that hold a
// Chinese, Japanese or Korean character. A word of a query can be in a post
// only if all its grams are, so the index finds every post that may hold it
// (full recall), whatever its length: a 1- or 2-character word is a gram
// itself, a longer one is looked up by its grams of three and the pairs
// those do not cover. The posts found are then checked against their
// content (no false hits).
//
// Why these grams: a pair of Chinese characters is rare enough to find a
// word by (the CJK bigrams of Lucene and Bleve), while a pair of letters is
// not: a word such as "sonder" has only common pairs, so its pairs alone
// find sixty posts for each that holds it; its grams of three find those
// that hold it. Grams of three of Chinese text would cost as much to index
// as all the others together, and buy nothing (docs/performance.md).
//
// A gram is written as one token of the characters 0-9 and a-z, which every
// engine's tokenizer takes whole, in any script: 0-9 and a-w stand for
// themselves; any other character is x and three base-36 digits (up to
// U+B63F: Latin, Greek, Cyrillic, CJK) or y and four. The code is
// prefix-free, so a token names one gram: 天 is xhm1, 天气 xhm1xlck, "the"
// is the.

// gram is one to three runes, the first in the high bits, 21 bits each;
// unused places are zero (NUL is never in content).
type gram uint64

func gramOf(rs ...rune) gram {
	var g gram
	for i := range gramRunes {
		g <<= 21
		if i < len(rs) {
			g |= gram(rs[i])
		}
	}
	return g
}

// gramRunes is the length of the longest gram.
const gramRunes = 3

// wide tells whether r is a character of a script whose pairs are rare
// enough to need no grams of three: Chinese, Japanese or Korean.
func wide(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

const base36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// appendRune appends the code of r.
func appendRune(b []byte, r rune) []byte {
	switch {
	case r >= '0' && r <= '9', r >= 'a' && r <= 'w':
		return append(b, byte(r))
	case r < 36*36*36:
		return append(b, 'x', base36[r/1296], base36[r/36%36], base36[r%36])
	default:
		return append(b, 'y', base36[r/46656%36], base36[r/1296%36], base36[r/36%36], base36[r%36])
	}
}

// appendToken appends the token of g.
func (g gram) appendToken(b []byte) []byte {
	for shift := 21 * (gramRunes - 1); shift >= 0; shift -= 21 {
		if r := rune(g>>shift) & (1<<21 - 1); r != 0 {
			b = appendRune(b, r)
		}
	}
	return b
}

// appendIndexText appends to b what the index keeps of content: the
// tokens of its grams, each after prefix, separated by spaces.
func appendIndexText(b []byte, prefix, content string) []byte {
	folded := store.FoldWord(content)
	grams := make([]gram, 0, 3*utf8.RuneCountInString(folded))
	var run [gramRunes]rune // the last runes, newest last; 0 after white space
	for _, r := range folded {
		if unicode.IsSpace(r) {
			run = [gramRunes]rune{}
			continue
		}
		run = [gramRunes]rune{run[1], run[2], r}
		grams = append(grams, gramOf(r))
		if run[1] != 0 {
			grams = append(grams, gramOf(run[1], r))
		}
		if run[0] != 0 && !wide(run[0]) && !wide(run[1]) && !wide(r) {
			grams = append(grams, gramOf(run[0], run[1], r))
		}
	}
	slices.Sort(grams)
	for i, g := range slices.Compact(grams) {
		if i > 0 {
			b = append(b, ' ')
		}
		b = g.appendToken(append(b, prefix...))
	}
	return b
}

// wordTokens appends the tokens a post must have to hold word, folded and
// without white space: the word itself when it is one or two characters
// long; else its grams of three (those the index has) and the pairs that
// none of them covers.
func wordTokens(toks []string, word string) []string {
	rs := []rune(word)
	if len(rs) <= 2 {
		return append(toks, string(gramOf(rs...).appendToken(nil)))
	}
	covered := make([]bool, len(rs)) // covered[i]: the pair that ends at i
	for i := 2; i < len(rs); i++ {
		if !wide(rs[i-2]) && !wide(rs[i-1]) && !wide(rs[i]) {
			toks = append(toks, string(gramOf(rs[i-2:i+1]...).appendToken(nil)))
			covered[i-1], covered[i] = true, true
		}
	}
	for i := 1; i < len(rs); i++ {
		if !covered[i] {
			toks = append(toks, string(gramOf(rs[i-1:i+1]...).appendToken(nil)))
		}
	}
	return toks
}

// queryTokens are the tokens of every word, each once, sorted.
func queryTokens(words ...string) []string {
	var toks []string
	for _, w := range words {
		toks = wordTokens(toks, w)
	}
	slices.Sort(toks)
	return slices.Compact(toks)
}
