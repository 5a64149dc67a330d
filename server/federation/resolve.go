package federation

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"microblog/store"
)

// Remote accounts: an actor is read by its id (a URL) or found by its
// handle name@domain through WebFinger, then kept as a user (store.Fed).

// ResolveHandle is the uid of the remote account name@domain (a leading @
// allowed), looked up through WebFinger and its actor the first time.
func (s *Service) ResolveHandle(ctx context.Context, handle string) (int64, error) {
	name, domain, ok := splitHandle(handle)
	if !ok {
		return 0, store.ErrUserNotFound
	}
	if strings.EqualFold(domain, s.Host()) {
		return s.st.UIDByName(ctx, name)
	}
	full := name + "@" + domain
	if uid, err := s.st.UIDByName(ctx, full); err == nil {
		return uid, nil
	}
	// Anyone may ask for name@domain (GET /api/v1/users/ is public): the
	// lookups of one domain are bounded, so that no one can make this
	// server hammer another.
	if err := s.st.Allow(ctx, "fed_lookup", strings.ToLower(domain), lookupLimit); err != nil {
		return 0, err
	}
	actorID, err := s.webFinger(ctx, full)
	if err != nil {
		return 0, err
	}
	a, err := s.RemoteActor(ctx, actorID, true)
	if err != nil {
		return 0, err
	}
	return a.UID, nil
}

// lookupLimit bounds the WebFinger lookups of unknown accounts of one
// domain, from every process together.
var lookupLimit = store.Limit{N: 60, Per: time.Minute}

// splitHandle reads name@domain (or @name@domain, or acct:name@domain).
func splitHandle(h string) (name, domain string, ok bool) {
	h = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(h), "acct:"), "@")
	name, domain, ok = strings.Cut(h, "@")
	if !ok || name == "" || len(name) > 100 || strings.ContainsAny(name, "/?#@ ") || store.NormalizeDomain(domain) == "" {
		return "", "", false
	}
	return name, strings.ToLower(domain), true
}

// jrd is a WebFinger answer.
type jrd struct {
	Subject string `json:"subject"`
	Links   []struct {
		Rel  string `json:"rel"`
		Type string `json:"type"`
		Href string `json:"href"`
	} `json:"links"`
}

// webFinger finds the actor id of name@domain.
func (s *Service) webFinger(ctx context.Context, handle string) (string, error) {
	_, domain, _ := splitHandle(handle)
	scheme := "https"
	if s.opt.AllowPrivate && strings.HasPrefix(s.base(), "http://") {
		// Closed networks and tests run peers on http:// (as this one).
		scheme = "http"
	}
	u := scheme + "://" + domain + "/.well-known/webfinger?resource=" + url.QueryEscape("acct:"+handle)
	var j jrd
	if _, err := s.fetchJSON(ctx, u, "application/jrd+json, application/json", &j); err != nil {
		if errors.Is(err, errGone) {
			return "", store.ErrUserNotFound
		}
		return "", remoteErr(err)
	}
	for _, l := range j.Links {
		if l.Rel == "self" && (strings.HasPrefix(l.Type, "application/activity+json") || strings.HasPrefix(l.Type, "application/ld+json")) && l.Href != "" {
			return l.Href, nil
		}
	}
	return "", store.ErrUserNotFound
}

// remoteErr turns a failed fetch into what an API answers: a blocked
// domain as it is, anything else as a user not found there.
func remoteErr(err error) error {
	if errors.Is(err, store.ErrDomainBlocked) || errors.Is(err, store.ErrUnavailable) {
		return err
	}
	return store.NewError(store.ErrNotFound, store.CodeRemoteFailed, "the remote account could not be read: "+err.Error())
}

// RemoteActor is the remote actor of actorID, read from its server when it
// is unknown, older than RefreshAfter, or refresh asks for it, and kept.
func (s *Service) RemoteActor(ctx context.Context, actorID string, refresh bool) (store.RemoteActor, error) {
	if s.IsLocal(actorID) {
		return store.RemoteActor{}, store.ErrUserNotFound
	}
	if !refresh {
		if a, ok := s.actors.get(actorID); ok {
			return a, nil
		}
	}
	known, err := s.st.RemoteActorByID(ctx, actorID)
	if err == nil && !refresh && time.Since(time.UnixMilli(known.Fetched)) < s.opt.RefreshAfter {
		s.actors.put(known)
		return known, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.RemoteActor{}, err
	}
	a, ferr := s.fetchActor(ctx, actorID)
	if ferr != nil {
		if known.UID != 0 { // a server away keeps what is known
			return known, nil
		}
		return store.RemoteActor{}, remoteErr(ferr)
	}
	uid, err := s.st.SaveRemoteActor(ctx, a)
	if err != nil {
		return store.RemoteActor{}, err
	}
	a.UID = uid
	s.actors.put(a)
	return a, nil
}

