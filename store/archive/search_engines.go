package archive

import (
	"context"
	"strconv"
	"strings"
)

// searchEngine is what differs between the engines' search indexes: SQLite
// keeps it in an FTS5 table, MariaDB in a Mroonga one (migrations 005).
// Both hold the grams of every post as tokens (search_grams.go) and are
// asked the same question: which posts hold all these tokens, newest first.
type searchEngine struct {
	// put starts the INSERT of (id, grams) rows that replaces a row of the
	// same id; putEnd ends it.
	put, putEnd string
	// del starts the DELETE of the rows whose ids follow, as a list.
	del string
	// lockRead ends a SELECT of messages whose rows are about to be indexed,
	// so that an edit of one waits until its index row is written: on
	// SQLite the one writer does that already.
	lockRead string
	// text appends the index row of post id with content to b.
	text func(b []byte, id int64, content string) []byte
	// tokens are the tokens to ask for the posts that may hold every word:
	// a post that does holds them all.
	tokens func(ctx context.Context, db *DB, words []string) ([]string, error)
	// scan calls yield with at most n posts holding every token, below
	// before (0: no bound) and above after, newest first, each with its
	// row as the archive holds it, until yield returns false.
	scan func(ctx context.Context, db *DB, tokens []string, before, after int64, n int, yield func(candidate) bool) error
}

// candidate is a message the index found, as its row now reads.
type candidate struct {
	id      int64
	kind    string
	content string
	deleted bool
}

// search is the search index of db's engine.
func (db *DB) search() *searchEngine {
	if db.d.name == mysqlDialect.name {
		return mroonga
	}
	return fts5
}

// fts5 is SQLite's index: an FTS5 table (tokenizer ascii, which takes
// letters and digits as they are), whose posting lists FTS5 reads from the
// newest id down, lazily: one query, joined with the messages, yields the
// candidates with their rows, and is closed once there are enough. So a
// page of a character in half the posts costs as little as one of a rare
// word.
var fts5 = &searchEngine{
	put:  "INSERT OR REPLACE INTO search (rowid, grams) VALUES ",
	del:  "DELETE FROM search WHERE rowid IN ",
	text: func(b []byte, _ int64, content string) []byte { return appendIndexText(b, "", content) },
	// FTS5 intersects the posting lists of the tokens skipping ahead, at the
	// cost of the rarest: all of them.
	tokens: func(_ context.Context, _ *DB, words []string) ([]string, error) { return queryTokens(words...), nil },
	scan: func(ctx context.Context, db *DB, tokens []string, before, after int64, n int, yield func(candidate) bool) error {
		if before <= 0 {
			before = 1<<63 - 1
		}
		// CROSS JOIN keeps the index the outer loop, in its order.
		rows, err := db.read.QueryContext(ctx, `SELECT m.id, m.kind, m.content, m.deleted
			FROM search AS s CROSS JOIN messages AS m ON m.id = s.rowid
			WHERE s.search MATCH ? AND s.rowid < ? AND s.rowid > ? ORDER BY s.rowid DESC LIMIT ?`,
			`"`+strings.Join(tokens, `" AND "`)+`"`, before, after, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c candidate
			if err := rows.Scan(&c.id, &c.kind, &c.content, &c.deleted); err != nil {
				return err
			}
			if !yield(c) {
				return nil
			}
		}
		return rows.Err()
	},
}

// mroonga is MariaDB's index: a Mroonga table (Groonga's inverted index,
// tokenizer TokenDelimit, which takes each space-separated token whole).
// Groonga finds every post that matches before it sorts them, which for a
// character in half of a million posts takes a tenth of a second; so each
// token carries the bucket of its post's id (ids >> bucketBits), and a
// search asks the newest bucket first, then as many older ones at once as
// the matches found so far say the page needs (twice over): a page of a
// common gram costs one bucket's matches, of a rare one two or three
// queries.
var mroonga = &searchEngine{
	put:      "INSERT INTO search (id, grams) VALUES ",
	putEnd:   " ON DUPLICATE KEY UPDATE grams = VALUES(grams)",
	del:      "DELETE FROM search WHERE id IN ",
	lockRead: " LOCK IN SHARE MODE",
	text: func(b []byte, id int64, content string) []byte {
		return appendIndexText(b, bucketPrefix(id>>bucketBits), content)
	},
	tokens: keyTokens,
	scan: func(ctx context.Context, db *DB, tokens []string, before, after int64, n int, yield func(candidate) bool) error {
		ids, err := bucketCandidates(ctx, db, tokens, before, after, n)
		if err != nil || len(ids) == 0 {
			return err
		}
		rows, err := db.read.QueryContext(ctx, selectPosts+list(len(ids)), anys(ids)...)
		if err != nil {
			return err
		}
		found := make(map[int64]candidate, len(ids))
		err = eachRow(rows, func(c candidate) { found[c.id] = c })
		if err != nil {
			return err
		}
		for _, id := range ids {
			c, ok := found[id]
			if !ok {
				c.id = id // its row is not committed yet: Mroonga's writes are not in the transaction
			}
			if !yield(c) {
				return nil
			}
		}
		return nil
	},
}

