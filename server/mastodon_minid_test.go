package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	gomastodon "github.com/mattn/go-mastodon"

	"microblog/server/mastodon"
)

// minIDWalk reads the page right above the index-th id of want (oldest
// first) at path with limit 7, checks it is the 7 ids right above it
// (newest first), and follows the prev links from there as a Mastodon
// client catching up does, to an empty page: it answers every id seen, in
// order, oldest first, failing on a repeated one.
func (ts *testServer) minIDWalk(t *testing.T, path, token string, want []string, index int) []string {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var got []string
	seen := map[string]bool{}
	link := ""
	page := path + sep + "limit=7&min_id=" + want[index]
	for pages := 0; page != ""; pages++ {
		if pages > 40 {
			t.Fatalf("%s: more than 40 prev pages", path)
		}
		statuses, l := ts.timelinePage(t, token, page)
		if len(statuses) == 0 {
			break
		}
		var ids []string
		for i := len(statuses) - 1; i >= 0; i-- {
			ids = append(ids, statuses[i].ID)
		}
		if at := slices.Index(want, ids[0]); at < 0 || at > 0 && slices.Index(got, want[at-1]) < 0 && want[at-1] != want[index] ||
			!slices.Equal(ids, want[at:min(at+7, len(want))]) {
			t.Fatalf("%s: page %s is not the one right above what came before (%d ids in)", page, ids, len(got))
		}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%s: id %s again", page, id)
			}
			seen[id] = true
		}
		got, link = append(got, ids...), l
		page = nextLink(t, link, "prev")
	}
	return got
}

// TestMastodonMinIDThroughArchive: with a hot window of 10, a writer whose
// posts are pushed and a celebrity whose posts are pulled post 66
// statuses (tagged, and some replies), most of them archived. From an old
// min_id, the prev links of the home, public and tag timelines and of the
// writer's statuses, and of a list of both, give every status above it exactly once, in order, each
// page the one right above the last.
func TestMastodonMinIDThroughArchive(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10", "MICROBLOG_CELEBRITY_FANS=2")
	writer, writerID := ts.mastodonUser(t, "writer", "")
	celeb, celebID := ts.mastodonUser(t, "celeb", "")
	reader, _ := ts.mastodonUser(t, "reader", "")
	fan, _ := ts.mastodonUser(t, "fan", "")
	ts.follow(t, nativeOf(reader), "writer", true)
	ts.follow(t, nativeOf(reader), "celeb", true)
	ts.follow(t, nativeOf(fan), "celeb", true)
	var posts, tagged, writers []string // oldest first
	for i := range 66 {
		switch i % 3 {
		case 0:
			s := ts.toot(t, writer, map[string]any{"status": fmt.Sprintf("#catchup from the writer %d", i)})
			posts, tagged, writers = append(posts, s.ID), append(tagged, s.ID), append(writers, s.ID)
		case 1:
			s := ts.toot(t, celeb, map[string]any{"status": fmt.Sprintf("#catchup from the celebrity %d", i)})
			posts, tagged = append(posts, s.ID), append(tagged, s.ID)
		case 2:
			if i%2 == 0 { // a reply is among the writer's statuses, in no timeline
				s := ts.toot(t, writer, map[string]any{"status": fmt.Sprint("a reply ", i), "in_reply_to_id": posts[len(posts)-1]})
				writers = append(writers, s.ID)
			} else {
				s := ts.toot(t, writer, map[string]any{"status": fmt.Sprint("untagged ", i)})
				posts, writers = append(posts, s.ID), append(writers, s.ID)
			}
		}
	}
	var list mastodon.List // the writer and the celebrity
	ts.mastodonJSON(t, "POST", "/api/v1/lists", reader, map[string]any{"title": "catching up"}, &list)
	ts.mastodonJSON(t, "POST", "/api/v1/lists/"+list.ID+"/accounts", reader, map[string]any{"account_ids": []string{sid(writerID), sid(celebID)}}, nil)
	archiveSettled(t, ts.rdb())
	// The next links are checked where the newest-first pages are whole:
	// those of a home timeline that merges a pulled celebrity's F set, of
	// a list (its members' F sets) and of a topic, read the archive only below the sets they merge, which
	// are not windows of the same time (the writer's older posts left Redis
	// while the celebrity's of that time are still there): they skip what
	// lies between. The min_id pages do not.
	for _, l := range []struct {
		path  string
		token string
		want  []string
		down  bool
	}{
		{"/api/v1/timelines/home", reader, posts, false},
		{"/api/v1/timelines/public", reader, posts, true},
		{"/api/v1/timelines/tag/catchup", reader, tagged, false},
		{"/api/v1/timelines/list/" + list.ID, reader, posts, false},
		{"/api/v1/accounts/" + sid(writerID) + "/statuses", reader, writers, true},
	} {
		down := ts.mastodonPages(t, l.path+"?limit=9", l.token)
		slices.Reverse(down)
		if l.down && !slices.Equal(down, l.want) {
			t.Fatalf("%s by next links: %d ids %v, want %d %v", l.path, len(down), down, len(l.want), l.want)
		}
		for _, index := range []int{0, 5, len(l.want) / 2} {
			if got := ts.minIDWalk(t, l.path, l.token, l.want, index); !slices.Equal(got, l.want[index+1:]) {
				t.Fatalf("%s from min_id %s (the %dth) by prev links: %d ids %v, want %d %v",
					l.path, l.want[index], index, len(got), got, len(l.want)-index-1, l.want[index+1:])
			}
		}
	}
}

