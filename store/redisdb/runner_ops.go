package redisdb

import (
	"time"

	"microblog/store"
)

// What the background runners (package runner, whose Ops lists it) ask of
// the Store beside its operations: the settings they share with the request
// path, and the process's caches, which the cache listener keeps.

// HotWindow is how many ids each F and G set and the public timeline keep.
func (s *Store) HotWindow() int { return s.opt.HotWindow }

// ConversationWindow is how many ids each side of a conversation keeps.
func (s *Store) ConversationWindow() int { return s.opt.ConversationWindow }

// InactiveAfter is how long a user may be away and still get pushes.
func (s *Store) InactiveAfter() time.Duration { return s.opt.InactiveAfter }

// Archive is the SQL archive, nil without one.
func (s *Store) Archive() store.Archive { return s.opt.Archive }

// SetCachesLive turns the session, avatar and lens caches on while the
// cache listener hears every change (on), and off otherwise.
func (s *Store) SetCachesLive(on bool) { s.caches.setLive(on) }

// ForgetSession drops an ended session from this process's cache.
func (s *Store) ForgetSession(tokenHash string) { s.caches.sessions.Forget(tokenHash) }

// ForgetAuthor drops user uid's card (name, avatar) from this process's cache.
func (s *Store) ForgetAuthor(uid int64) { s.caches.authors.Forget(uid) }

// ForgetLens drops what user uid may see from this process's cache.
func (s *Store) ForgetLens(uid int64) { s.caches.lenses.Forget(uid) }
