package mastodon

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
	"microblog/store/media"
)

// Discovery: what apps read first to learn what the server is and allows
// (Mastodon's Instance, v1 and v2) and NodeInfo 2.0 for the crawlers that
// count servers.

// Names the instance gives of itself. Version says Mastodon 4.2 first, as
// other compatible servers do, because apps read their features from it.
const (
	instanceTitle    = "microblog"
	mastodonVersion  = "4.2.0"
	instanceVersion  = mastodonVersion + " (compatible; microblog 1.0.0)"
	softwareName     = "microblog"
	softwareVersion  = "1.0.0"
	nodeInfoSchema   = "http://nodeinfo.diaspora.software/ns/schema/2.0"
	nodeInfoSchema21 = "http://nodeinfo.diaspora.software/ns/schema/2.1"
)

// instanceRoutes registers the discovery routes.
func (a *API) instanceRoutes(r *router) {
	anyone := a.auth("", false)
	r.add(http.MethodGet, "/api/v1/instance", a.instanceV1, anyone)
	r.add(http.MethodGet, "/api/v2/instance", a.instanceV2, anyone)
	r.add(http.MethodGet, "/api/v1/instance/peers", emptyList, anyone)
	r.add(http.MethodGet, "/api/v1/instance/activity", emptyList, anyone)
	r.add(http.MethodGet, "/api/v1/instance/rules", emptyList, anyone)
	r.add(http.MethodGet, "/.well-known/nodeinfo", a.nodeInfoLinks)
	r.add(http.MethodGet, "/nodeinfo/2.0", a.nodeInfo)
	r.add(http.MethodGet, "/nodeinfo/2.1", a.nodeInfo)
}

// StatusLimits are what a status may carry (configuration.statuses).
type StatusLimits struct {
	MaxCharacters            int `json:"max_characters"`
	MaxMediaAttachments      int `json:"max_media_attachments"`
	CharactersReservedPerURL int `json:"characters_reserved_per_url"`
}

// MediaLimits are what an upload may be (configuration.media_attachments):
// images only, so the video limits are 0.
type MediaLimits struct {
	SupportedMimeTypes  []string `json:"supported_mime_types"`
	ImageSizeLimit      int      `json:"image_size_limit"`
	ImageMatrixLimit    int      `json:"image_matrix_limit"`
	VideoSizeLimit      int      `json:"video_size_limit"`
	VideoFrameRateLimit int      `json:"video_frame_rate_limit"`
	VideoMatrixLimit    int      `json:"video_matrix_limit"`
}

// PollLimits are what a poll may be (CONTRACT §15).
type PollLimits struct {
	MaxOptions             int `json:"max_options"`
	MaxCharactersPerOption int `json:"max_characters_per_option"`
	MinExpiration          int `json:"min_expiration"`
	MaxExpiration          int `json:"max_expiration"`
}

// AccountLimits are what an account may feature.
type AccountLimits struct {
	MaxFeaturedTags   int `json:"max_featured_tags"`
	MaxPinnedStatuses int `json:"max_pinned_statuses"`
}

// limits are the service's rules as both Instance versions tell them.
func limits() (StatusLimits, MediaLimits, PollLimits, AccountLimits) {
	return StatusLimits{MaxCharacters: store.MaxContent, MaxMediaAttachments: store.MaxMedia, CharactersReservedPerURL: 0},
		MediaLimits{SupportedMimeTypes: []string{"image/jpeg", "image/png", "image/gif", "image/webp"},
			ImageSizeLimit: media.MaxBytes, ImageMatrixLimit: media.MaxPixels},
		PollLimits{MaxOptions: store.MaxPollOptions, MaxCharactersPerOption: store.MaxPollOptionLen,
			MinExpiration: store.MinPollExpiry, MaxExpiration: store.MaxPollExpiry},
		AccountLimits{MaxFeaturedTags: 0, MaxPinnedStatuses: store.MaxPins}
}

