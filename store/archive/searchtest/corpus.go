// Package searchtest makes the posts the search's tests and benchmark run
// on: a deterministic mix of Chinese, English and both in one post, with
// emoji, digits, topics, mentions and letter cases, whose words follow
// Zipf's law, so that some characters and words are in a third of the posts
// and others in a handful, as in a real service.
package searchtest

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Corpus makes post contents: Post(i) is the same text for the same seed
// and i, on every machine, so a test can make any post again without
// keeping it.
type Corpus struct{ seed uint64 }

// NewCorpus returns the corpus of seed.
func NewCorpus(seed uint64) Corpus { return Corpus{seed: seed} }

// maxRunes bounds a post, as the service does (store.MaxContent).
const maxRunes = 280

// Post returns the content of post i.
func (c Corpus) Post(i int64) string {
	r := rand.New(rand.NewPCG(c.seed, uint64(i)))
	w := writer{r: r, zh: rand.NewZipf(r, 1.07, 2, uint64(len(zhWords)-1)),
		en: rand.NewZipf(r, 1.07, 2, uint64(len(enWords)-1))}
	switch n := r.IntN(100); {
	case n < 45:
		w.chinese(8 + r.IntN(90))
	case n < 75:
		w.english(6 + r.IntN(35))
	default:
		w.mixed(10 + r.IntN(70))
	}
	if r.IntN(10) == 0 {
		w.topic()
	}
	if r.IntN(RareEvery) == 0 {
		w.b.WriteString(Rare[r.IntN(len(Rare))])
	}
	if r.IntN(20) == 0 {
		w.b.WriteString(" @user" + strconv.Itoa(r.IntN(5000)))
	}
	return w.text()
}

// writer builds one post.
type writer struct {
	r      *rand.Rand
	zh, en *rand.Zipf
	b      strings.Builder
}

func (w *writer) text() string {
	s := strings.TrimSpace(w.b.String())
	for utf8.RuneCountInString(s) > maxRunes {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	if strings.TrimSpace(s) == "" {
		return "好"
	}
	return s
}

// chinese writes about n characters of Chinese words, with punctuation,
// and now and then an emoji or a number.
func (w *writer) chinese(n int) {
	for start := w.b.Len(); utf8.RuneCountInString(w.b.String()[start:]) < n; {
		w.b.WriteString(zhWords[w.zh.Uint64()])
		switch x := w.r.IntN(40); {
		case x < 3:
			w.b.WriteString(zhMarks[w.r.IntN(len(zhMarks))])
		case x == 3:
			w.b.WriteString(emoji[w.r.IntN(len(emoji))])
		case x == 4:
			w.number()
		}
	}
}

// english writes n words, a sentence at a time, with letter cases as
// people write them.
func (w *writer) english(n int) {
	capital := true
	for i := range n {
		if i > 0 {
			w.b.WriteByte(' ')
		}
		word := enWords[w.en.Uint64()]
		switch x := w.r.IntN(60); {
		case capital || x == 0:
			word = strings.ToUpper(word[:1]) + word[1:]
		case x == 1:
			word = strings.ToUpper(word)
		case x == 2:
			word = emoji[w.r.IntN(len(emoji))]
		case x == 3:
			w.number()
			continue
		}
		w.b.WriteString(word)
		capital = false
		if w.r.IntN(9) == 0 {
			w.b.WriteString(enMarks[w.r.IntN(len(enMarks))])
			capital = true
		}
	}
}

// mixed writes Chinese with English words inside, without spaces, as in
// 今天用Redis做缓存.
func (w *writer) mixed(n int) {
	for start := w.b.Len(); utf8.RuneCountInString(w.b.String()[start:]) < n; {
		if w.r.IntN(4) == 0 {
			word := enWords[w.en.Uint64()]
			if w.r.IntN(3) == 0 {
				word = strings.ToUpper(word[:1]) + word[1:]
			}
			w.b.WriteString(word)
			continue
		}
		w.chinese(1)
	}
}

// number writes a year, a count or a time.
func (w *writer) number() {
	switch w.r.IntN(3) {
	case 0:
		w.b.WriteString(strconv.Itoa(2015 + w.r.IntN(11)))
	case 1:
		w.b.WriteString(strconv.Itoa(w.r.IntN(1000)))
	default:
		w.b.WriteString(strconv.Itoa(w.r.IntN(24)) + ":" + strconv.Itoa(10+w.r.IntN(50)))
	}
}

// topic writes a Weibo-style #话题# or a Twitter-style #tag.
func (w *writer) topic() {
	if w.r.IntN(2) == 0 {
		w.b.WriteString(" #" + zhWords[w.zh.Uint64()] + zhWords[w.zh.Uint64()] + "#")
	} else {
		w.b.WriteString(" #" + enWords[w.en.Uint64()])
	}
}
