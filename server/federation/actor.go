package federation

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// localUser is the local, unsuspended user uid, or ErrUserNotFound.
func (s *Service) localUser(ctx context.Context, uid int64) (store.User, error) {
	u, err := s.st.User(ctx, uid, 0)
	if err != nil {
		return store.User{}, err
	}
	if u.Remote || u.Suspended {
		return store.User{}, store.ErrUserNotFound
	}
	return u, nil
}

// actor answers GET /ap/users/:uid: the Person of a local user.
func (s *Service) actor(c echo.Context) error {
	uid, ok := pathID(c, "uid")
	if !ok {
		return errNotFound
	}
	ctx := c.Request().Context()
	u, err := s.localUser(ctx, uid)
	if err != nil {
		return asHTTP(err)
	}
	p, err := s.person(ctx, u)
	if err != nil {
		return err
	}
	return serve(c, s.ProfileURL(u.Username), p)
}

// person is u's actor document.
func (s *Service) person(ctx context.Context, u store.User) (Actor, error) {
	k, err := s.localKey(ctx, u.ID)
	if err != nil {
		return Actor{}, err
	}
	id := s.ActorURL(u.ID)
	a := Actor{Context: contextAS, ID: id, Type: "Person", PreferredUsername: u.Username,
		Name: u.DisplayName, Summary: textToHTML(u.Bio), URL: s.ProfileURL(u.Username),
		Inbox: id + "/inbox", Outbox: id + "/outbox", Followers: id + "/followers", Following: id + "/following",
		Endpoints:                 map[string]string{"sharedInbox": s.SharedInboxURL()},
		PublicKey:                 PublicKey{ID: s.KeyID(u.ID), Owner: id, PublicKeyPem: k.pubPEM},
		ManuallyApprovesFollowers: u.Protected, Discoverable: !u.Protected,
		Published: time.UnixMilli(int64(u.CreatedAt)).UTC().Format(time.RFC3339)}
	if a.Name == "" {
		a.Name = u.Username
	}
	if u.AvatarURL != nil {
		a.Icon = &Image{Type: "Image", URL: s.absolute(*u.AvatarURL)}
	}
	if u.HeaderURL != nil {
		a.Image = &Image{Type: "Image", URL: s.absolute(*u.HeaderURL)}
	}
	return a, nil
}

// absolute makes a path of this service a URL under the public URL.
func (s *Service) absolute(u string) string {
	if len(u) > 0 && u[0] == '/' {
		return s.base() + u
	}
	return u
}

