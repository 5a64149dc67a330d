package mastodon

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"microblog/store"
)

// The one place where the store's objects become Mastodon's entities,
// with Mastodon's field names and types: ids are strings, times RFC 3339,
// absent things null or empty lists, never missing.

// Account is Mastodon's Account.
type Account struct {
	ID             string   `json:"id"`
	Username       string   `json:"username"`
	Acct           string   `json:"acct"`
	DisplayName    string   `json:"display_name"`
	Locked         bool     `json:"locked"`
	Bot            bool     `json:"bot"`
	Discoverable   bool     `json:"discoverable"`
	Group          bool     `json:"group"`
	Indexable      bool     `json:"indexable"`
	HideCollection bool     `json:"hide_collections"`
	Noindex        bool     `json:"noindex"`
	CreatedAt      string   `json:"created_at"`
	Note           string   `json:"note"`
	URL            string   `json:"url"`
	URI            string   `json:"uri"`
	Avatar         string   `json:"avatar"`
	AvatarStatic   string   `json:"avatar_static"`
	Header         string   `json:"header"`
	HeaderStatic   string   `json:"header_static"`
	FollowersCount int64    `json:"followers_count"`
	FollowingCount int64    `json:"following_count"`
	StatusesCount  int64    `json:"statuses_count"`
	LastStatusAt   *string  `json:"last_status_at"`
	Emojis         []Emoji  `json:"emojis"`
	Fields         []Field  `json:"fields"`
	Roles          []string `json:"roles"`
	Suspended      bool     `json:"suspended,omitempty"`
	// Source and Role are on the caller's own account
	// (verify_credentials, update_credentials).
	Source *Source `json:"source,omitempty"`
	Role   *Role   `json:"role,omitempty"`
}

// Emoji is Mastodon's CustomEmoji; the service has none.
type Emoji struct {
	Shortcode       string `json:"shortcode"`
	URL             string `json:"url"`
	StaticURL       string `json:"static_url"`
	VisibleInPicker bool   `json:"visible_in_picker"`
}

// Field is a profile field (accounts_profile.go).
type Field struct {
	Name       string  `json:"name"`
	Value      string  `json:"value"`
	VerifiedAt *string `json:"verified_at"`
}

// Source is what the caller wrote of its own profile.
type Source struct {
	Privacy             string  `json:"privacy"`
	Sensitive           bool    `json:"sensitive"`
	Language            string  `json:"language"`
	Note                string  `json:"note"`
	Fields              []Field `json:"fields"`
	FollowRequestsCount int64   `json:"follow_requests_count"`
}

// Role is the caller's role on the instance.
type Role struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Permissions string `json:"permissions"`
	Color       string `json:"color"`
	Highlighted bool   `json:"highlighted"`
}

// Status is Mastodon's Status.
type Status struct {
	ID                 string            `json:"id"`
	URI                string            `json:"uri"`
	URL                string            `json:"url"`
	CreatedAt          string            `json:"created_at"`
	EditedAt           *string           `json:"edited_at"`
	Account            Account           `json:"account"`
	Content            string            `json:"content"`
	Text               *string           `json:"text,omitempty"` // on delete, and the source endpoint
	Visibility         string            `json:"visibility"`
	Sensitive          bool              `json:"sensitive"`
	SpoilerText        string            `json:"spoiler_text"`
	MediaAttachments   []MediaAttachment `json:"media_attachments"`
	Application        *Application      `json:"application"`
	Mentions           []Mention         `json:"mentions"`
	Tags               []TagRef          `json:"tags"`
	Emojis             []Emoji           `json:"emojis"`
	ReblogsCount       int64             `json:"reblogs_count"`
	FavouritesCount    int64             `json:"favourites_count"`
	RepliesCount       int64             `json:"replies_count"`
	InReplyToID        *string           `json:"in_reply_to_id"`
	InReplyToAccountID *string           `json:"in_reply_to_account_id"`
	Reblog             *Status           `json:"reblog"`
	Poll               *Poll             `json:"poll"` // polls.go
	Card               *struct{}         `json:"card"`
	Language           *string           `json:"language"`
	Filtered           []struct{}        `json:"filtered,omitempty"`
	// The reader's own relation to it; absent for anonymous readers.
	Favourited *bool `json:"favourited,omitempty"`
	Reblogged  *bool `json:"reblogged,omitempty"`
	Muted      *bool `json:"muted,omitempty"`
	Bookmarked *bool `json:"bookmarked,omitempty"`
	Pinned     *bool `json:"pinned,omitempty"`
}