// bucketBits sizes the buckets of the mroonga index: 65,536 ids, of which
// about half are posts (comments take ids too).
const bucketBits = 16

// bucketPrefix is what the tokens of bucket b start with: its number and z,
// a letter no gram's code has.
func bucketPrefix(b int64) string { return strconv.FormatInt(b, 10) + "z" }

// bucketCandidates returns the ids of at most n posts holding every token,
// below before (0: no bound) and above after, newest first, asking bucket
// by bucket.
func bucketCandidates(ctx context.Context, db *DB, tokens []string, before, after int64, n int) ([]int64, error) {
	top := before - 1
	if before <= 0 {
		if err := db.read.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM messages").Scan(&top); err != nil {
			return nil, err
		}
		before = top + 1
	}
	var ids []int64
	last := (after + 1) >> bucketBits
	for span, b, asked := int64(1), top>>bucketBits, int64(0); b >= last && len(ids) < n; {
		from := max(last, b-span+1)
		got, err := column(db.read.QueryContext(ctx,
			"SELECT id FROM search WHERE MATCH(grams) AGAINST(? IN BOOLEAN MODE) AND id < ? AND id > ? ORDER BY id DESC LIMIT ?",
			bucketQuery(tokens, from, b), before, after, n-len(ids)))
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
		asked += b - from + 1
		b = from - 1
		// Enough buckets for what is missing, twice over, at the rate found
		// so far (at least twice as many as before): a rare word's next
		// query asks all the others at once.
		span = max(2*span, 2*int64(n-len(ids))*asked/max(int64(len(ids)), 1))
	}
	return ids, nil
}

// keyTokens are the tokens to ask Mroonga for. Groonga reads every posting
// of every token of a query, in every bucket it asks, so a rare word beside
// a common one, whose search asks bucket after bucket, would cost as much
// as the common word alone over all of them. So, of several words, when the
// newest bucket holds few posts of one (one count for each word), only its
// tokens are asked for, and the other words are checked in the content of
// its few posts; when it holds many of each, a page is found in the newest
// buckets, where asking for all is cheap and finds fewer posts to check.
func keyTokens(ctx context.Context, db *DB, words []string) ([]string, error) {
	if len(words) == 1 {
		return sparseTokens(words[0]), nil
	}
	var top int64
	if err := db.read.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM messages").Scan(&top); err != nil {
		return nil, err
	}
	var key []string
	fewest := int64(-1)
	for _, w := range words { // longest first: a tie goes to the longer word
		tokens := sparseTokens(w)
		var n int64
		if err := db.read.QueryRowContext(ctx, "SELECT COUNT(*) FROM search WHERE MATCH(grams) AGAINST(? IN BOOLEAN MODE)",
			bucketQuery(tokens, top>>bucketBits, top>>bucketBits)).Scan(&n); err != nil {
			return nil, err
		}
		if fewest < 0 || n < fewest {
			key, fewest = tokens, n
		}
	}
	if fewest >= keyAlone {
		return queryTokens(words...), nil
	}
	return key, nil
}

// sparseTokens are every other token of word, and its last: enough to
// find its posts among few others, at half the postings to read.
func sparseTokens(word string) []string {
	all := wordTokens(nil, word)
	var some []string
	for i, t := range all {
		if i%2 == 0 || i == len(all)-1 {
			some = append(some, t)
		}
	}
	return some
}

// keyAlone is how many posts of the newest bucket (about 32,000) make a
// word common enough to be asked for with the others.
const keyAlone = 100

// bucketQuery is the Groonga query for posts of buckets from to to that hold
// every token: +(from·t1 … to·t1) +(from·t2 … to·t2).
func bucketQuery(tokens []string, from, to int64) string {
	var b strings.Builder
	for i, t := range tokens {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("+(")
		for bucket := from; bucket <= to; bucket++ {
			if bucket > from {
				b.WriteByte(' ')
			}
			b.WriteString(bucketPrefix(bucket) + t)
		}
		b.WriteByte(')')
	}
	return b.String()
}
