package federation

import (
	"context"
	"strings"

	"microblog/store"
)

// OutboundStore is the store the APIs use while federation is on: the
// store itself, but each action that concerns other servers also queues
// its event on fed:outbox (store.FedEvent), after it succeeded, for the
// outbound runner (HandleEvent). Posts queue theirs in their own write
// (store/redisdb/post_fed.go). What the inbox does goes to the store
// directly, never through here: nothing received is sent back out.
type OutboundStore struct {
	store.Service
	out store.FedOutbox
	log func(msg string, args ...any)
	fed *Service
}

// Outbound wraps st (the same store the Service was made with).
func (s *Service) Outbound(st store.Service) store.Service {
	o, ok := st.(store.FedOutbox)
	if !ok {
		return st
	}
	return OutboundStore{Service: st, out: o, log: s.opt.Logger.Warn, fed: s}
}

// queue queues e; a failure is logged (the action itself stands).
func (o OutboundStore) queue(ctx context.Context, e store.FedEvent) {
	if err := o.out.QueueFedEvent(context.WithoutCancel(ctx), e); err != nil {
		o.log("federation: queue outgoing activity", "kind", e.Kind, "err", err)
	}
}

// remote tells whether uid is a remote account (its name is name@domain).
func (o OutboundStore) remote(ctx context.Context, uid int64) bool {
	u, err := o.Service.User(ctx, uid, 0)
	return err == nil && (u.Remote || strings.Contains(u.Username, "@"))
}

// FollowOrAsk sends a Follow to a remote account (whose Accept makes the
// follow, or a locked one's request, stand).
func (o OutboundStore) FollowOrAsk(ctx context.Context, fan, star int64) (bool, error) {
	requested, err := o.Service.FollowOrAsk(ctx, fan, star)
	if err == nil && o.remote(ctx, star) {
		o.queue(ctx, store.FedEvent{Kind: store.FedFollow, Actor: fan, Target: star})
	}
	return requested, err
}

// Unfollow sends the Undo of the Follow.
func (o OutboundStore) Unfollow(ctx context.Context, fan, star int64) error {
	err := o.Service.Unfollow(ctx, fan, star)
	if err == nil && o.remote(ctx, star) {
		o.queue(ctx, store.FedEvent{Kind: store.FedUnfollow, Actor: fan, Target: star})
	}
	return err
}

// Block sends a Block (or its Undo) to a remote account.
func (o OutboundStore) Block(ctx context.Context, uid, target int64, on bool) error {
	err := o.Service.Block(ctx, uid, target, on)
	if err == nil && o.remote(ctx, target) {
		kind := store.FedBlock
		if !on {
			kind = store.FedUnblock
		}
		o.queue(ctx, store.FedEvent{Kind: kind, Actor: uid, Target: target})
	}
	return err
}

// AnswerFollowRequest sends the Accept or Reject of a remote account's
// request.
func (o OutboundStore) AnswerFollowRequest(ctx context.Context, uid, fan int64, approve bool) error {
	err := o.Service.AnswerFollowRequest(ctx, uid, fan, approve)
	if err == nil && o.remote(ctx, fan) {
		kind := store.FedAccept
		if !approve {
			kind = store.FedReject
		}
		o.queue(ctx, store.FedEvent{Kind: kind, Actor: uid, Target: fan})
	}
	return err
}

// Like sends a Like (or its Undo) of a remote post; the handler finds out
// whether the post is remote.
func (o OutboundStore) Like(ctx context.Context, uid, mid int64, on bool) error {
	err := o.Service.Like(ctx, uid, mid, on)
	if err == nil {
		kind := store.FedLike
		if !on {
			kind = store.FedUnlike
		}
		o.queue(ctx, store.FedEvent{Kind: kind, Actor: uid, Post: mid})
	}
	return err
}

// Vote sends a vote in a remote post's poll to its server (one Note per
// choice, as Mastodon does: outVote). A vote in a local poll queues
// nothing: the post's object id, one GET, tells them apart.
func (o OutboundStore) Vote(ctx context.Context, viewer, mid int64, choices []int) (store.Poll, error) {
	p, err := o.Service.Vote(ctx, viewer, mid, choices)
	if err != nil {
		return p, err
	}
	if f, ok := o.Service.(store.Fed); ok {
		if obj, err := f.PostObject(ctx, mid); err == nil && obj != "" {
			o.queue(ctx, store.FedEvent{Kind: store.FedVote, Actor: viewer, Post: mid, Choices: choices})
		}
	}
	return p, nil
}

// EditPost sends the Update of the post.
func (o OutboundStore) EditPost(ctx context.Context, uid, mid int64, e store.PostEdit) (store.Post, error) {
	p, err := o.Service.EditPost(ctx, uid, mid, e)
	if err == nil {
		o.queue(ctx, store.FedEvent{Kind: store.FedUpdate, Actor: uid, Post: mid})
	}
	return p, err
}

// Edit sends the Update of the post.
func (o OutboundStore) Edit(ctx context.Context, uid, mid int64, content string) (store.Post, error) {
	p, err := o.Service.Edit(ctx, uid, mid, content)
	if err == nil {
		o.queue(ctx, store.FedEvent{Kind: store.FedUpdate, Actor: uid, Post: mid})
	}
	return p, err
}