// Application is the app a status was posted with; the service does not
// keep it, so it is null.
type Application struct {
	Name    string  `json:"name"`
	Website *string `json:"website"`
}

// Mention is a user a status mentions.
type Mention struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	URL      string `json:"url"`
	Acct     string `json:"acct"`
}

// TagRef is a tag as a status carries it.
type TagRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Tag is Mastodon's Tag, with its use in the last days.
type Tag struct {
	Name      string       `json:"name"`
	URL       string       `json:"url"`
	History   []TagHistory `json:"history"`
	Following *bool        `json:"following,omitempty"`
}

// TagHistory is a tag's use on one day (strings, as Mastodon sends them).
type TagHistory struct {
	Day      string `json:"day"`
	Uses     string `json:"uses"`
	Accounts string `json:"accounts"`
}

// MediaAttachment is Mastodon's MediaAttachment (images only here).
type MediaAttachment struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	URL         string    `json:"url"`
	PreviewURL  string    `json:"preview_url"`
	RemoteURL   *string   `json:"remote_url"`
	TextURL     *string   `json:"text_url"`
	Meta        MediaMeta `json:"meta"`
	Description *string   `json:"description"`
	Blurhash    *string   `json:"blurhash"`
}

// MediaMeta is an image's sizes.
type MediaMeta struct {
	Original *MediaSize `json:"original,omitempty"`
	Small    *MediaSize `json:"small,omitempty"`
}

// MediaSize is one size of an image.
type MediaSize struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Size   string  `json:"size"`
	Aspect float64 `json:"aspect"`
}

// Notification is Mastodon's Notification.
type Notification struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	CreatedAt string  `json:"created_at"`
	Account   Account `json:"account"`
	Status    *Status `json:"status"`
}

// Relationship is the caller's relation to an account.
type Relationship struct {
	ID                  string   `json:"id"`
	Following           bool     `json:"following"`
	ShowingReblogs      bool     `json:"showing_reblogs"`
	Notifying           bool     `json:"notifying"`
	Languages           []string `json:"languages"`
	FollowedBy          bool     `json:"followed_by"`
	Blocking            bool     `json:"blocking"`
	BlockedBy           bool     `json:"blocked_by"`
	Muting              bool     `json:"muting"`
	MutingNotifications bool     `json:"muting_notifications"`
	Requested           bool     `json:"requested"`
	RequestedBy         bool     `json:"requested_by"`
	DomainBlocking      bool     `json:"domain_blocking"`
	Endorsed            bool     `json:"endorsed"`
	Note                string   `json:"note"`
}

// Conversation is Mastodon's Conversation: a private conversation (§9)
// with its last message as a direct status.
type Conversation struct {
	ID         string    `json:"id"`
	Unread     bool      `json:"unread"`
	Accounts   []Account `json:"accounts"`
	LastStatus *Status   `json:"last_status"`
}

// mapper turns the store's objects into entities for one request: it
// knows the service's origin, for URLs, and the reader.
type mapper struct {
	origin string
	viewer int64 // the reader's uid, 0 when anonymous
	// reposted holds the posts the reader reposted and replyTo the author
	// of each parent, of the posts being mapped, as API.mapperFor reads
	// them (statuses_read.go); a mapper without them (mapperOf) tells no
	// repost and no replied-to account.
	reposted map[int64]bool
	replyTo  map[int64]int64
}

// idString is an id as Mastodon sends ids.
func idString(id int64) string { return strconv.FormatInt(id, 10) }

