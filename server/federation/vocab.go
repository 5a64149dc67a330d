package federation

import (
	"encoding/json"
	"net/url"
)

// The ActivityStreams 2.0 vocabulary as the service writes and reads it,
// plain Go structs with encoding/json: the documents are few and their
// shapes known, and reading what peers send needs the lenient forms
// (a link or an embedded object, one value or a list) that raw JSON
// handles simply (see idOf, idsOf).

// Public is the audience of public posts.
const Public = "https://www.w3.org/ns/activitystreams#Public"

// contextAS is the @context of what the service serves.
var contextAS = []any{
	"https://www.w3.org/ns/activitystreams",
	"https://w3id.org/security/v1",
	map[string]any{
		"manuallyApprovesFollowers": "as:manuallyApprovesFollowers",
		"sensitive":                 "as:sensitive",
		"Hashtag":                   "as:Hashtag",
		"toot":                      "http://joinmastodon.org/ns#",
		"blurhash":                  "toot:blurhash",
		"discoverable":              "toot:discoverable",
		"votersCount":               "toot:votersCount",
	},
}

// ContentType is the media type of what the service serves.
const ContentType = "application/activity+json; charset=utf-8"

// PublicKey is an actor's key.
type PublicKey struct {
	ID           string `json:"id"`
	Owner        string `json:"owner"`
	PublicKeyPem string `json:"publicKeyPem"`
}

