package mastodon

import (
	"html"
	"net/url"
	"regexp"
	"sort"
	"strconv"

	"microblog/store"
)

// header is the URL of a user's header image: its picture, or the
// service's default one (Mastodon always sends one).
func (m mapper) header(u *string) string {
	if u != nil && *u != "" {
		return m.abs(*u)
	}
	return m.origin + "/img/header.png"
}

// fields maps a profile's fields as Mastodon shows them: the value is
// HTML, a link when it is an http(s) URL (with rel="nofollow noopener",
// as the service's front ends draw it). The name is plain text, as
// Mastodon sends it.
func fields(fs []store.Field) []Field {
	out := make([]Field, len(fs))
	for i, f := range fs {
		v := html.EscapeString(f.Value)
		if link := store.FieldLink(f.Value); link != "" {
			v = `<a href="` + v + `" rel="nofollow noopener noreferrer" target="_blank">` + v + `</a>`
		}
		out[i] = Field{Name: f.Name, Value: v}
	}
	return out
}

// sourceFields are the fields as the user wrote them (an account's source).
func sourceFields(fs []store.Field) []Field {
	out := make([]Field, len(fs))
	for i, f := range fs {
		out[i] = Field{Name: f.Name, Value: f.Value}
	}
	return out
}

// attribute is one parameter of fields_attributes: its index and part.
var attribute = regexp.MustCompile(`^fields_attributes\[(\d+)\]\[(name|value)\]$`)

// profileParams reads update_credentials' display_name and
// fields_attributes (fields_attributes[0][name], ...[0][value], as
// forms send them and jsonParams spells a JSON body's) into an update.
// As in Mastodon, a pair whose name and value are both empty is dropped
// (apps send the empty rows of their form), and the pairs sent replace
// the profile's fields.
func profileParams(params url.Values) store.ProfileUpdate {
	var p store.ProfileUpdate
	if params.Has("display_name") {
		name := params.Get("display_name")
		p.DisplayName = &name
	}
	rows := map[int]*store.Field{}
	for k, vs := range params {
		m := attribute.FindStringSubmatch(k)
		if m == nil || len(vs) == 0 {
			continue
		}
		i, err := strconv.Atoi(m[1])
		if err != nil || i > 100 {
			continue
		}
		if rows[i] == nil {
			rows[i] = &store.Field{}
		}
		if m[2] == "name" {
			rows[i].Name = vs[0]
		} else {
			rows[i].Value = vs[0]
		}
	}
	if len(rows) == 0 {
		return p
	}
	idx := make([]int, 0, len(rows))
	for i := range rows {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	fs := []store.Field{}
	for _, i := range idx {
		if f := rows[i]; f.Name != "" || f.Value != "" {
			fs = append(fs, *f)
		}
	}
	p.Fields = &fs
	return p
}

// checkProfile refuses what the store would refuse of p, before anything
// of the request is written.
func checkProfile(p store.ProfileUpdate) error {
	if p.DisplayName != nil {
		if _, err := store.CleanDisplayName(*p.DisplayName); err != nil {
			return err
		}
	}
	if p.Fields != nil {
		if _, err := store.CleanFields(*p.Fields); err != nil {
			return err
		}
	}
	return nil
}