// timeString is a store time as Mastodon sends times.
func timeString(t store.Time) string {
	return time.UnixMilli(int64(t)).UTC().Format("2006-01-02T15:04:05.000Z")
}

// avatar is the URL of a user's avatar: its picture, or the service's
// default one (Mastodon always sends one).
func (m mapper) avatar(u *string) string {
	if u != nil && *u != "" {
		return m.abs(*u)
	}
	return m.origin + "/img/avatar.png"
}

// abs makes a path on the service an absolute URL.
func (m mapper) abs(path string) string {
	if len(path) > 0 && path[0] == '/' {
		return m.origin + path
	}
	return path
}

// account maps a User.
func (m mapper) account(u store.User) Account {
	url := m.origin + "/@" + u.Username
	a := Account{
		ID: idString(u.ID), Username: u.Username, Acct: u.Username, DisplayName: store.ShownName(u.Username, u.DisplayName),
		Locked: u.Protected, HideCollection: u.Protected, Discoverable: true, Indexable: !u.Protected,
		CreatedAt: timeString(u.CreatedAt), Note: noteHTML(u.Bio), URL: url, URI: url,
		Avatar: m.avatar(u.AvatarURL), Header: m.header(u.HeaderURL),
		FollowersCount: u.FollowersCount, FollowingCount: u.FollowingCount, StatusesCount: u.PostsCount,
		Emojis: []Emoji{}, Fields: fields(u.Fields), Roles: []string{}, Suspended: u.Suspended,
	}
	a.AvatarStatic, a.HeaderStatic = a.Avatar, a.Header
	if name, _, remote := strings.Cut(u.Username, "@"); remote {
		// Another server's account (federation): acct is name@domain,
		// username the name alone, url its page there.
		a.Username = name
		if u.URL != "" {
			a.URL, a.URI = u.URL, u.URL
		}
	}
	return a
}

// author maps the short form of a user a post carries.
func (m mapper) author(a store.Author) Account {
	return m.account(store.User{ID: a.ID, Username: a.Username, DisplayName: a.DisplayName, AvatarURL: a.AvatarURL, Protected: a.Protected, Suspended: a.Suspended, CreatedAt: a.CreatedAt})
}

// status maps a Post: a comment is a reply to its parent, a repost a
// reblog with the original inside.
func (m mapper) status(p store.Post) Status {
	url := m.origin + "/@" + p.Author.Username + "/" + idString(p.ID)
	if p.URL != "" { // a remote post: its original's address
		url = p.URL
	}
	s := Status{
		ID: idString(p.ID), URI: url, URL: url, CreatedAt: timeString(p.CreatedAt),
		Account: m.author(p.Author), Content: contentHTML(m.origin, p.Content, p.Mentions),
		Visibility: "public", SpoilerText: p.Spoiler, Sensitive: p.Spoiler != "", MediaAttachments: make([]MediaAttachment, 0, len(p.Media)),
		Mentions: make([]Mention, 0, len(p.Mentions)), Tags: make([]TagRef, 0, len(p.Tags)), Emojis: []Emoji{},
		ReblogsCount: p.RepostsCount, FavouritesCount: p.LikesCount, RepliesCount: p.CommentsCount,
		Favourited: p.Liked, Bookmarked: p.Bookmarked, Poll: pollOf(p.Poll),
	}
	if p.Author.Protected {
		s.Visibility = "private"
	}
	if p.EditedAt != nil {
		e := timeString(*p.EditedAt)
		s.EditedAt = &e
	}
	if p.ParentID != nil {
		id := idString(*p.ParentID)
		s.InReplyToID = &id
		if author, ok := m.replyTo[*p.ParentID]; ok {
			aid := idString(author)
			s.InReplyToAccountID = &aid
		}
	}
	for _, f := range p.Media {
		s.MediaAttachments = append(s.MediaAttachments, m.media(f))
	}
	for _, a := range p.Mentions {
		s.Mentions = append(s.Mentions, Mention{ID: idString(a.ID), Username: a.Username, Acct: a.Username, URL: m.origin + "/@" + a.Username})
	}
	for _, t := range p.Tags {
		if key := store.TagKey(t); isHashtagName(key) {
			s.Tags = append(s.Tags, TagRef{Name: key, URL: m.tagURL(key)})
		}
	}
	if p.Liked != nil { // a reader: the flags it has
		// No conversation can be muted here; pinned is told of the
		// reader's own posts only, as Mastodon does.
		muted, reblogged := false, m.reposted[p.ID]
		s.Reblogged, s.Muted = &reblogged, &muted
		if m.viewer != 0 && p.Author.ID == m.viewer {
			pinned := p.Pinned != nil && *p.Pinned
			s.Pinned = &pinned
		}
	}
	if p.RepostOf != nil {
		inner := m.status(*p.RepostOf)
		s.Reblog = &inner
		s.Content, s.Mentions, s.Tags, s.MediaAttachments = "", []Mention{}, []TagRef{}, []MediaAttachment{}
	}
	return s
}

