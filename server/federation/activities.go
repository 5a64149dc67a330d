package federation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"microblog/store"
)

// handle does what an activity of actor asks.
func (s *Service) handle(ctx context.Context, actor store.RemoteActor, act *inDoc) error {
	switch act.typeOf() {
	case "Follow":
		return s.onFollow(ctx, actor, act)
	case "Accept", "Reject":
		return s.onAnswer(ctx, actor, act, act.typeOf() == "Accept")
	case "Undo":
		return s.onUndo(ctx, actor, act)
	case "Create":
		return s.onCreate(ctx, actor, act)
	case "Update":
		return s.onUpdate(ctx, actor, act)
	case "Delete":
		return s.onDelete(ctx, actor, act)
	case "Announce":
		return s.onAnnounce(ctx, actor, act)
	case "Like", "EmojiReact":
		return s.onLike(ctx, actor, idOf(act.Object), true)
	case "Block":
		return s.onBlock(ctx, actor, idOf(act.Object), true)
	}
	return ignore(ctx)
}

// localTarget is the local user an activity's object names, 0 if none.
func (s *Service) localTarget(object string) int64 {
	uid, _ := s.LocalUID(object)
	return uid
}

// onFollow: a remote account follows a local user; a protected one gets a
// request to approve (its Accept goes when it does), anyone else is
// followed at once and answered Accept; a block between them is Reject.
func (s *Service) onFollow(ctx context.Context, actor store.RemoteActor, act *inDoc) error {
	star := s.localTarget(idOf(act.Object))
	if star == 0 {
		return ignore(ctx)
	}
	if _, err := s.localUser(ctx, star); err != nil {
		return ignore(ctx)
	}
	// Marked first: from now on star's posts go out too (fedout's
	// outbox), even those written while the follow is being made.
	if o := s.fedOut(); o != nil {
		if err := o.MarkFedFans(ctx, star); err != nil {
			return err
		}
	}
	requested, err := s.st.FollowOrAsk(ctx, actor.UID, star)
	switch {
	case errors.Is(err, store.ErrBlocked) || errors.Is(err, store.ErrSuspended):
		return s.answerFollow(ctx, star, actor, act.ID, false)
	case err != nil:
		return err
	case requested:
		// Its approval's Accept names this Follow (activities_sent.go).
		s.rememberActivity(ctx, star, "request:"+itoa(actor.UID), act.ID)
		return nil
	}
	return s.answerFollow(ctx, star, actor, act.ID, true)
}

// answerFollow sends Accept (or Reject) of remote's Follow of star.
func (s *Service) answerFollow(ctx context.Context, star int64, remote store.RemoteActor, followID string, accept bool) error {
	kind := "Reject"
	if accept {
		kind = "Accept"
	}
	follow := map[string]any{"type": "Follow", "actor": remote.ID, "object": s.ActorURL(star)}
	if followID != "" {
		follow["id"] = followID
	}
	a := Activity{Context: contextAS, ID: s.ActivityURL(kind + "-" + hashOf(remote.ID+" "+followID+" "+itoa(star))),
		Type: kind, Actor: s.ActorURL(star), Object: follow, To: []string{remote.ID}}
	return s.send(ctx, star, a, remote)
}

// send queues a from local user signer to the inboxes of to.
func (s *Service) send(ctx context.Context, signer int64, a Activity, to ...store.RemoteActor) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	var inboxes []string
	for _, r := range to {
		if ib := r.DeliveryInbox(); ib != "" {
			inboxes = append(inboxes, ib)
		}
	}
	if len(inboxes) == 0 {
		return nil
	}
	return s.opt.Deliverer.EnqueueDelivery(ctx, store.Delivery{ID: a.ID, Signer: signer, Body: body, Inboxes: inboxes})
}

// hashOf is a short, stable hex digest of s, for ids made from others.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// onAnswer: a remote account accepts (or rejects) a local user's Follow.
func (s *Service) onAnswer(ctx context.Context, actor store.RemoteActor, act *inDoc, accept bool) error {
	var fan int64
	if f, ok := embedded(act.Object); ok {
		if f.typeOf() != "Follow" || idOf(f.Object) != actor.ID && idOf(f.Object) != "" {
			return ignore(ctx)
		}
		fan = s.localTarget(idOf(f.Actor))
	} else {
		// A bare link to our Follow: P/ap/activities/follow-<fan>-...
		fan = s.followerOfActivity(idOf(act.Object))
	}
	if fan == 0 {
		return ignore(ctx)
	}
	if accept {
		err := s.st.AnswerFollowRequest(ctx, actor.UID, fan, true)
		if errors.Is(err, store.ErrNotFound) {
			return nil // already following, or never asked
		}
		return err
	}
	if err := s.st.AnswerFollowRequest(ctx, actor.UID, fan, false); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.st.Unfollow(ctx, fan, actor.UID)
}

