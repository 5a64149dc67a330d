package federation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"microblog/store"
)

// Outbound: local events as activities (docs/federation.md "Delivery").
// The request path queues each event that may concern other servers on
// fed:outbox (store.FedEvent: a post by an author with remote followers,
// or one that mentions, answers or reposts a remote account, in the post's
// own write; the rest through OutboundStore); the outbound runner hands
// them to HandleEvent, which builds the activity, finds the inboxes it goes
// to and queues one Delivery.

// Outbox is what the outbound side needs of the store beyond Store.
type Outbox interface {
	store.FedOutbox
	store.DeliveryQueue
}

// fanPage is how many followers one read walks.
const fanPage = 1000

// HandleEvent turns one local event into a queued delivery. Events of
// remote actors (a remote post written through the store) go nowhere.
func (s *Service) HandleEvent(ctx context.Context, e store.FedEvent) error {
	switch e.Kind {
	case store.FedCreate, store.FedUpdate:
		return s.outPost(ctx, e)
	case store.FedDelete:
		return s.outDelete(ctx, e)
	case store.FedFollow, store.FedUnfollow, store.FedBlock, store.FedUnblock:
		return s.outRelation(ctx, e)
	case store.FedAccept, store.FedReject:
		ra, err := s.st.RemoteActorByUID(ctx, e.Target)
		if err != nil {
			return nil // not remote (or forgotten)
		}
		// The request's Follow as it came (onFollow kept its id).
		return s.answerFollow(ctx, e.Actor, ra, s.takeActivity(ctx, e.Actor, "request:"+itoa(e.Target)), e.Kind == store.FedAccept)
	case store.FedLike, store.FedUnlike:
		return s.outLike(ctx, e)
	case store.FedProfile, store.FedDeleteActor:
		return s.outActor(ctx, e)
	case store.FedDM:
		return s.outDM(ctx, e)
	case store.FedVote:
		return s.outVote(ctx, e)
	}
	return nil
}

// outPost sends the Create (or Update) of a post or comment, or the
// Announce of a repost, to the author's remote followers and to the remote
// accounts it mentions or answers (a protected author's: to its followers
// alone).
func (s *Service) outPost(ctx context.Context, e store.FedEvent) error {
	if _, err := s.localUser(ctx, e.Actor); err != nil {
		return nil // a remote account's post, or a user gone
	}
	p, err := s.eventPost(ctx, e)
	if err != nil {
		return err
	}
	var doc any
	switch {
	case p.RepostOf != nil:
		if e.Kind != store.FedCreate {
			return nil
		}
		doc = s.announceOf(ctx, p)
	case e.Kind == store.FedCreate:
		doc = s.activityOf(ctx, p)
	default:
		n := s.noteOf(ctx, p)
		edited := int64(p.CreatedAt)
		if p.EditedAt != nil {
			edited = int64(*p.EditedAt)
		}
		doc = Activity{Context: contextAS, ID: s.ActivityURL(fmt.Sprintf("update-%d-%d", p.ID, edited)), Type: "Update",
			Actor: n.AttributedTo, Object: n, Published: n.Updated, To: n.To, Cc: n.Cc}
	}
	inboxes, err := s.followerInboxes(ctx, e.Actor)
	if err != nil {
		return err
	}
	if !p.Author.Protected {
		var others []int64
		for _, m := range p.Mentions {
			others = append(others, m.ID)
		}
		if p.ParentID != nil {
			if parent, err := s.st.Post(ctx, *p.ParentID, e.Actor); err == nil {
				others = append(others, parent.Author.ID)
			}
		}
		if p.RepostOf != nil {
			others = append(others, p.RepostOf.Author.ID)
		}
		more, err := s.inboxesOf(ctx, others)
		if err != nil {
			return err
		}
		inboxes = append(inboxes, more...)
	}
	return s.enqueue(ctx, e.Actor, doc, inboxes)
}