// media maps an image.
func (m mapper) media(f store.Media) MediaAttachment {
	a := MediaAttachment{ID: idString(f.ID), Type: "image", URL: m.abs(f.URL), PreviewURL: m.abs(f.ThumbURL)}
	if f.Width > 0 && f.Height > 0 {
		size := &MediaSize{Width: f.Width, Height: f.Height, Size: strconv.Itoa(f.Width) + "x" + strconv.Itoa(f.Height),
			Aspect: float64(f.Width) / float64(f.Height)}
		a.Meta = MediaMeta{Original: size, Small: size}
	}
	if f.Alt != "" {
		alt := f.Alt
		a.Description = &alt
	}
	if f.Blurhash != "" {
		hash := f.Blurhash
		a.Blurhash = &hash
	}
	return a
}

// notificationTypes maps the service's notification kinds to Mastodon's
// types: a comment is a reply (a mention in Mastodon's terms), a like a
// favourite, a repost a reblog.
var notificationTypes = map[string]string{
	store.NotifyComment:       "mention",
	store.NotifyReply:         "mention",
	store.NotifyMention:       "mention",
	store.NotifyRepost:        "reblog",
	store.NotifyLike:          "favourite",
	store.NotifyFollow:        "follow",
	store.NotifyFollowRequest: "follow_request",
}

// hasType tells whether Mastodon has a type for the kind: those it has not
// (a follow request accepted, which Mastodon 4 does not notify) are left
// out of its API, listed or live.
func hasType(kind string) bool {
	_, ok := notificationTypes[kind]
	return ok
}

// notification maps a Notification.
func (m mapper) notification(n store.Notification) Notification {
	out := Notification{ID: idString(n.ID), Type: notificationTypes[n.Kind], CreatedAt: timeString(n.CreatedAt),
		Account: m.account(n.Actor)}
	if out.Type == "" {
		out.Type = n.Kind
	}
	if p := n.Post; p != nil {
		// A reblog's status is the one reblogged, as Mastodon sends it.
		if n.Kind == store.NotifyRepost && p.RepostOf != nil && !p.RepostOf.Deleted {
			p = p.RepostOf
		}
		s := m.status(*p)
		out.Status = &s
	}
	return out
}

// relationship maps what the store knows of the caller and u (u as the
// caller sees it; followedBy: u follows the caller).
func relationship(u store.User, followedBy bool) Relationship {
	r := Relationship{ID: idString(u.ID), Languages: []string{}, FollowedBy: followedBy}
	deref := func(b *bool) bool { return b != nil && *b }
	r.Following, r.Blocking, r.BlockedBy = deref(u.Following), deref(u.Blocking), deref(u.BlockedBy)
	r.Muting, r.Requested = deref(u.Muting), deref(u.Requested)
	r.MutingNotifications, r.ShowingReblogs = r.Muting, r.Following
	return r
}

