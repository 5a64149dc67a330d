package main

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"microblog/store/redisdb/schema"
)

// TestClusterFollowTags: on a cluster, a fan connected to one process
// hears, once each, the posts made through the other process that carry
// topics it follows, whose channels are spread over the partitions
// ({p<n>}tag:<key>), its followed star's tagged post included; its home
// timeline, read through either process, merges them.
func TestClusterFollowTags(t *testing.T) {
	parallel(t)
	c, ts1, ts2 := clusterPair(t)
	fanTok, _ := ts1.register(t, "fan")
	starTok, _ := ts2.register(t, "star")
	strangerTok, _ := ts2.register(t, "stranger")
	ts2.follow(t, fanTok, "star", true)
	var tags []string
	masters := map[int]bool{}
	for i := range 6 {
		tag := fmt.Sprintf("topic%d", i)
		tags = append(tags, tag)
		ts2.wantStatus(t, "PUT", "/api/v1/tags/"+tag+"/follow", fanTok, nil, http.StatusNoContent, "")
		masters[channelMaster(t, c, schema.NewKeys("", true).TagChannel(tag))] = true
	}
	if len(masters) < 2 {
		t.Errorf("the topics' channels are all on master %v: the test spreads nothing", masters)
	}
	ws := ts1.dialWS(t, fanTok, "")
	ws.ready(t)
	var ids []int64
	for _, tag := range tags {
		ids = append(ids, ts2.newPost(t, strangerTok, "about #"+tag))
	}
	ids = append(ids, ts2.newPost(t, starTok, "the star on #topic0"))
	newCollector(t, ws).waitFor(ids, 30*time.Second)
	for _, ts := range []*testServer{ts1, ts2} {
		home := ts.pageIDs(t, fanTok, "/api/v1/timelines/home?limit=50")
		for _, id := range ids {
			if n := countOf(home, id); n != 1 {
				t.Errorf("post %d is %d times in home %v", id, n, home)
			}
		}
		if len(home) != len(ids) || !slices.IsSortedFunc(home, func(a, b int64) int { return int(b - a) }) {
			t.Errorf("home %v, want the %d posts newest first", home, len(ids))
		}
	}
}
