package main

import (
	"context"

	"microblog/store"
)

// An edit's @name@domain mentions of remote accounts not seen before are
// looked up as a new post's are (remoteNames.Create, fed_config.go), so
// that the edit mentions them; @name@<this server's domain> is @name.

// EditPost resolves the new text's unknown remote mentions first.
func (r remoteNames) EditPost(ctx context.Context, uid, mid int64, e store.PostEdit) (store.Post, error) {
	e.Content = r.localMentions(e.Content)
	r.resolveMentions(ctx, e.Content)
	return r.Service.EditPost(ctx, uid, mid, e)
}

// Edit resolves the new text's unknown remote mentions first.
func (r remoteNames) Edit(ctx context.Context, uid, mid int64, content string) (store.Post, error) {
	content = r.localMentions(content)
	r.resolveMentions(ctx, content)
	return r.Service.Edit(ctx, uid, mid, content)
}