// StatusEdit is one version of a status, in its history.
type StatusEdit struct {
	Content          string            `json:"content"`
	SpoilerText      string            `json:"spoiler_text"`
	Sensitive        bool              `json:"sensitive"`
	CreatedAt        string            `json:"created_at"`
	Account          Account           `json:"account"`
	Poll             *struct{}         `json:"poll"`
	MediaAttachments []MediaAttachment `json:"media_attachments"`
	Emojis           []Emoji           `json:"emojis"`
}

// StatusSource is what the author wrote of a status, for editing it.
type StatusSource struct {
	ID          string `json:"id"`
	Text        string `json:"text"`
	SpoilerText string `json:"spoiler_text"`
}

// statusEdit maps version v of post p. The service keeps the text of each
// version only: its images (which an edit cannot change) are p's, and its
// mentions are linked as p's are.
func (m mapper) statusEdit(p store.Post, v store.Version) StatusEdit {
	e := StatusEdit{Content: contentHTML(m.origin, v.Content, p.Mentions), CreatedAt: timeString(v.CreatedAt),
		Account: m.author(p.Author), MediaAttachments: make([]MediaAttachment, 0, len(p.Media)), Emojis: []Emoji{}}
	for _, f := range p.Media {
		e.MediaAttachments = append(e.MediaAttachments, m.media(f))
	}
	return e
}

// tag maps a topic with its use lately (history, newest day first; empty
// when unknown).
func (m mapper) tag(name string, history []TagHistory) Tag {
	key := store.TagKey(name)
	if history == nil {
		history = []TagHistory{}
	}
	return Tag{Name: key, URL: m.tagURL(key), History: history}
}

// tagURL is the address of the page of the topic of key, the key
// percent-encoded: a topic is free text.
func (m mapper) tagURL(key string) string { return m.origin + "/tags/" + url.PathEscape(key) }

// isHashtagName tells whether a topic is a hashtag as Mastodon names one
// (Tag::Naming's HASHTAG_NAME_RE): letters, combining marks, digits and
// connector punctuation (the underscore), with the separators · ・ and
// ZWNJ inside, and at least one letter or mark, or an inner separator.
//
// A topic here is free text (#杭州 天气#, #a <b>#), and a status's tags[]
// carries only those that pass: apps put a tag's name into links, HTML
// and the composer as it is, and ask for its timeline by it. Topics that
// fail are left out rather than normalised (their spaces and signs
// dropped or replaced), because a normalised name would be another
// topic's, #杭州天气# for #杭州 天气#, and lead to the wrong timeline. The
// content still links every topic, escaped (contentHTML).
func isHashtagName(name string) bool {
	alpha, inner := false, false
	for i, r := range name {
		edge := i == 0 || i+utf8.RuneLen(r) == len(name)
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			alpha = true
		case unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r): // _ is a Pc
			inner = inner || r == '_' && !edge
		case r == '\u00b7' || r == '\u30fb' || r == '\u200c':
			if edge {
				return false
			}
			inner = true
		default:
			return false
		}
	}
	return alpha || inner
}

// trend maps a trending topic: its posts and people in the trends window
// as the use of the day it is now.
func (m mapper) trend(t store.Trend, now time.Time) Tag {
	day := now.UTC().Truncate(24 * time.Hour).Unix()
	return m.tag(t.Tag, []TagHistory{{Day: strconv.FormatInt(day, 10),
		Uses: strconv.FormatInt(t.Posts, 10), Accounts: strconv.FormatInt(t.People, 10)}})
}

// DirectIDBase is added to a private message's id to make the id of the
// direct status that shows it (conversations, the direct stream): message
// ids are a sequence of their own, and post ids stay far below 10^15, so
// the two never meet; every such id has 16 digits, so they compare as
// strings as they do as numbers, and stay below 2^53 for apps that read
// ids as JavaScript numbers.
const DirectIDBase = 1_000_000_000_000_000

// directID is the status id of private message mid.
func directID(mid int64) string { return idString(DirectIDBase + mid) }