// eventPost reads the post of a create or update event. On a Redis
// Cluster a post is indexed (and its event queued) before its last round
// trip shows it, so a post not found yet is looked for again for a while,
// and the event is left for later (not dropped) while it is young.
func (s *Service) eventPost(ctx context.Context, e store.FedEvent) (store.Post, error) {
	for wait := 20 * time.Millisecond; ; wait *= 2 {
		p, err := s.st.Post(ctx, e.Post, e.Actor)
		if err == nil || !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrPostNotFound) {
			return p, err
		}
		if wait > time.Second {
			if time.Since(time.UnixMilli(e.At)) < unfinishedFor {
				return p, fmt.Errorf("federation: post %d not shown yet: %w", e.Post, errNotYet)
			}
			return p, err
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// unfinishedFor is how long after it was written a post not found is
// taken for one still being written (the checker finishes or removes a
// post left half-written within a minute or two).
const unfinishedFor = 3 * time.Minute

// errNotYet is a post that may still show up.
var errNotYet = errors.New("not yet")

// outDelete sends the Delete of a post (a Tombstone; the Undo of its
// Announce for a repost) where its Create went.
func (s *Service) outDelete(ctx context.Context, e store.FedEvent) error {
	if _, err := s.localUser(ctx, e.Actor); err != nil {
		return nil
	}
	actor := s.ActorURL(e.Actor)
	to, cc := s.audience(store.Author{ID: e.Actor, Protected: e.Protected})
	var doc Activity
	if e.Target != 0 { // a repost of Target's post: Undo its Announce
		doc = Activity{Context: contextAS, ID: s.ActivityURL(fmt.Sprintf("undo-announce-%d", e.Post)), Type: "Undo", Actor: actor,
			Object: Activity{ID: s.PostURL(e.Post), Type: "Announce", Actor: actor, Object: s.objectIDOf(ctx, e.Parent)}, To: to, Cc: cc}
	} else {
		doc = Activity{Context: contextAS, ID: s.ActivityURL(fmt.Sprintf("delete-%d", e.Post)), Type: "Delete", Actor: actor,
			Object: map[string]string{"id": s.PostURL(e.Post), "type": "Tombstone"}, To: to, Cc: cc}
	}
	inboxes, err := s.followerInboxes(ctx, e.Actor)
	if err != nil {
		return err
	}
	if !e.Protected {
		more, err := s.inboxesOf(ctx, append(append([]int64{}, e.Mentions...), e.Target))
		if err != nil {
			return err
		}
		inboxes = append(inboxes, more...)
	}
	return s.enqueue(ctx, e.Actor, doc, inboxes)
}

// outRelation sends a Follow or a Block (or its Undo) of local user Actor to remote account Target.
func (s *Service) outRelation(ctx context.Context, e store.FedEvent) error {
	ra, err := s.st.RemoteActorByUID(ctx, e.Target)
	if err != nil {
		return nil // not remote (or forgotten): nothing to send
	}
	actor := s.ActorURL(e.Actor)
	var doc Activity
	switch e.Kind {
	case store.FedFollow:
		doc = Activity{ID: s.FollowID(e.Actor, ra.ID, itoa(e.At)), Type: "Follow", Actor: actor, Object: ra.ID}
		s.rememberActivity(ctx, e.Actor, "follow:"+itoa(e.Target), doc.ID) // its Undo names it (activities_sent.go)
	case store.FedUnfollow:
		doc = Activity{ID: s.ActivityURL(fmt.Sprintf("undo-follow-%d-%d-%d", e.Actor, e.Target, e.At)), Type: "Undo", Actor: actor,
			Object: Activity{ID: s.takeActivity(ctx, e.Actor, "follow:"+itoa(e.Target)), Type: "Follow", Actor: actor, Object: ra.ID}}
	case store.FedBlock:
		doc = Activity{ID: s.ActivityURL(fmt.Sprintf("block-%d-%d-%d", e.Actor, e.Target, e.At)), Type: "Block", Actor: actor, Object: ra.ID}
		s.rememberActivity(ctx, e.Actor, "block:"+itoa(e.Target), doc.ID)
	case store.FedUnblock:
		doc = Activity{ID: s.ActivityURL(fmt.Sprintf("undo-block-%d-%d-%d", e.Actor, e.Target, e.At)), Type: "Undo", Actor: actor,
			Object: Activity{ID: s.takeActivity(ctx, e.Actor, "block:"+itoa(e.Target)), Type: "Block", Actor: actor, Object: ra.ID}}
	}
	doc.Context = contextAS
	return s.enqueue(ctx, e.Actor, doc, []string{ra.Inbox})
}

// outLike sends a Like (or its Undo) of a remote post to its author.
func (s *Service) outLike(ctx context.Context, e store.FedEvent) error {
	obj, err := s.st.PostObject(ctx, e.Post)
	if err != nil || obj == "" {
		return err // a local post: nothing to send
	}
	p, err := s.st.Post(ctx, e.Post, e.Actor)
	if err != nil {
		return err
	}
	ra, err := s.st.RemoteActorByUID(ctx, p.Author.ID)
	if err != nil {
		return nil
	}
	actor := s.ActorURL(e.Actor)
	like := Activity{ID: s.ActivityURL(fmt.Sprintf("like-%d-%d-%d", e.Actor, e.Post, e.At)), Type: "Like", Actor: actor, Object: obj}
	doc := like
	if e.Kind == store.FedUnlike {
		like.ID = s.takeActivity(ctx, e.Actor, "like:"+itoa(e.Post)) // as it was sent (activities_sent.go)
		doc = Activity{ID: s.ActivityURL(fmt.Sprintf("undo-like-%d-%d-%d", e.Actor, e.Post, e.At)), Type: "Undo", Actor: actor, Object: like}
	} else {
		s.rememberActivity(ctx, e.Actor, "like:"+itoa(e.Post), like.ID)
	}
	doc.Context = contextAS
	return s.enqueue(ctx, e.Actor, doc, []string{ra.DeliveryInbox()})
}

// outVote sends a local user's vote in a remote poll to the poll's author
// as Mastodon does: for each option chosen, a Create of a Note whose name
// is the option's text, inReplyTo the Question, addressed to the author
// alone, without content. The poll's server counts it and sends its new
// counts back in an Update of the Question.
func (s *Service) outVote(ctx context.Context, e store.FedEvent) error {
	if _, err := s.localUser(ctx, e.Actor); err != nil {
		return nil
	}
	obj, err := s.st.PostObject(ctx, e.Post)
	if err != nil || obj == "" {
		return err
	}
	p, err := s.st.Post(ctx, e.Post, e.Actor)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrPostNotFound) {
			return nil
		}
		return err
	}
	if p.Poll == nil {
		return nil
	}
	ra, err := s.st.RemoteActorByUID(ctx, p.Author.ID)
	if err != nil {
		return nil
	}
	actor := s.ActorURL(e.Actor)
	for _, c := range e.Choices {
		if c < 0 || c >= len(p.Poll.Options) {
			continue
		}
		id := s.ActivityURL(fmt.Sprintf("vote-%d-%d-%d", e.Actor, e.Post, c))
		note := map[string]any{"id": id, "type": "Note", "attributedTo": actor, "name": p.Poll.Options[c].Title,
			"inReplyTo": obj, "to": []string{ra.ID}}
		doc := Activity{Context: contextAS, ID: id + "/activity", Type: "Create", Actor: actor, Object: note, To: []string{ra.ID}}
		if err := s.enqueue(ctx, e.Actor, doc, []string{ra.Inbox}); err != nil {
			return err
		}
	}
	return nil
}

