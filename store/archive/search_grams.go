package archive

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"microblog/store"
)

// The search index keeps, for each post, the grams of its folded content
// (store.FoldWord): every character and every pair of neighbouring
// characters that are not white space, each once. A word of a query can be
// in a post only if all its grams are, so the index finds every post that
// may hold it (full recall), whatever its length: a 1- or 2-character word
// is a gram itself, a longer one is looked up by all its pairs. The posts
// found are then checked against their content (no false hits). Pairs, not
// trigrams: they cost a third as much to index, and for words of three or
// more characters the posts that have every pair of a word but not the
// word are few (docs/performance.md).
//
// A gram is written as one token of the characters 0-9 and a-z, which every
// engine's tokenizer takes whole, in any script: 0-9 and a-w stand for
// themselves; any other character is x and three base-36 digits (up to
// U+B63F: Latin, Greek, Cyrillic, CJK) or y and four. The code is
// prefix-free, so a token names one gram: 天 is xjq1, 天气 xjq1xk2k (or as
// computed by code below), "th" is th.

// gram is one or two runes: the first in the high bits, and the second, or
// zero (NUL is never in content), in the low 21 bits.
type gram uint64

func pair(a, b rune) gram { return gram(a)<<21 | gram(b) }

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
	b = appendRune(b, rune(g>>21))
	if second := rune(g & (1<<21 - 1)); second != 0 {
		b = appendRune(b, second)
	}
	return b
}

// appendIndexText appends to b what the index keeps of content: the
// tokens of its grams, each after prefix, separated by spaces.
func appendIndexText(b []byte, prefix, content string) []byte {
	folded := store.FoldWord(content)
	grams := make([]gram, 0, 2*utf8.RuneCountInString(folded))
	var prev rune // 0 after white space
	for _, r := range folded {
		if unicode.IsSpace(r) {
			prev = 0
			continue
		}
		grams = append(grams, pair(r, 0))
		if prev != 0 {
			grams = append(grams, pair(prev, r))
		}
		prev = r
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
// long, else each of its pairs.
func wordTokens(toks []string, word string) []string {
	rs := []rune(word)
	if len(rs) == 1 {
		return append(toks, string(pair(rs[0], 0).appendToken(nil)))
	}
	for i := 1; i < len(rs); i++ {
		toks = append(toks, string(pair(rs[i-1], rs[i]).appendToken(nil)))
	}
	return toks
}
