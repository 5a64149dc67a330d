package federation

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"microblog/store"
)

// Notes that arrive: a Create makes a post by the remote account (a
// comment when it answers a message known here, a private message when it
// is addressed to one local user alone), an Update edits it, a Delete
// deletes it. Only the actor's own notes are taken.

// onCreate takes in a Note (or a Question, or an Article, kept as text).
func (s *Service) onCreate(ctx context.Context, actor store.RemoteActor, act *inDoc) error {
	obj, ok := embedded(act.Object)
	if !ok {
		return ignore(ctx) // a bare link: nothing to take without a fetch
	}
	switch obj.typeOf() {
	case "Note", "Question", "Article", "Page":
	default:
		return ignore(ctx)
	}
	if obj.ID == "" || !sameHost(obj.ID, actor.ID) || idOf(obj.AttributedTo) != "" && idOf(obj.AttributedTo) != actor.ID {
		return bad("a note must be the actor's own, on its server")
	}
	if mid, ok := s.voteIn(obj); ok {
		return s.takeVote(ctx, actor, mid, obj) // notes_in_poll.go
	}
	if mid, err := s.st.ObjectPost(ctx, obj.ID); err != nil || mid != 0 {
		return err // taken already
	}
	recipients := append(idsOf(obj.To), idsOf(obj.Cc)...)
	if len(recipients) == 0 {
		recipients = append(idsOf(act.To), idsOf(act.Cc)...)
	}
	public, followers := false, false
	var locals []int64
	for _, r := range recipients {
		switch {
		case r == Public || r == "as:Public" || r == "Public":
			public = true
		case r == actor.Followers && r != "":
			followers = true
		default:
			if uid := s.localTarget(r); uid != 0 {
				locals = append(locals, uid)
			}
		}
	}
	text := s.noteText(ctx, obj)
	switch {
	case public || followers && actor.Locked:
		// Public, or for the followers of a protected account, whom the
		// store's rule shows it to alone.
	case followers:
		// Followers-only from an account that is not protected here: the
		// store could not keep it from others, so it is not taken.
		return ignore(ctx)
	case len(locals) > 0:
		return s.takeDM(ctx, actor, obj, text, locals)
	default:
		return ignore(ctx)
	}
	np := store.NewPost{Author: actor.UID, Content: cutNote(text, noteLink(obj)),
		Spoiler: truncate(plainText(obj.Summary), store.MaxSpoiler), IdempotencyKey: idemKey(obj.ID), URL: originalURL(obj)}
	if parent := idOf(obj.InReplyTo); parent != "" {
		pid, err := s.fetchNote(ctx, parent) // an unknown parent is fetched (fetch_object.go)
		if err != nil {
			return err
		}
		// A reply to a comment answers the post the comment is on: the
		// service's comments are one level deep.
		if pid != 0 {
			if pp, err := s.st.Post(ctx, pid, actor.UID); err == nil && pp.ParentID != nil {
				pid = *pp.ParentID
			}
		}
		np.Parent = pid
	}
	if np.Parent == 0 {
		ids, err := s.takeImages(ctx, actor, obj) // fetched and kept here (media_in.go)
		if err != nil {
			return err
		}
		np.MediaIDs = ids
		np.Poll = pollOf(obj, time.Now()) // a Question's (notes_in_poll.go)
	}
	if np.Content == "" && len(np.MediaIDs) == 0 {
		np.Content = obj.ID // nothing to show but where it is
	}
	p, err := s.st.Create(ctx, np)
	if err != nil {
		if isRefusal(err) {
			s.opt.Logger.Info("federation: note not taken", "id", obj.ID, "err", err)
			return nil
		}
		return err
	}
	if err := s.st.SetObjectPost(ctx, obj.ID, p.ID, originalURL(obj)); err != nil {
		return err
	}
	return s.takePollCounts(ctx, p.ID, obj)
}

// takeDM makes a direct note a private message to each local recipient.
func (s *Service) takeDM(ctx context.Context, actor store.RemoteActor, obj *inDoc, text string, to []int64) error {
	if text == "" {
		return ignore(ctx)
	}
	for _, uid := range to {
		_, err := s.st.SendDM(ctx, store.NewDM{From: actor.UID, To: uid, Content: truncate(text, store.MaxDM),
			IdempotencyKey: idemKey(obj.ID + " " + itoa(uid))})
		if err != nil && !isRefusal(err) {
			return err
		}
	}
	return nil
}