// outActor sends the Update of a local user's Person to its remote
// followers, or its Delete once the account is deleted (to the inboxes the
// event's Mentions name: its followers', found before it went).
func (s *Service) outActor(ctx context.Context, e store.FedEvent) error {
	if e.Kind == store.FedDeleteActor {
		// Queued by an older process (the Delete now goes with the
		// account's deletion: OutboundStore.DeleteAccount), whose key went
		// with it: sent when a key is still there.
		inboxes, err := s.inboxesOf(ctx, e.Mentions)
		if err != nil {
			return err
		}
		key, err := s.keyOf(ctx, e.Actor)
		if err != nil {
			return nil
		}
		return s.enqueueKeyed(ctx, e.Actor, s.deleteActor(e.Actor), inboxes, key)
	}
	u, err := s.localUser(ctx, e.Actor)
	if err != nil {
		return nil
	}
	if marked, err := s.fedOut().HasFedFans(ctx, e.Actor); err != nil || !marked {
		return err
	}
	p, err := s.person(ctx, u)
	if err != nil {
		return err
	}
	p.Context = nil
	doc := Activity{Context: contextAS, ID: s.ActivityURL(fmt.Sprintf("update-person-%d-%d", e.Actor, e.At)), Type: "Update",
		Actor: p.ID, Object: p, To: []string{Public}}
	inboxes, err := s.followerInboxes(ctx, e.Actor)
	if err != nil {
		return err
	}
	return s.enqueue(ctx, e.Actor, doc, inboxes)
}