// directStatus maps a private message as the direct status that shows it
// to one of its two users: sender and recipient are those users as the
// reader sees them (the recipient is mentioned, as Mastodon mentions the
// people a direct status goes to).
func (m mapper) directStatus(msg store.DM, sender, recipient store.User) Status {
	s := m.status(store.Post{ID: msg.ID, Author: store.Author{ID: sender.ID, Username: sender.Username, AvatarURL: sender.AvatarURL},
		Content: msg.Content, CreatedAt: msg.CreatedAt, Media: msg.Media})
	url := m.origin + "/messages/" + sender.Username + "/" + idString(msg.ID)
	s.ID, s.URI, s.URL, s.Visibility = directID(msg.ID), url, url, "direct"
	s.Account = m.account(sender)
	s.Mentions = []Mention{{ID: idString(recipient.ID), Username: recipient.Username, Acct: recipient.Username,
		URL: m.origin + "/@" + recipient.Username}}
	return s
}

// conversation maps one of the reader's conversations (me: the reader,
// whose messages it holds too); its id is the other user's.
func (m mapper) conversation(conv store.Conversation, me store.User) Conversation {
	out := Conversation{ID: idString(conv.With.ID), Unread: conv.UnreadCount > 0, Accounts: []Account{m.account(conv.With)}}
	if msg := conv.LastDM; msg != nil {
		sender, recipient := conv.With, me
		if msg.Sender.ID == me.ID {
			sender, recipient = me, conv.With
		}
		s := m.directStatus(*msg, sender, recipient)
		out.LastStatus = &s
	}
	return out
}

// liveConversation maps the conversation of viewer that msg, just sent, is
// the last message of, for the streaming API: the parties as the message
// names them, unread when viewer received it.
func (m mapper) liveConversation(viewer int64, msg store.DM) Conversation {
	other, me := msg.Other(viewer), msg.Sender
	if me.ID != viewer {
		me = msg.Recipient
	}
	unread := int64(0)
	if msg.Recipient.ID == viewer {
		unread = 1
	}
	party := func(p store.Party) store.User { return store.User{ID: p.ID, Username: p.Username} }
	return m.conversation(store.Conversation{With: party(other), LastDM: &msg, UnreadCount: unread,
		UpdatedAt: msg.CreatedAt}, party(me))
}

// credentialAccount maps the caller's own User, with what it wrote of its
// profile (source), the follow requests waiting for it and its role: an
// operator is the instance's admin, everyone else has Mastodon's default
// role (id -99, no name).
func (m mapper) credentialAccount(u store.User, followRequests int64, admin bool) Account {
	a := m.account(u)
	privacy := "public"
	if u.Protected {
		privacy = "private"
	}
	a.Source = &Source{Privacy: privacy, Note: u.Bio, Fields: sourceFields(u.Fields), FollowRequestsCount: followRequests}
	a.Role = &Role{ID: "-99", Permissions: "65536"}
	if admin {
		a.Role = &Role{ID: "3", Name: "Admin", Permissions: "1", Highlighted: true}
	}
	return a
}

// Report is Mastodon's Report: what the caller reported.
type Report struct {
	ID            string   `json:"id"`
	ActionTaken   bool     `json:"action_taken"`
	ActionTakenAt *string  `json:"action_taken_at"`
	Category      string   `json:"category"`
	Comment       string   `json:"comment"`
	Forwarded     bool     `json:"forwarded"`
	CreatedAt     string   `json:"created_at"`
	StatusIDs     []string `json:"status_ids"`
	RuleIDs       []string `json:"rule_ids"`
	TargetAccount Account  `json:"target_account"`
}

// report maps a Report filed in category (the service keeps none: it is
// the one the request named); a resolved report counts as acted upon.
func (m mapper) report(r store.Report, category string) Report {
	out := Report{ID: idString(r.ID), ActionTaken: r.Resolved, Category: category, Comment: r.Reason,
		CreatedAt: timeString(r.CreatedAt), StatusIDs: make([]string, 0, len(r.Posts)), RuleIDs: []string{},
		TargetAccount: m.account(r.Target)}
	for _, p := range r.Posts {
		out.StatusIDs = append(out.StatusIDs, idString(p.ID))
	}
	return out
}