// followerOfActivity reads the local follower of a Follow id of ours,
// made by FollowID; 0 for any other.
func (s *Service) followerOfActivity(id string) int64 {
	rest, ok := cutPrefix(id, s.base()+"/ap/activities/follow-")
	if !ok {
		return 0
	}
	n := int64(0)
	for _, ch := range rest {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + int64(ch-'0')
	}
	return n
}

// FollowID is the id of a Follow of local user fan's, unique per follow.
func (s *Service) FollowID(fan int64, star string, unique string) string {
	return s.ActivityURL("follow-" + itoa(fan) + "-" + hashOf(star+" "+unique))
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// onUndo undoes a Follow, Like, Announce or Block of the actor's.
func (s *Service) onUndo(ctx context.Context, actor store.RemoteActor, act *inDoc) error {
	inner, ok := embedded(act.Object)
	if !ok {
		// A bare link: only an Announce can be found by its id.
		return s.undoAnnounce(ctx, actor, idOf(act.Object))
	}
	if a := idOf(inner.Actor); a != "" && a != actor.ID {
		return bad("one can only undo one's own activities")
	}
	switch inner.typeOf() {
	case "Follow":
		star := s.localTarget(idOf(inner.Object))
		if star == 0 {
			return ignore(ctx)
		}
		if err := s.st.Unfollow(ctx, actor.UID, star); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		// A request not yet answered goes too.
		if err := s.st.AnswerFollowRequest(ctx, star, actor.UID, false); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return nil
	case "Like", "EmojiReact":
		return s.onLike(ctx, actor, idOf(inner.Object), false)
	case "Announce":
		return s.undoAnnounce(ctx, actor, inner.ID)
	case "Block":
		return s.onBlock(ctx, actor, idOf(inner.Object), false)
	}
	return ignore(ctx)
}

// postOf is the local message of an object id: a post here, or a remote
// one taken in; 0 when none.
func (s *Service) postOf(ctx context.Context, object string) (int64, error) {
	if mid, ok := s.LocalPost(object); ok {
		return mid, nil
	}
	return s.st.ObjectPost(ctx, object)
}

// onLike likes (or unlikes) a message for the actor.
func (s *Service) onLike(ctx context.Context, actor store.RemoteActor, object string, on bool) error {
	mid, err := s.postOf(ctx, object)
	if err != nil || mid == 0 {
		return err
	}
	err = s.st.Like(ctx, actor.UID, mid, on)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrForbidden) {
		return nil // gone, or not the actor's to see
	}
	return err
}

// onBlock makes the actor block (or unblock) a local user.
func (s *Service) onBlock(ctx context.Context, actor store.RemoteActor, object string, on bool) error {
	target := s.localTarget(object)
	if target == 0 {
		return ignore(ctx)
	}
	err := s.st.Block(ctx, actor.UID, target, on)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// onAnnounce reposts a message for the actor: a local one, or a remote
// one, fetched when it is not known yet (fetch_object.go).
func (s *Service) onAnnounce(ctx context.Context, actor store.RemoteActor, act *inDoc) error {
	mid, err := s.fetchNote(ctx, idOf(act.Object))
	if err != nil || mid == 0 {
		return err
	}
	p, err := s.st.Create(ctx, store.NewPost{Author: actor.UID, RepostOf: mid, IdempotencyKey: idemKey(act.ID)})
	if err != nil {
		if isRefusal(err) {
			return nil
		}
		return err
	}
	return s.st.SetObjectPost(ctx, act.ID, p.ID, "") // a repost: its original has the address
}

// undoAnnounce deletes the actor's repost made by the Announce id.
func (s *Service) undoAnnounce(ctx context.Context, actor store.RemoteActor, id string) error {
	mid, err := s.st.ObjectPost(ctx, id)
	if err != nil || mid == 0 {
		return err
	}
	return s.deleteOwn(ctx, actor, id, mid)
}

// deleteOwn deletes the actor's message mid taken in from object.
func (s *Service) deleteOwn(ctx context.Context, actor store.RemoteActor, object string, mid int64) error {
	err := s.st.Delete(ctx, actor.UID, mid)
	switch {
	case errors.Is(err, store.ErrNotAuthor) || errors.Is(err, store.ErrForbidden):
		return bad("one can only delete one's own posts")
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	return s.st.DropObject(ctx, object)
}

// idemKey is the Idempotency-Key a remote object's message is written
// under: a redelivery under another activity id makes no second one.
func idemKey(objectID string) string { return "ap:" + hashOf(objectID) }

// isRefusal tells whether err is the store refusing (a 4xx), not failing.
func isRefusal(err error) bool {
	var e *store.Error
	return errors.As(err, &e) && !errors.Is(err, store.ErrUnavailable)
}