// outDM sends a private message to a remote account as a Note addressed
// to it alone.
func (s *Service) outDM(ctx context.Context, e store.FedEvent) error {
	ra, err := s.st.RemoteActorByUID(ctx, e.Target)
	if err != nil || e.DM == nil {
		return nil
	}
	actor := s.ActorURL(e.Actor)
	id := s.base() + fmt.Sprintf("/ap/dms/%d", e.DM.ID)
	n := Note{ID: id, Type: "Note", AttributedTo: actor, Content: textToHTML(e.DM.Content), Published: rfc3339(e.DM.CreatedAt),
		URL: id, To: []string{ra.ID}, Cc: []string{}, Attachment: []Image{},
		Tag: []Tag{{Type: "Mention", Href: ra.ID, Name: "@" + ra.Handle}}}
	for _, m := range e.DM.Media {
		n.Attachment = append(n.Attachment, Image{Type: "Document", MediaType: mediaTypeOf(m.URL), URL: s.absolute(m.URL),
			Name: m.Alt, Blurhash: m.Blurhash, Width: m.Width, Height: m.Height})
	}
	doc := Activity{Context: contextAS, ID: id + "/activity", Type: "Create", Actor: actor, Object: n, Published: n.Published,
		To: n.To, Cc: n.Cc}
	return s.enqueue(ctx, e.Actor, doc, []string{ra.Inbox})
}

// followerInboxes are the inboxes of uid's remote followers, each shared
// inbox once. Only a user with remote followers (fed_fans) is walked.
func (s *Service) followerInboxes(ctx context.Context, uid int64) ([]string, error) {
	if marked, err := s.fedOut().HasFedFans(ctx, uid); err != nil || !marked {
		return nil, err
	}
	var inboxes []string
	for offset := int64(0); ; offset += fanPage {
		fans, err := s.fedOut().FanIDs(ctx, uid, offset, fanPage)
		if err != nil {
			return nil, err
		}
		more, err := s.inboxesOf(ctx, fans)
		if err != nil {
			return nil, err
		}
		inboxes = append(inboxes, more...)
		if len(fans) < fanPage {
			return inboxes, nil
		}
	}
}

// inboxesOf are the delivery inboxes of the remote accounts among uids.
func (s *Service) inboxesOf(ctx context.Context, uids []int64) ([]string, error) {
	var ids []int64
	for _, u := range uids {
		if u != 0 {
			ids = append(ids, u)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	actors, err := s.st.RemoteActorsByUID(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(actors))
	for _, a := range actors {
		out = append(out, a.DeliveryInbox())
	}
	return out, nil
}

// deleteActor is the Delete of local user uid's Person.
func (s *Service) deleteActor(uid int64) Activity {
	actor := s.ActorURL(uid)
	return Activity{Context: contextAS, ID: actor + "#delete", Type: "Delete", Actor: actor, Object: actor, To: []string{Public}}
}

// enqueue queues doc, signed by signer, to inboxes (nothing when none).
func (s *Service) enqueue(ctx context.Context, signer int64, doc any, inboxes []string) error {
	return s.enqueueKeyed(ctx, signer, doc, inboxes, "")
}

// enqueueKeyed is enqueue with the signing key carried along (key, PEM;
// "" signs with signer's stored key).
func (s *Service) enqueueKeyed(ctx context.Context, signer int64, doc any, inboxes []string, key string) error {
	if len(inboxes) == 0 {
		return nil
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var id struct {
		ID string `json:"id"`
	}
	json.Unmarshal(body, &id)
	return s.opt.Deliverer.EnqueueDelivery(ctx, store.Delivery{ID: id.ID, Signer: signer, Body: body, Inboxes: inboxes, Key: key})
}

// fedOut is the store's side of the outbound queue.
func (s *Service) fedOut() store.FedOutbox {
	o, _ := s.st.(store.FedOutbox)
	return o
}