// InstanceV1 is Mastodon's v1 Instance.
type InstanceV1 struct {
	URI              string            `json:"uri"`
	Title            string            `json:"title"`
	ShortDescription string            `json:"short_description"`
	Description      string            `json:"description"`
	Email            string            `json:"email"`
	Version          string            `json:"version"`
	URLs             map[string]string `json:"urls"`
	Stats            map[string]int64  `json:"stats"`
	Thumbnail        *string           `json:"thumbnail"`
	Languages        []string          `json:"languages"`
	Registrations    bool              `json:"registrations"`
	ApprovalRequired bool              `json:"approval_required"`
	InvitesEnabled   bool              `json:"invites_enabled"`
	Configuration    struct {
		Statuses         StatusLimits  `json:"statuses"`
		MediaAttachments MediaLimits   `json:"media_attachments"`
		Polls            PollLimits    `json:"polls"`
		Accounts         AccountLimits `json:"accounts"`
	} `json:"configuration"`
	ContactAccount *Account   `json:"contact_account"`
	Rules          []struct{} `json:"rules"`
}

// InstanceV2 is Mastodon's v2 Instance.
type InstanceV2 struct {
	Domain      string `json:"domain"`
	Title       string `json:"title"`
	Version     string `json:"version"`
	SourceURL   string `json:"source_url"`
	Description string `json:"description"`
	Usage       struct {
		Users struct {
			ActiveMonth int64 `json:"active_month"`
		} `json:"users"`
	} `json:"usage"`
	Thumbnail struct {
		URL string `json:"url"`
	} `json:"thumbnail"`
	Languages     []string `json:"languages"`
	Configuration struct {
		URLs struct {
			Streaming string `json:"streaming"`
		} `json:"urls"`
		Vapid struct {
			PublicKey string `json:"public_key"`
		} `json:"vapid"`
		Accounts         AccountLimits `json:"accounts"`
		Statuses         StatusLimits  `json:"statuses"`
		MediaAttachments MediaLimits   `json:"media_attachments"`
		Polls            PollLimits    `json:"polls"`
		Translation      struct {
			Enabled bool `json:"enabled"`
		} `json:"translation"`
	} `json:"configuration"`
	Registrations struct {
		Enabled          bool    `json:"enabled"`
		ApprovalRequired bool    `json:"approval_required"`
		Message          *string `json:"message"`
	} `json:"registrations"`
	Contact struct {
		Email   string   `json:"email"`
		Account *Account `json:"account"`
	} `json:"contact"`
	Rules []struct{} `json:"rules"`
}

// languages are the languages the service's front ends speak.
var languages = []string{"en", "zh"}

// instanceV1 answers GET /api/v1/instance.
func (a *API) instanceV1(c echo.Context) error {
	m := mapperOf(c)
	var out InstanceV1
	out.URI, out.Title, out.Version = hostOf(m.origin), instanceTitle, instanceVersion
	out.URLs = map[string]string{"streaming_api": streamingURL(m.origin)}
	users, posts, err := a.st.Totals(c.Request().Context())
	if err != nil {
		return err
	}
	out.Stats = map[string]int64{"user_count": users, "status_count": posts, "domain_count": 0}
	out.Languages, out.Registrations, out.Rules = languages, a.d.Signup, []struct{}{}
	c1 := &out.Configuration
	c1.Statuses, c1.MediaAttachments, c1.Polls, c1.Accounts = limits()
	out.ContactAccount = a.contact(c)
	return c.JSON(http.StatusOK, out)
}

// instanceV2 answers GET /api/v2/instance.
func (a *API) instanceV2(c echo.Context) error {
	m := mapperOf(c)
	var out InstanceV2
	out.Domain, out.Title, out.Version = hostOf(m.origin), instanceTitle, instanceVersion
	out.Thumbnail.URL = m.origin + "/img/header.png"
	out.Languages, out.Rules = languages, []struct{}{}
	c2 := &out.Configuration
	c2.URLs.Streaming = streamingURL(m.origin)
	c2.Vapid.PublicKey = a.vapidKey(c.Request().Context())
	c2.Statuses, c2.MediaAttachments, c2.Polls, c2.Accounts = limits()
	out.Registrations.Enabled = a.d.Signup
	out.Contact.Account = a.contact(c)
	return c.JSON(http.StatusOK, out)
}

