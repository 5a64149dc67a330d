package federation

import (
	"context"

	"microblog/store"
)

// The ids a later activity names again (store.SentActivities): an Undo
// embeds the Follow, Like or Block it undoes with the id it was sent
// with, and the Accept (or Reject) of a request a protected account
// approved embeds the remote Follow with the id it came with. A store
// that keeps none, or an id lost, leaves the embedded activity without
// an id, which receivers match by its actor and object.

// rememberActivity keeps id as uid's activity what; a failure is logged
// (the activity goes all the same).
func (s *Service) rememberActivity(ctx context.Context, uid int64, what, id string) {
	sa, ok := s.st.(store.SentActivities)
	if !ok {
		return
	}
	if err := sa.RememberActivity(ctx, uid, what, id); err != nil {
		s.opt.Logger.Warn("federation: remember activity", "what", what, "err", err)
	}
}

// takeActivity is uid's activity what, forgotten; "" when none is kept.
func (s *Service) takeActivity(ctx context.Context, uid int64, what string) string {
	sa, ok := s.st.(store.SentActivities)
	if !ok {
		return ""
	}
	id, err := sa.TakeActivity(ctx, uid, what)
	if err != nil {
		s.opt.Logger.Warn("federation: take activity", "what", what, "err", err)
	}
	return id
}