// actorCache remembers the remote actors this process read lately, for
// actorCacheTTL: an inbox busy with one server's deliveries checks each
// signature without reading the actor from Redis again. A key that fails
// reads the actor anew (withKey), so a rotated key costs one read.
type actorCache struct {
	mu sync.Mutex
	m  map[string]cachedActor
}

type cachedActor struct {
	a     store.RemoteActor
	until time.Time
}

// actorCacheTTL and actorCacheMax bound what the cache keeps.
const (
	actorCacheTTL = time.Minute
	actorCacheMax = 10000
)

func (c *actorCache) get(id string) (store.RemoteActor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || time.Now().After(e.until) {
		return store.RemoteActor{}, false
	}
	return e.a, true
}

func (c *actorCache) put(a store.RemoteActor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= actorCacheMax {
		c.m = map[string]cachedActor{}
	}
	c.m[a.ID] = cachedActor{a, time.Now().Add(actorCacheTTL)}
}

// forget drops an actor (it was deleted).
func (c *actorCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// fetchActor reads the actor actorID from its server.
func (s *Service) fetchActor(ctx context.Context, actorID string) (store.RemoteActor, error) {
	var d inDoc
	final, err := s.fetchJSON(ctx, actorID, activityAccept, &d)
	if err != nil {
		return store.RemoteActor{}, err
	}
	return s.actorFromDoc(&d, final)
}

// actorFromDoc checks an actor document read at final and makes it a
// RemoteActor: its id must be on the host it was read from.
func (s *Service) actorFromDoc(d *inDoc, final string) (store.RemoteActor, error) {
	switch d.typeOf() {
	case "Person", "Service", "Application", "Group", "Organization":
	default:
		return store.RemoteActor{}, fmt.Errorf("%w: not an actor (%q)", ErrFetch, d.typeOf())
	}
	idURL, err1 := url.Parse(d.ID)
	finalURL, err2 := url.Parse(final)
	if err1 != nil || err2 != nil || d.ID == "" || !strings.EqualFold(idURL.Host, finalURL.Host) {
		return store.RemoteActor{}, fmt.Errorf("%w: actor id %q is not on %s", ErrFetch, d.ID, finalURL.Host)
	}
	if d.Inbox == "" || d.PreferredUsername == "" || strings.ContainsAny(d.PreferredUsername, "@/ ") || len(d.PreferredUsername) > 100 {
		return store.RemoteActor{}, fmt.Errorf("%w: actor %q has no inbox or name", ErrFetch, d.ID)
	}
	var key struct {
		ID           string `json:"id"`
		Owner        string `json:"owner"`
		PublicKeyPem string `json:"publicKeyPem"`
	}
	firstOf(d.PublicKey, &key)
	if key.Owner != "" && key.Owner != d.ID {
		return store.RemoteActor{}, fmt.Errorf("%w: actor %q shows a key of %q", ErrFetch, d.ID, key.Owner)
	}
	a := store.RemoteActor{ID: d.ID, Handle: d.PreferredUsername + "@" + strings.ToLower(idURL.Host),
		Inbox: d.Inbox, SharedInbox: d.Endpoints.SharedInbox, Outbox: d.Outbox, Followers: d.Followers,
		Following: d.Following, KeyID: key.ID, KeyPEM: key.PublicKeyPem, URL: idOf(d.URL),
		Locked: d.ManuallyApprovesFollowers, Fetched: time.Now().UnixMilli(),
		Name: truncate(plainText(d.Name), 100), Bio: truncate(htmlToText(d.Summary), 500)}
	if a.URL == "" {
		a.URL = d.ID
	}
	if icon := imageURL(d.Icon); icon != "" {
		a.Avatar = icon
	}
	if img := imageURL(d.Image); img != "" {
		a.Header = img
	}
	for _, u := range []string{a.Inbox, a.SharedInbox} {
		if u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
			return store.RemoteActor{}, fmt.Errorf("%w: actor %q has a bad inbox", ErrFetch, d.ID)
		}
	}
	return a, nil
}