// contact is the first operator's account (MICROBLOG_ADMINS), nil when
// there is none or it is gone: the instance still answers.
func (a *API) contact(c echo.Context) *Account {
	for _, name := range a.d.Admins {
		u, err := a.st.UserByName(c.Request().Context(), name, 0)
		if err == nil {
			acct := mapperOf(c).account(u)
			return &acct
		}
	}
	return nil
}

// hostOf is the host of an origin ("example.org:8080").
func hostOf(origin string) string {
	if u, err := url.Parse(origin); err == nil && u.Host != "" {
		return u.Host
	}
	return origin
}

// streamingURL is the origin of the streaming API: the service's own, over
// ws:// or wss:// as the origin is http:// or https://.
func streamingURL(origin string) string {
	if rest, ok := strings.CutPrefix(origin, "https://"); ok {
		return "wss://" + rest
	}
	return "ws://" + strings.TrimPrefix(origin, "http://")
}

// nodeInfoLinks answers GET /.well-known/nodeinfo: where the NodeInfo
// document is.
func (a *API) nodeInfoLinks(c echo.Context) error {
	type link struct {
		Rel  string `json:"rel"`
		Href string `json:"href"`
	}
	o := mapperOf(c).origin
	links := []link{{Rel: nodeInfoSchema, Href: o + "/nodeinfo/2.0"}}
	if a.d.Federation != nil {
		links = append(links, link{Rel: nodeInfoSchema21, Href: o + "/nodeinfo/2.1"})
	}
	return c.JSON(http.StatusOK, map[string][]link{"links": links})
}

// NodeInfo is a NodeInfo 2.0 (or 2.1) document. Protocols is
// ["activitypub"] with federation on, else empty (the schema asks for one,
// but naming ActivityPub would send servers here that get no answer). Its usage, like the v1
// instance's stats, counts the ids given out (store's Totals): deleted
// accounts and posts included, as a cheap upper bound.
type NodeInfo struct {
	Version  string `json:"version"`
	Software struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"software"`
	Protocols []string `json:"protocols"`
	Services  struct {
		Inbound  []string `json:"inbound"`
		Outbound []string `json:"outbound"`
	} `json:"services"`
	OpenRegistrations bool `json:"openRegistrations"`
	Usage             struct {
		Users struct {
			Total int64 `json:"total"`
		} `json:"users"`
		LocalPosts int64 `json:"localPosts"`
	} `json:"usage"`
	Metadata NodeMetadata `json:"metadata"`
}

// NodeMetadata is NodeInfo's free-form metadata. Upstream names the API
// the service speaks, Mastodon's: client libraries that know software by
// name (megalodon's detector) read it there, as they do for Mastodon's
// forks.
type NodeMetadata struct {
	NodeName string `json:"nodeName"`
	Upstream struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"upstream"`
}

// nodeInfo answers GET /nodeinfo/2.0.
func (a *API) nodeInfo(c echo.Context) error {
	var out NodeInfo
	out.Version = "2.0"
	schema := nodeInfoSchema
	if strings.HasSuffix(c.Path(), "/2.1") {
		out.Version, schema = "2.1", nodeInfoSchema21
	}
	out.Software.Name, out.Software.Version = softwareName, softwareVersion
	out.Protocols, out.Services.Inbound, out.Services.Outbound = []string{}, []string{}, []string{}
	if a.d.Federation != nil {
		out.Protocols = []string{"activitypub"}
	}
	out.OpenRegistrations = a.d.Signup
	users, posts, err := a.st.Totals(c.Request().Context())
	if err != nil {
		return err
	}
	out.Usage.Users.Total, out.Usage.LocalPosts = users, posts
	out.Metadata.NodeName = instanceTitle
	out.Metadata.Upstream.Name, out.Metadata.Upstream.Version = "mastodon", mastodonVersion
	c.Response().Header().Set(echo.HeaderContentType, `application/json; profile="`+schema+`#"`)
	return c.JSON(http.StatusOK, out)
}

// emptyList answers an empty JSON list: what the service does not have.
func emptyList(c echo.Context) error { return c.JSONBlob(http.StatusOK, []byte("[]")) }
