package main

import (
	"strconv"
	"testing"
)

// TestFedOutActivitiesToARemoteAccount: what a local user does to a remote
// account goes to its server, signed by the user: a Follow, a private
// message as a Note addressed to that actor alone (those three to its own
// inbox), a profile change as an
// Update of the Person (to a remote follower), an unfollow as the Undo of
// the Follow, and a Block.
func TestFedOutActivitiesToARemoteAccount(t *testing.T) {
	parallel(t)
	ts := newFedServer(t, fedOutEnv...)
	token, alice := ts.register(t, "alice")
	in := newAPInbox(t)
	rita := ts.remoteFollower(t, in, "rita", alice, true)
	handle := "rita@" + hostOf(in.srv.URL)
	actor := ts.URL + "/ap/users/" + strconv.FormatInt(alice, 10)
	ritaID := in.srv.URL + "/users/rita"

	if st, b := ts.call(t, "PUT", "/api/v1/users/"+handle+"/follow", token, nil); st/100 != 2 {
		t.Fatalf("follow: %d %s", st, b)
	}
	// To its own inbox, as Mastodon sends a Follow.
	f := ofType(in.wait(t, 1), "Follow")
	if len(f) != 1 || f[0].activity["actor"] != actor || f[0].activity["object"] != ritaID || f[0].path != "/users/rita/inbox" {
		t.Fatalf("follow sent as %v", in.hits())
	}

	ts.sendDM(t, token, handle, "just between us")
	h := in.wait(t, 2)
	dm := ofType(h, "Create")
	if len(dm) != 1 {
		t.Fatalf("no Create of the message: %v", h)
	}
	note, _ := dm[0].activity["object"].(map[string]any)
	if to := anyStrings(note["to"]); len(to) != 1 || to[0] != ritaID || len(anyStrings(note["cc"])) != 0 ||
		note["content"] != "<p>just between us</p>" {
		t.Fatalf("message sent as %v", note)
	}

	if st, _, b := ts.patchMe(t, token, map[string]any{"bio": "new bio"}); st != 200 {
		t.Fatalf("bio: %d %s", st, b)
	}
	h = in.wait(t, 3)
	up := ofType(h, "Update")
	if len(up) != 1 {
		t.Fatalf("no Update: %v", h)
	}
	if p, _ := up[0].activity["object"].(map[string]any); p["type"] != "Person" || p["id"] != actor {
		t.Fatalf("Update of %v", p)
	}

	if st, b := ts.call(t, "DELETE", "/api/v1/users/"+handle+"/follow", token, nil); st/100 != 2 {
		t.Fatalf("unfollow: %d %s", st, b)
	}
	h = in.wait(t, 4)
	undo := ofType(h, "Undo")
	if inner, _ := first(undo).activity["object"].(map[string]any); inner["type"] != "Follow" || inner["object"] != ritaID {
		t.Fatalf("unfollow sent as %v", h)
	}

	if st, b := ts.call(t, "PUT", "/api/v1/users/"+handle+"/block", token, nil); st/100 != 2 {
		t.Fatalf("block: %d %s", st, b)
	}
	h = in.wait(t, 5)
	if bl := ofType(h, "Block"); len(bl) != 1 || bl[0].activity["object"] != ritaID {
		t.Fatalf("block sent as %v", h)
	}
	_ = rita
}

// first is the first hit, or an empty one.
func first(h []inboxHit) inboxHit {
	if len(h) == 0 {
		return inboxHit{}
	}
	return h[0]
}
