package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"microblog/server/federation/fedifytest"
	"microblog/store/storetest"
)

// TestFedifyAccountDeleted: deleting a local account followed from the
// partner sends the partner a Delete of its Person, signed with the
// account's own key (the partner verifies it against the key it kept from
// the account's Accept), and leaves no key of the account in Redis: its
// federation signing key and sent activities' ids are gone with the rest,
// and the delivery that carried the key is gone once sent. The account's
// actor is 404 after, and asking for it makes no new key.
func TestFedifyAccountDeleted(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	alice, aliceID := ts.register(t, "alice")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ts.followedByPartner(t, fedi, aliceID)   // alice signs its Accept: her key is made
	ts.followRemote(t, alice, "alice", fedi) // her Follow's id is kept for its Undo
	ts.newPost(t, alice, "soon gone")

	ctx := context.Background()
	rdb, keys := ts.rdb(), keysOf(ts.rdb())
	for _, k := range []string{keys.FedKey(aliceID), keys.FedActivities(aliceID)} {
		if rdb.Exists(ctx, k).Val() != 1 {
			t.Fatalf("%s is not there before the deletion: the test proves nothing", k)
		}
	}

	since := p.Seq(t)
	ts.wantStatus(t, "DELETE", "/api/v1/me", alice, map[string]string{"password": testPassword}, http.StatusNoContent, "")
	del := p.Wait(t, since, fedWait, "the Delete of alice's Person", func(a fedifytest.Activity) bool {
		return a.Type == "Delete" && a.Actor == ts.actorURL(aliceID)
	})
	if del.ObjectID != ts.actorURL(aliceID) {
		t.Errorf("the Delete: %+v", del)
	}
	if _, unverified := p.Inbox(t, since); len(unverified) > 0 {
		t.Errorf("the partner could not verify %+v", unverified)
	}

	// The delivery that carried the key goes once sent.
	fedEventually(t, "the Delete's delivery settled", func() bool {
		return len(storetest.Keys(t, rdb, keys.FedDeliveryBody("*"))) == 0
	}, func() string { return fmt.Sprint(storetest.Keys(t, rdb, keys.FedDeliveryBody("*"))) })

	// Its actor is gone; asking for it makes no key.
	if st := getAP(t, ts.actorURL(aliceID), nil); st != http.StatusNotFound && st != http.StatusGone {
		t.Errorf("the deleted actor: %d", st)
	}
	for _, k := range []string{
		keys.User(aliceID), keys.KnownClients(aliceID), keys.UserSessions(aliceID), keys.UserIdentities(aliceID),
		keys.UserLikes(aliceID), keys.UserReposts(aliceID), keys.Pinned(aliceID), keys.Bookmarks(aliceID),
		keys.Fans(aliceID), keys.Stars(aliceID), keys.UserPosts(aliceID), keys.UserComments(aliceID), keys.Home(aliceID),
		keys.FollowedTags(aliceID), keys.Notifications(aliceID), keys.Notes(aliceID), keys.Markers(aliceID),
		keys.Blocking(aliceID), keys.BlockedBy(aliceID), keys.Muting(aliceID), keys.MutedBy(aliceID),
		keys.FollowRequests(aliceID), keys.Conversations(aliceID), keys.ConversationsRead(aliceID),
		keys.ConversationsUnread(aliceID), keys.ConversationsArchived(aliceID), keys.Lists(aliceID),
		keys.ExclusiveLists(aliceID), keys.FedActor(aliceID), keys.FedKey(aliceID), keys.FedActivities(aliceID),
		keys.PushSubscriptions(aliceID),
	} {
		if rdb.Exists(ctx, k).Val() != 0 {
			t.Errorf("%s outlived the account", k)
		}
	}
	for _, k := range storetest.Keys(t, rdb, "fed:*") {
		own := strings.HasSuffix(k, fmt.Sprintf(":%d", aliceID)) || strings.Contains(k, fmt.Sprintf("{%d}", aliceID))
		if own && !strings.HasPrefix(k, "fed:seen:") && !strings.HasPrefix(k, "fed:object:") {
			t.Errorf("%s outlived the account", k)
		}
	}
}