// Delete sends the Delete of the post (the Undo of its Announce for a
// repost) where its Create went: what it reached is read before it goes.
func (o OutboundStore) Delete(ctx context.Context, uid, mid int64) error {
	p, perr := o.Service.Post(ctx, mid, uid)
	err := o.Service.Delete(ctx, uid, mid)
	if err != nil || perr != nil {
		return err
	}
	e := store.FedEvent{Kind: store.FedDelete, Actor: uid, Post: mid, Protected: p.Author.Protected}
	for _, m := range p.Mentions {
		e.Mentions = append(e.Mentions, m.ID)
	}
	if p.RepostOf != nil {
		e.Target, e.Parent = p.RepostOf.Author.ID, p.RepostOf.ID
	} else if p.ParentID != nil {
		if parent, err := o.Service.Post(ctx, *p.ParentID, uid); err == nil {
			e.Mentions = append(e.Mentions, parent.Author.ID)
		}
	}
	o.queue(ctx, e)
	return nil
}

// Unrepost sends the Undo of the Announce.
func (o OutboundStore) Unrepost(ctx context.Context, uid, mid int64) error {
	p, perr := o.Service.Post(ctx, mid, uid)
	repost := int64(0)
	if perr == nil {
		orig := p.ID
		if p.RepostOf != nil {
			orig = p.RepostOf.ID
		}
		repost = o.repostOf(ctx, uid, orig)
		mid = orig
	}
	err := o.Service.Unrepost(ctx, uid, mid)
	if err == nil && repost != 0 {
		author := p.Author.ID
		if p.RepostOf != nil {
			author = p.RepostOf.Author.ID
		}
		o.queue(ctx, store.FedEvent{Kind: store.FedDelete, Actor: uid, Post: repost, Target: author, Parent: mid})
	}
	return err
}

// repostOf finds uid's repost of orig among its newest posts; 0 when none.
func (o OutboundStore) repostOf(ctx context.Context, uid, orig int64) int64 {
	page, err := o.Service.UserPosts(ctx, uid, store.PageQuery{Limit: 100, Viewer: uid})
	if err != nil {
		return 0
	}
	for _, p := range page.Items {
		if p.RepostOf != nil && p.RepostOf.ID == orig {
			return p.ID
		}
	}
	return 0
}

// SendDM sends a private message to a remote account as a direct Note.
func (o OutboundStore) SendDM(ctx context.Context, nm store.NewDM) (store.DM, error) {
	m, err := o.Service.SendDM(ctx, nm)
	if err == nil && o.remote(ctx, nm.To) {
		dm := m
		dm.Encoded = nil
		o.queue(ctx, store.FedEvent{Kind: store.FedDM, Actor: nm.From, Target: nm.To, DM: &dm})
	}
	return m, err
}

// profileChanged queues the Update of uid's Person.
func (o OutboundStore) profileChanged(ctx context.Context, uid int64) {
	o.queue(ctx, store.FedEvent{Kind: store.FedProfile, Actor: uid})
}

// SetBio sends the Update of the Person.
func (o OutboundStore) SetBio(ctx context.Context, uid int64, bio string) (store.User, error) {
	u, err := o.Service.SetBio(ctx, uid, bio)
	if err == nil {
		o.profileChanged(ctx, uid)
	}
	return u, err
}

// SetProfile sends the Update of the Person.
func (o OutboundStore) SetProfile(ctx context.Context, uid int64, p store.ProfileUpdate) (store.User, error) {
	u, err := o.Service.SetProfile(ctx, uid, p)
	if err == nil {
		o.profileChanged(ctx, uid)
	}
	return u, err
}

// SetAvatar sends the Update of the Person.
func (o OutboundStore) SetAvatar(ctx context.Context, uid int64, name string) (store.User, error) {
	u, err := o.Service.SetAvatar(ctx, uid, name)
	if err == nil {
		o.profileChanged(ctx, uid)
	}
	return u, err
}

// SetHeader sends the Update of the Person.
func (o OutboundStore) SetHeader(ctx context.Context, uid int64, name string) (store.User, error) {
	u, err := o.Service.SetHeader(ctx, uid, name)
	if err == nil {
		o.profileChanged(ctx, uid)
	}
	return u, err
}

// SetProtected sends the Update of the Person (manuallyApprovesFollowers).
func (o OutboundStore) SetProtected(ctx context.Context, uid int64, on bool) (store.User, error) {
	u, err := o.Service.SetProtected(ctx, uid, on)
	if err == nil {
		o.profileChanged(ctx, uid)
	}
	return u, err
}

// DeleteAccount sends the Delete of the Person to its remote followers.
// Their inboxes and the account's signing key are read before it goes
// (the store removes the key with the account: no key of it is left), and
// the Delete is queued after, carrying the key, which signs it and goes
// with it (store.Delivery.Key).
func (o OutboundStore) DeleteAccount(ctx context.Context, uid int64, password string, at store.Attempt) error {
	var inboxes []string
	var key string
	if marked, _ := o.out.HasFedFans(ctx, uid); marked && o.fed != nil {
		if ib, err := o.fed.followerInboxes(ctx, uid); err == nil && len(ib) > 0 {
			if k, err := o.fed.keyOf(ctx, uid); err == nil {
				inboxes, key = ib, k
			}
		}
	}
	err := o.Service.DeleteAccount(ctx, uid, password, at)
	if o.fed != nil {
		o.fed.keys.Delete(uid)
	}
	if err == nil && len(inboxes) > 0 {
		if err := o.fed.enqueueKeyed(context.WithoutCancel(ctx), uid, o.fed.deleteActor(uid), inboxes, key); err != nil {
			o.log("federation: queue the Delete of a deleted account", "uid", uid, "err", err)
		}
	}
	return err
}