// instanceActor answers GET /ap/actor: the Application that signs fetches.
func (s *Service) instanceActor(c echo.Context) error {
	k, err := s.localKey(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	id := s.InstanceActorURL()
	a := Actor{Context: contextAS, ID: id, Type: "Application", PreferredUsername: s.Host(),
		Name: s.opt.Software, URL: s.base() + "/", Inbox: id + "/inbox", Outbox: id + "/outbox",
		Endpoints:                 map[string]string{"sharedInbox": s.SharedInboxURL()},
		PublicKey:                 PublicKey{ID: s.KeyID(0), Owner: id, PublicKeyPem: k.pubPEM},
		ManuallyApprovesFollowers: true}
	c.Response().Header().Set(echo.HeaderContentType, ContentType)
	return c.JSON(http.StatusOK, a)
}

// collectionPage is how many items one page of a collection holds.
const collectionPage = 20

// followers answers GET /ap/users/:uid/followers: the count, and the
// items (actor ids) unless the account is protected, as the native API
// hides them.
func (s *Service) followers(c echo.Context) error { return s.relations(c, true) }

// following answers GET /ap/users/:uid/following.
func (s *Service) following(c echo.Context) error { return s.relations(c, false) }

func (s *Service) relations(c echo.Context, fans bool) error {
	uid, ok := pathID(c, "uid")
	if !ok {
		return errNotFound
	}
	ctx := c.Request().Context()
	u, err := s.localUser(ctx, uid)
	if err != nil {
		return asHTTP(err)
	}
	name, total := "/following", u.FollowingCount
	if fans {
		name, total = "/followers", u.FollowersCount
	}
	id := s.ActorURL(uid) + name
	c.Response().Header().Set(echo.HeaderContentType, ContentType)
	if u.Protected {
		return c.JSON(http.StatusOK, Collection{Context: contextAS, ID: id, Type: "OrderedCollection", TotalItems: &total})
	}
	if c.QueryParam("page") == "" {
		return c.JSON(http.StatusOK, Collection{Context: contextAS, ID: id, Type: "OrderedCollection", TotalItems: &total, First: id + "?page=1"})
	}
	q, err := pageQuery(c)
	if err != nil {
		return err
	}
	var page store.Page[store.User]
	if fans {
		page, err = s.st.Followers(ctx, uid, 0, q)
	} else {
		page, err = s.st.Following(ctx, uid, 0, q)
	}
	if err != nil {
		return asHTTP(err)
	}
	items := make([]any, 0, len(page.Items))
	for _, f := range page.Items {
		items = append(items, s.actorIDOf(ctx, f))
	}
	out := Collection{Context: contextAS, ID: id + "?page=1", Type: "OrderedCollectionPage", PartOf: id, TotalItems: &total, OrderedItems: items}
	if page.NextCursor != nil {
		out.Next = id + "?page=1&cursor=" + *page.NextCursor
	}
	return c.JSON(http.StatusOK, out)
}

// actorIDOf is the actor id of u, local or remote.
func (s *Service) actorIDOf(ctx context.Context, u store.User) string {
	if !u.Remote {
		return s.ActorURL(u.ID)
	}
	if a, err := s.st.RemoteActorByUID(ctx, u.ID); err == nil {
		return a.ID
	}
	return ""
}

// outbox answers GET /ap/users/:uid/outbox: its public posts as Create
// activities, newest first, paged; none of a protected account's.
func (s *Service) outbox(c echo.Context) error {
	uid, ok := pathID(c, "uid")
	if !ok {
		return errNotFound
	}
	ctx := c.Request().Context()
	u, err := s.localUser(ctx, uid)
	if err != nil {
		return asHTTP(err)
	}
	id := s.ActorURL(uid) + "/outbox"
	total := u.PostsCount
	c.Response().Header().Set(echo.HeaderContentType, ContentType)
	if u.Protected {
		return c.JSON(http.StatusOK, Collection{Context: contextAS, ID: id, Type: "OrderedCollection", TotalItems: &total})
	}
	if c.QueryParam("page") == "" {
		return c.JSON(http.StatusOK, Collection{Context: contextAS, ID: id, Type: "OrderedCollection", TotalItems: &total, First: id + "?page=true"})
	}
	q, err := pageQuery(c)
	if err != nil {
		return err
	}
	page, err := s.st.UserPosts(ctx, uid, q)
	if err != nil {
		return asHTTP(err)
	}
	items := make([]any, 0, len(page.Items))
	for _, p := range page.Items {
		items = append(items, s.activityOf(ctx, p))
	}
	out := Collection{Context: contextAS, ID: id + "?page=true", Type: "OrderedCollectionPage", PartOf: id, OrderedItems: items}
	if page.NextCursor != nil {
		out.Next = id + "?page=true&cursor=" + *page.NextCursor
	}
	return c.JSON(http.StatusOK, out)
}

// pageQuery reads a collection page's cursor.
func pageQuery(c echo.Context) (store.PageQuery, error) {
	q := store.PageQuery{Limit: collectionPage}
	if raw := c.QueryParam("cursor"); raw != "" {
		cur, err := store.DecodeCursor(raw)
		if err != nil {
			return q, badRequest("invalid cursor")
		}
		q.Cursor = cur
	}
	return q, nil
}

// itoa is strconv.FormatInt(n, 10).
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
