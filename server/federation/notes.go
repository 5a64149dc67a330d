package federation

import (
	"context"
	"errors"
	"html"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// note answers GET /ap/posts/:id: a post or a comment as a Note (a
// Question with a poll), a repost as its Announce. A protected account's
// message is served only to a fetch signed by one of its approved
// followers; a deleted, hidden or unknown one is 404.
func (s *Service) note(c echo.Context) error {
	p, err := s.readable(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if p.RepostOf != nil {
		return serve(c, s.PostPageURL(p.ID), s.announceOf(ctx, p))
	}
	n := s.noteOf(ctx, p)
	n.Context = contextAS
	return serve(c, s.PostPageURL(p.ID), n)
}

// createActivity answers GET /ap/posts/:id/activity: the Create of a post.
func (s *Service) createActivity(c echo.Context) error {
	p, err := s.readable(c)
	if err != nil {
		return err
	}
	return serve(c, s.PostPageURL(p.ID), s.activityOf(c.Request().Context(), p))
}

// readable is the local message of the path that the fetcher may read.
func (s *Service) readable(c echo.Context) (store.Post, error) {
	mid, ok := pathID(c, "id")
	if !ok {
		return store.Post{}, errNotFound
	}
	ctx := c.Request().Context()
	viewer := s.signedFetcher(c)
	p, err := s.st.Post(ctx, mid, viewer)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return store.Post{}, errNotFound
		}
		return store.Post{}, err
	}
	// A remote account's post is served by its own server; a protected
	// account's only to its approved followers (the store's rule, with the
	// signed fetcher as the reader).
	if obj, _ := s.st.PostObject(ctx, mid); obj != "" {
		return store.Post{}, errNotFound
	}
	if p.Author.Protected && (viewer == 0 || !p.Author.Approved && viewer != p.Author.ID) {
		return store.Post{}, errNotFound
	}
	return p, nil
}

// audience is who a message of author is addressed to: the public and its
// followers, or its followers alone for a protected account.
func (s *Service) audience(author store.Author) (to, cc []string) {
	followers := s.ActorURL(author.ID) + "/followers"
	if author.Protected {
		return []string{followers}, []string{}
	}
	return []string{Public}, []string{followers}
}

// noteOf is p (a post or a comment) as a Note.
func (s *Service) noteOf(ctx context.Context, p store.Post) Note {
	to, cc := s.audience(p.Author)
	n := Note{ID: s.PostURL(p.ID), Type: "Note", AttributedTo: s.ActorURL(p.Author.ID),
		Content: textToHTML(p.Content), Published: rfc3339(p.CreatedAt), URL: s.PostPageURL(p.ID),
		To: to, Cc: cc, Tag: []Tag{}, Attachment: []Image{}}
	if p.EditedAt != nil {
		n.Updated = rfc3339(*p.EditedAt)
	}
	if p.Spoiler != "" {
		sp := p.Spoiler
		n.Summary, n.Sensitive = &sp, true
	}
	if p.ParentID != nil {
		parent := s.objectIDOf(ctx, *p.ParentID)
		n.InReplyTo = &parent
	}
	for _, m := range p.Mentions {
		id := s.actorIDOfAuthor(ctx, m)
		if id == "" {
			continue
		}
		n.Tag = append(n.Tag, Tag{Type: "Mention", Href: id, Name: "@" + s.handleOf(m.Username)})
		if !slicesContains(n.Cc, id) {
			n.Cc = append(n.Cc, id)
		}
	}
	for _, t := range p.Tags {
		n.Tag = append(n.Tag, Tag{Type: "Hashtag", Href: s.base() + "/tags/" + t, Name: "#" + t})
	}
	for _, m := range p.Media {
		n.Attachment = append(n.Attachment, Image{Type: "Document", MediaType: mediaTypeOf(m.URL), URL: s.absolute(m.URL),
			Name: m.Alt, Blurhash: m.Blurhash, Width: m.Width, Height: m.Height})
	}
	if p.Poll != nil {
		n.Type = "Question"
		choices := make([]Choice, len(p.Poll.Options))
		for i, o := range p.Poll.Options {
			choices[i].Type, choices[i].Name = "Note", o.Title
			choices[i].Replies.Type, choices[i].Replies.TotalItems = "Collection", o.VotesCount
		}
		if p.Poll.Multiple {
			n.AnyOf = choices
		} else {
			n.OneOf = choices
		}
		n.EndTime = rfc3339(p.Poll.ExpiresAt)
		voters := p.Poll.VotersCount
		n.VotersCount = &voters
	}
	return n
}

// NoteOf is p as a Note (for the activities that carry it).
func (s *Service) NoteOf(ctx context.Context, p store.Post) Note { return s.noteOf(ctx, p) }

// activityOf is the Create of p (a post or a comment), or the Announce of
// a repost.
func (s *Service) activityOf(ctx context.Context, p store.Post) any {
	if p.RepostOf != nil {
		return s.announceOf(ctx, p)
	}
	n := s.noteOf(ctx, p)
	return Activity{Context: contextAS, ID: s.CreateURL(p.ID), Type: "Create", Actor: n.AttributedTo,
		Object: n, Published: n.Published, To: n.To, Cc: n.Cc}
}

// announceOf is the Announce of the repost p.
func (s *Service) announceOf(ctx context.Context, p store.Post) Activity {
	to, cc := s.audience(p.Author)
	cc = append(cc, s.actorIDOfAuthor(ctx, p.RepostOf.Author))
	return Activity{Context: contextAS, ID: s.PostURL(p.ID), Type: "Announce", Actor: s.ActorURL(p.Author.ID),
		Object: s.objectIDOf(ctx, p.RepostOf.ID), Published: rfc3339(p.CreatedAt), To: to, Cc: cc}
}

// objectIDOf is the object id of message mid: its remote id, or its URL here.
func (s *Service) objectIDOf(ctx context.Context, mid int64) string {
	if obj, err := s.st.PostObject(ctx, mid); err == nil && obj != "" {
		return obj
	}
	return s.PostURL(mid)
}

// actorIDOfAuthor is the actor id of a (local or remote) author.
func (s *Service) actorIDOfAuthor(ctx context.Context, a store.Author) string {
	if !strings.Contains(a.Username, "@") {
		return s.ActorURL(a.ID)
	}
	if ra, err := s.st.RemoteActorByUID(ctx, a.ID); err == nil {
		return ra.ID
	}
	return ""
}

// handleOf is a username as a handle: name@host for local users.
func (s *Service) handleOf(username string) string {
	if strings.Contains(username, "@") {
		return username
	}
	return username + "@" + s.Host()
}

// rfc3339 formats a store time as ActivityStreams dates are.
func rfc3339(t store.Time) string { return time.UnixMilli(int64(t)).UTC().Format(time.RFC3339) }

// textToHTML is the service's plain text as the HTML of a Note:
// paragraphs, line breaks, links kept as text, everything escaped.
func textToHTML(text string) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	for i, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if i > 0 {
			b.WriteString("")
		}
		b.WriteString("<p>")
		b.WriteString(strings.ReplaceAll(html.EscapeString(para), "\n", "<br>"))
		b.WriteString("</p>")
	}
	return b.String()
}

// mediaTypeOf guesses an image's type from its name.
func mediaTypeOf(u string) string {
	switch {
	case strings.HasSuffix(u, ".png"):
		return "image/png"
	case strings.HasSuffix(u, ".gif"):
		return "image/gif"
	case strings.HasSuffix(u, ".webp"):
		return "image/webp"
	default:
		return "image/jpeg"
	}
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