// takeMedia records a note's images (at most store.MaxMedia) as uploads
// of the actor's that point at their URLs there, with alt text and
// blurhash.
func (s *Service) takeMedia(ctx context.Context, actor store.RemoteActor, obj *inDoc) ([]int64, error) {
	var ids []int64
	for _, a := range docsOf(obj.Attachment) {
		if len(ids) == store.MaxMedia {
			break
		}
		u := idOf(a.URL)
		if u == "" {
			u = a.Href
		}
		if !strings.HasPrefix(u, "https://") && !(s.opt.AllowPrivate && strings.HasPrefix(u, "http://")) {
			continue
		}
		if a.MediaType != "" && !strings.HasPrefix(a.MediaType, "image/") {
			continue
		}
		m, err := s.st.SaveMedia(ctx, actor.UID, store.MediaFile{Name: u, ThumbName: u,
			Alt: truncate(plainText(a.Name), store.MaxAlt), Blurhash: a.Blurhash})
		if err != nil {
			return nil, err
		}
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// reMention finds an @name, with @domain or not, not glued to a word.
func mentionRe(name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\w@.])@` + regexp.QuoteMeta(name) + `(@[A-Za-z0-9.:\-]+)?\b`)
}

// noteText is a note's content as the service's text, its mentions
// written as the service reads them: @name for a local user, @name@domain
// for a remote one.
func (s *Service) noteText(ctx context.Context, obj *inDoc) string {
	content := obj.Content
	if content == "" {
		for _, c := range obj.ContentMap {
			content = c
			break
		}
	}
	text := htmlToText(content)
	// A remote poll's choices are kept as lines of text when the poll
	// cannot be kept as a poll (notes_in_poll.go).
	if pollOf(obj, time.Now()) == nil {
		for _, ch := range append(docsOf(obj.OneOf), docsOf(obj.AnyOf)...) {
			if name := plainText(ch.Name); name != "" {
				text += "\n○ " + name
			}
		}
	}
	for _, t := range docsOf(obj.Tag) {
		if t.typeOf() != "Mention" {
			continue
		}
		href := t.Href
		if href == "" {
			href = t.ID
		}
		name, domain, _ := strings.Cut(strings.TrimPrefix(t.Name, "@"), "@")
		if name == "" || len(name) > 100 {
			continue
		}
		var want string
		if uid := s.localTarget(href); uid != 0 {
			u, err := s.localUser(ctx, uid)
			if err != nil {
				continue
			}
			want = "@" + u.Username
		} else if domain != "" {
			want = "@" + name + "@" + domain
		} else {
			continue
		}
		text = mentionRe(name).ReplaceAllString(text, "${1}"+strings.ReplaceAll(want, "$", "$$"))
	}
	return text
}

// onUpdate edits a note taken in, or reads the actor again.
func (s *Service) onUpdate(ctx context.Context, actor store.RemoteActor, act *inDoc) error {
	obj, ok := embedded(act.Object)
	if !ok {
		return ignore(ctx)
	}
	switch obj.typeOf() {
	case "Person", "Service", "Application", "Group", "Organization":
		if obj.ID != actor.ID {
			return bad("one can only update one's own actor")
		}
		_, err := s.RemoteActor(ctx, actor.ID, true)
		return err
	case "Note", "Question", "Article", "Page":
	default:
		return ignore(ctx)
	}
	mid, err := s.st.ObjectPost(ctx, obj.ID)
	if err != nil || mid == 0 {
		return err
	}
	spoiler := truncate(plainText(obj.Summary), store.MaxSpoiler)
	_, err = s.st.EditPost(ctx, actor.UID, mid, store.PostEdit{Content: cutNote(s.noteText(ctx, obj), noteLink(obj)), Spoiler: &spoiler})
	switch {
	case errors.Is(err, store.ErrNotAuthor) || hasCode(err, store.CodeNotAuthor):
		return bad("one can only edit one's own notes")
	case err != nil && !isRefusal(err):
		return err
	}
	return s.takePollCounts(ctx, mid, obj) // a Question's new counts
}

// onDelete deletes a note taken in, or the actor itself.
func (s *Service) onDelete(ctx context.Context, actor store.RemoteActor, act *inDoc) error {
	object := idOf(act.Object)
	if object == actor.ID {
		s.actors.forget(actor.ID)
		return s.st.ForgetRemoteActor(ctx, actor.UID)
	}
	mid, err := s.st.ObjectPost(ctx, object)
	if err != nil || mid == 0 {
		return err
	}
	return s.deleteOwn(ctx, actor, object, mid)
}