// TestMastodonMinIDFarBelow: 2,010 statuses above min_id (more than the
// 2,000 a min_id page used to read on its way down): the public timeline's
// and the author's min_id pages are still the ones right above it, over
// HTTP and through go-mastodon's Pagination.MinID.
func TestMastodonMinIDFarBelow(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, uid := ts.mastodonUser(t, "prolific", "")
	var ids []string
	for i := range 2011 {
		ids = append(ids, ts.toot(t, tok, map[string]any{"status": fmt.Sprint("status ", i)}).ID)
	}
	for _, path := range []string{"/api/v1/timelines/public", "/api/v1/accounts/" + sid(uid) + "/statuses"} {
		page, link := ts.timelinePage(t, tok, path+"?limit=5&min_id="+ids[0])
		want := slices.Clone(ids[1:6])
		slices.Reverse(want)
		if got := statusIDs(page); got != strings.Join(want, ",") {
			t.Errorf("%s above the oldest: %s, want %s", path, got, strings.Join(want, ","))
		}
		if prev := nextLink(t, link, "prev"); !strings.HasSuffix(prev, "min_id="+ids[5]) {
			t.Errorf("%s above the oldest: prev link %q, want one from %s", path, prev, ids[5])
		}
	}
	// Above the newest: an empty page, [] and no links, as Mastodon answers.
	resp := ts.do(t, "GET", "/api/v1/timelines/public?min_id="+ids[len(ids)-1], tok, nil, nil)
	if body := strings.TrimSpace(string(readAll(t, resp))); body != "[]" || resp.Header.Get("Link") != "" {
		t.Errorf("above the newest: %s, Link %q; want [] and none", body, resp.Header.Get("Link"))
	}
	ctx := context.Background()
	gc, _ := ts.goMastodonClient(t, ctx, "catcher")
	var want []gomastodon.ID
	for i := 9; i >= 3; i-- {
		want = append(want, gomastodon.ID(ids[i]))
	}
	public, err := gc.GetTimelinePublic(ctx, false, &gomastodon.Pagination{MinID: gomastodon.ID(ids[2]), Limit: 7})
	if err != nil || !slices.Equal(goStatusIDs(public), want) {
		t.Errorf("go-mastodon public timeline above %s: %v, %v; want %v", ids[2], goStatusIDs(public), err, want)
	}
	mine, err := gc.GetAccountStatuses(ctx, gomastodon.ID(sid(uid)), &gomastodon.Pagination{MinID: gomastodon.ID(ids[2]), Limit: 7})
	if err != nil || !slices.Equal(goStatusIDs(mine), want) {
		t.Errorf("go-mastodon account statuses above %s: %v, %v; want %v", ids[2], goStatusIDs(mine), err, want)
	}
}
