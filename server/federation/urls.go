package federation

import (
	"net/url"
	"strconv"
	"strings"
)

// The URLs of local things, under the public URL P (CONTRACT.md §16,
// docs/federation.md).

func (s *Service) base() string { return strings.TrimRight(s.opt.PublicURL(), "/") }

// Host is the public URL's host (with its port, if any): the domain of
// every local handle.
func (s *Service) Host() string {
	u, err := url.Parse(s.base())
	if err != nil {
		return ""
	}
	return u.Host
}

// ActorURL is the actor of local user uid: P/ap/users/<uid>.
func (s *Service) ActorURL(uid int64) string {
	return s.base() + "/ap/users/" + strconv.FormatInt(uid, 10)
}

// InstanceActorURL is the instance actor, which signs fetches: P/ap/actor.
func (s *Service) InstanceActorURL() string { return s.base() + "/ap/actor" }

// KeyID is the id of uid's public key (0: the instance actor's).
func (s *Service) KeyID(uid int64) string {
	if uid == 0 {
		return s.InstanceActorURL() + "#main-key"
	}
	return s.ActorURL(uid) + "#main-key"
}

// SharedInboxURL is P/ap/inbox.
func (s *Service) SharedInboxURL() string { return s.base() + "/ap/inbox" }

// ProfileURL is the front ends' page of a user: P/u/<username>.
func (s *Service) ProfileURL(username string) string {
	return s.base() + "/u/" + url.PathEscape(username)
}

// PostURL is the object of message mid: P/ap/posts/<mid>.
func (s *Service) PostURL(mid int64) string {
	return s.base() + "/ap/posts/" + strconv.FormatInt(mid, 10)
}

// PostPageURL is the front ends' page of message mid: P/p/<mid>.
func (s *Service) PostPageURL(mid int64) string {
	return s.base() + "/p/" + strconv.FormatInt(mid, 10)
}

// CreateURL is the id of the Create activity of message mid.
func (s *Service) CreateURL(mid int64) string { return s.PostURL(mid) + "/activity" }

// ActivityURL is the id of another activity: P/ap/activities/<unique>.
func (s *Service) ActivityURL(unique string) string {
	return s.base() + "/ap/activities/" + url.PathEscape(unique)
}

// LocalUID reads the uid of a local actor URL; false for anything else.
func (s *Service) LocalUID(actor string) (int64, bool) {
	rest, ok := strings.CutPrefix(actor, s.base()+"/ap/users/")
	if !ok {
		return 0, false
	}
	uid, err := strconv.ParseInt(rest, 10, 64)
	return uid, err == nil && uid > 0
}

// LocalPost reads the message id of a local post object URL (or of its
// page); false for anything else.
func (s *Service) LocalPost(object string) (int64, bool) {
	rest, ok := strings.CutPrefix(object, s.base()+"/ap/posts/")
	if !ok {
		if rest, ok = strings.CutPrefix(object, s.base()+"/p/"); !ok {
			return 0, false
		}
	}
	mid, err := strconv.ParseInt(rest, 10, 64)
	return mid, err == nil && mid > 0
}

// IsLocal tells whether u is under the public URL.
func (s *Service) IsLocal(u string) bool {
	return strings.HasPrefix(u, s.base()+"/")
}