// Image is an actor's icon or header, or a Note's attachment.
type Image struct {
	Type      string `json:"type"`
	MediaType string `json:"mediaType,omitempty"`
	URL       string `json:"url"`
	Name      string `json:"name,omitempty"`
	Blurhash  string `json:"blurhash,omitempty"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
}

// Actor is a Person (a local user) or the Application (the instance).
type Actor struct {
	Context                   any               `json:"@context,omitempty"`
	ID                        string            `json:"id"`
	Type                      string            `json:"type"`
	PreferredUsername         string            `json:"preferredUsername"`
	Name                      string            `json:"name,omitempty"`
	Summary                   string            `json:"summary,omitempty"`
	URL                       string            `json:"url,omitempty"`
	Inbox                     string            `json:"inbox"`
	Outbox                    string            `json:"outbox,omitempty"`
	Followers                 string            `json:"followers,omitempty"`
	Following                 string            `json:"following,omitempty"`
	Endpoints                 map[string]string `json:"endpoints,omitempty"`
	PublicKey                 PublicKey         `json:"publicKey"`
	ManuallyApprovesFollowers bool              `json:"manuallyApprovesFollowers"`
	Discoverable              bool              `json:"discoverable"`
	Published                 string            `json:"published,omitempty"`
	Icon                      *Image            `json:"icon,omitempty"`
	Image                     *Image            `json:"image,omitempty"`
}

// Tag is a Mention or a Hashtag of a Note.
type Tag struct {
	Type string `json:"type"`
	Href string `json:"href,omitempty"`
	Name string `json:"name"`
}

// Note is a post or a comment (a Question when it carries a poll).
type Note struct {
	Context      any      `json:"@context,omitempty"`
	ID           string   `json:"id"`
	Type         string   `json:"type"`
	AttributedTo string   `json:"attributedTo"`
	Content      string   `json:"content"`
	Summary      *string  `json:"summary"`
	Sensitive    bool     `json:"sensitive"`
	InReplyTo    *string  `json:"inReplyTo"`
	Published    string   `json:"published"`
	Updated      string   `json:"updated,omitempty"`
	URL          string   `json:"url"`
	To           []string `json:"to"`
	Cc           []string `json:"cc"`
	Tag          []Tag    `json:"tag"`
	Attachment   []Image  `json:"attachment"`
	// A Question's choices, when the post carries a poll.
	OneOf       []Choice `json:"oneOf,omitempty"`
	AnyOf       []Choice `json:"anyOf,omitempty"`
	EndTime     string   `json:"endTime,omitempty"`
	VotersCount *int64   `json:"votersCount,omitempty"`
}

// Choice is one answer of a Question.
type Choice struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Replies struct {
		Type       string `json:"type"`
		TotalItems int64  `json:"totalItems"`
	} `json:"replies"`
}

// Activity is an activity, as served (Object a link or an embedded
// object).
type Activity struct {
	Context   any      `json:"@context,omitempty"`
	ID        string   `json:"id,omitempty"` // none on an embedded activity whose id is lost
	Type      string   `json:"type"`
	Actor     string   `json:"actor"`
	Object    any      `json:"object"`
	Published string   `json:"published,omitempty"`
	To        []string `json:"to,omitempty"`
	Cc        []string `json:"cc,omitempty"`
}

// Collection is an OrderedCollection or one of its pages.
type Collection struct {
	Context      any    `json:"@context,omitempty"`
	ID           string `json:"id"`
	Type         string `json:"type"`
	TotalItems   *int64 `json:"totalItems,omitempty"`
	First        string `json:"first,omitempty"`
	Last         string `json:"last,omitempty"`
	Next         string `json:"next,omitempty"`
	PartOf       string `json:"partOf,omitempty"`
	OrderedItems []any  `json:"orderedItems,omitempty"`
}

// inDoc is any document a peer sends or serves, read leniently: each
// field that may be a link, an embedded object or a list stays raw.
type inDoc struct {
	Context      json.RawMessage   `json:"@context"`
	ID           string            `json:"id"`
	Type         json.RawMessage   `json:"type"`
	Actor        json.RawMessage   `json:"actor"`
	Object       json.RawMessage   `json:"object"`
	Target       json.RawMessage   `json:"target"`
	To           json.RawMessage   `json:"to"`
	Cc           json.RawMessage   `json:"cc"`
	AttributedTo json.RawMessage   `json:"attributedTo"`
	Content      string            `json:"content"`
	ContentMap   map[string]string `json:"contentMap"`
	Summary      string            `json:"summary"`
	Sensitive    bool              `json:"sensitive"`
	InReplyTo    json.RawMessage   `json:"inReplyTo"`
	Published    string            `json:"published"`
	Updated      string            `json:"updated"`
	URL          json.RawMessage   `json:"url"`
	Tag          json.RawMessage   `json:"tag"`
	Attachment   json.RawMessage   `json:"attachment"`
	Name         string            `json:"name"`
	MediaType    string            `json:"mediaType"`
	Href         string            `json:"href"`
	Blurhash     string            `json:"blurhash"`
	// An actor's fields.
	PreferredUsername string `json:"preferredUsername"`
	Inbox             string `json:"inbox"`
	Outbox            string `json:"outbox"`
	Followers         string `json:"followers"`
	Following         string `json:"following"`
	Endpoints         struct {
		SharedInbox string `json:"sharedInbox"`
	} `json:"endpoints"`
	PublicKey                 json.RawMessage `json:"publicKey"`
	ManuallyApprovesFollowers bool            `json:"manuallyApprovesFollowers"`
	Icon                      json.RawMessage `json:"icon"`
	Image                     json.RawMessage `json:"image"`
	// A key document's fields (a keyId fetched on its own).
	Owner        string `json:"owner"`
	PublicKeyPem string `json:"publicKeyPem"`
	// A Question's.
	OneOf       json.RawMessage `json:"oneOf"`
	AnyOf       json.RawMessage `json:"anyOf"`
	EndTime     string          `json:"endTime"`
	Closed      json.RawMessage `json:"closed"`
	VotersCount *int64          `json:"votersCount"`
}

// typeOf is a document's type (the first, if it has several).
func (d *inDoc) typeOf() string { return firstString(d.Type) }

// firstString reads a string or the first string of a list.
func firstString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil && len(ss) > 0 {
		return ss[0]
	}
	return ""
}

// idOf reads a link: a string, an object's id (or href), or the first of
// a list of them.
func idOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		ID   string `json:"id"`
		Href string `json:"href"`
	}
	if json.Unmarshal(raw, &o) == nil {
		if o.ID != "" {
			return o.ID
		}
		return o.Href
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return idOf(list[0])
	}
	return ""
}

// noteLink is where a note is read on its own server: its url, else its id.
func noteLink(obj *inDoc) string {
	if u := idOf(obj.URL); u != "" {
		return u
	}
	return obj.ID
}

// originalURL is where a reader opens a remote note's original: its url
// when that is an http(s) address on the note's own server (no note sends
// readers elsewhere under its name), else its id.
func originalURL(obj *inDoc) string {
	if u := idOf(obj.URL); u != "" && sameHost(u, obj.ID) && isWebURL(u) {
		return u
	}
	if isWebURL(obj.ID) {
		return obj.ID
	}
	return ""
}

// isWebURL tells whether u is an absolute http(s) URL.
func isWebURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "https" || p.Scheme == "http") && p.Host != "" && p.User == nil
}

// idsOf reads a list of links (or one).
func idsOf(raw json.RawMessage) []string {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		if id := idOf(raw); id != "" {
			return []string{id}
		}
		return nil
	}
	var out []string
	for _, r := range list {
		if id := idOf(r); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// embedded reads raw as an embedded object; false when it is a bare link.
func embedded(raw json.RawMessage) (*inDoc, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var d inDoc
	if json.Unmarshal(raw, &d) != nil {
		return nil, false
	}
	return &d, true
}

// docsOf reads a list of embedded objects (or one).
func docsOf(raw json.RawMessage) []inDoc {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []inDoc
	for _, r := range list {
		if d, ok := embedded(r); ok {
			out = append(out, *d)
		}
	}
	return out
}

// firstOf reads raw, an object or a list of them (the first), into v.
func firstOf(raw json.RawMessage, v any) {
	if len(raw) > 0 && raw[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
			raw = list[0]
		}
	}
	_ = json.Unmarshal(raw, v)
}

// imageURL reads an icon or image: a link, an Image, or a list of them.
func imageURL(raw json.RawMessage) string {
	if d, ok := embedded(raw); ok {
		if u := idOf(d.URL); u != "" {
			return u
		}
		return d.Href
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return imageURL(list[0])
	}
	return idOf(raw)
}
