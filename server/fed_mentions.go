package main

import (
	"context"
	"strings"
	"sync"
	"time"

	"microblog/store"
)

// Mentions of remote accounts not seen before: @name@domain in a post
// written here mentions that account (CONTRACT.md §16), so before the
// store reads the text's mentions (which it finds among the users it
// knows), the API's store looks the unknown ones up through WebFinger.
// A few at most per message, in a bounded time; one that fails stays text.

// Bounds of the lookups one message's text makes.
const (
	mentionLookups    = 4
	mentionLookupTime = 5 * time.Second
)

// resolveMentions looks up the @name@domain mentions of text that are not
// known here yet.
func (r remoteNames) resolveMentions(ctx context.Context, text string) {
	if !strings.Contains(text, "@") {
		return
	}
	var todo []string
	for _, name := range store.ParseText(text).Mentions {
		if !strings.Contains(name, "@") {
			continue
		}
		if _, err := r.Service.UIDByName(ctx, name); err == nil {
			continue // known
		}
		todo = append(todo, name)
		if len(todo) == mentionLookups {
			break
		}
	}
	if len(todo) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mentionLookupTime)
	defer cancel()
	var wg sync.WaitGroup
	for _, name := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = r.fed.ResolveHandle(ctx, name) // a failure leaves it text
		}()
	}
	wg.Wait()
}

// Create resolves the text's unknown remote mentions first.
func (r remoteNames) Create(ctx context.Context, np store.NewPost) (store.Post, error) {
	r.resolveMentions(ctx, np.Content)
	return r.Service.Create(ctx, np)
}

// EditPost resolves the new text's unknown remote mentions first.
func (r remoteNames) EditPost(ctx context.Context, uid, mid int64, e store.PostEdit) (store.Post, error) {
	r.resolveMentions(ctx, e.Content)
	return r.Service.EditPost(ctx, uid, mid, e)
}

// Edit resolves the new text's unknown remote mentions first.
func (r remoteNames) Edit(ctx context.Context, uid, mid int64, content string) (store.Post, error) {
	r.resolveMentions(ctx, content)
	return r.Service.Edit(ctx, uid, mid, content)
}
