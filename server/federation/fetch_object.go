package federation

import (
	"context"
	"encoding/json"
	"errors"

	"microblog/store"
)

// Remote notes not seen here yet: an Announce of one, a reply to one, or
// a URL looked up through the Mastodon API's search names a note that no
// Create brought. It is fetched from its server (signed by the instance
// actor: servers in secure mode answer signed fetches only) and taken in
// as its author's post, as its Create would have made it. A note read so
// fetches nothing more (depth 1): its own parent, if unknown, stays
// unknown.

// fetchingKey marks a context under which a note is being fetched.
type fetchingKey struct{}

// fetchNote is the local message of the note id: known here, or fetched
// and taken in; 0 when it is neither (unreadable, not public, not its
// author's, or refused by the store's rules).
func (s *Service) fetchNote(ctx context.Context, id string) (int64, error) {
	mid, err := s.postOf(ctx, id)
	if err != nil || mid != 0 || id == "" || s.IsLocal(id) || ctx.Value(fetchingKey{}) != nil {
		return mid, err
	}
	ctx = context.WithValue(ctx, fetchingKey{}, true)
	var raw json.RawMessage
	final, err := s.fetchJSON(ctx, id, activityAccept, &raw)
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			return 0, err
		}
		s.opt.Logger.Info("federation: note not fetched", "id", id, "err", err)
		return 0, nil
	}
	return s.takeFetchedNote(ctx, raw, final)
}

// takeFetchedNote takes in a note fetched at final: its id must be on the
// server it was read from and its author on the same; only a public note
// is taken.
func (s *Service) takeFetchedNote(ctx context.Context, raw json.RawMessage, final string) (int64, error) {
	d, ok := embedded(raw)
	if !ok {
		return 0, nil
	}
	switch d.typeOf() {
	case "Note", "Question", "Article", "Page":
	default:
		return 0, nil
	}
	author := idOf(d.AttributedTo)
	if d.ID == "" || !sameHost(d.ID, final) || author == "" || !sameHost(author, d.ID) || !isPublic(d) {
		return 0, nil
	}
	if mid, err := s.st.ObjectPost(ctx, d.ID); err != nil || mid != 0 {
		return mid, err
	}
	actor, err := s.RemoteActor(ctx, author, false)
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			return 0, err
		}
		return 0, nil
	}
	create := &inDoc{ID: d.ID, Type: json.RawMessage(`"Create"`), Object: raw}
	if err := s.onCreate(ctx, actor, create); err != nil {
		var b *badActivity
		if errors.As(err, &b) {
			return 0, nil
		}
		return 0, err
	}
	return s.st.ObjectPost(ctx, d.ID)
}

// isPublic tells whether a note is addressed to the public.
func isPublic(d *inDoc) bool {
	for _, r := range append(idsOf(d.To), idsOf(d.Cc)...) {
		if r == Public || r == "as:Public" || r == "Public" {
			return true
		}
	}
	return false
}

// ResolveURL finds what a URL names, for a search with resolve=true: a
// local or remote account (uid) or post (mid), read from its server the
// first time; both 0 when it names neither.
func (s *Service) ResolveURL(ctx context.Context, u string) (uid, mid int64, err error) {
	if s.IsLocal(u) {
		if uid, ok := s.LocalUID(u); ok {
			return uid, 0, nil
		}
		mid, _ := s.LocalPost(u)
		return 0, mid, nil
	}
	if a, err := s.st.RemoteActorByID(ctx, u); err == nil {
		return a.UID, 0, nil
	}
	if mid, err := s.st.ObjectPost(ctx, u); err != nil || mid != 0 {
		return 0, mid, err
	}
	var raw json.RawMessage
	final, err := s.fetchJSON(ctx, u, activityAccept, &raw)
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrDomainBlocked) {
			return 0, 0, err
		}
		return 0, 0, nil
	}
	d, ok := embedded(raw)
	if !ok {
		return 0, 0, nil
	}
	switch d.typeOf() {
	case "Person", "Service", "Application", "Group", "Organization":
		if known, err := s.st.RemoteActorByID(ctx, d.ID); err == nil { // u was its page
			return known.UID, 0, nil
		}
		a, err := s.actorFromDoc(d, final)
		if err != nil {
			return 0, 0, nil
		}
		uid, err := s.st.SaveRemoteActor(ctx, a)
		if err != nil {
			return 0, 0, err
		}
		a.UID = uid
		s.actors.put(a)
		return uid, 0, nil
	}
	mid, err = s.takeFetchedNote(context.WithValue(ctx, fetchingKey{}, true), raw, final)
	return 0, mid, err
}
