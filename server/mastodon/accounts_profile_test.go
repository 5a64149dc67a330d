package mastodon

import (
	"net/url"
	"slices"
	"testing"

	"microblog/store"
)

// TestProfileParams: fields_attributes come in index order from a form
// and from JSON (a list, or an object by index), an empty row is dropped,
// and a body without them leaves the fields alone.
func TestProfileParams(t *testing.T) {
	want := []store.Field{{Name: "网站", Value: "https://example.com"}, {Name: "城市", Value: "杭州"}}
	form, _ := url.ParseQuery("display_name=%E6%9D%8E&fields_attributes[1][name]=%E5%9F%8E%E5%B8%82&fields_attributes[1][value]=%E6%9D%AD%E5%B7%9E" +
		"&fields_attributes[0][name]=%E7%BD%91%E7%AB%99&fields_attributes[0][value]=https://example.com&fields_attributes[2][name]=&fields_attributes[2][value]=")
	for what, body := range map[string]string{
		"list":   `{"display_name": "李", "fields_attributes": [{"name": "网站", "value": "https://example.com"}, {"name": "城市", "value": "杭州"}, {"name": "", "value": ""}]}`,
		"object": `{"display_name": "李", "fields_attributes": {"1": {"name": "城市", "value": "杭州"}, "0": {"name": "网站", "value": "https://example.com"}}}`,
	} {
		params, err := jsonParams([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		p := profileParams(params)
		if p.DisplayName == nil || *p.DisplayName != "李" || p.Fields == nil || !slices.Equal(*p.Fields, want) {
			t.Errorf("JSON %s: %v %v", what, p.DisplayName, p.Fields)
		}
	}
	p := profileParams(form)
	if p.DisplayName == nil || *p.DisplayName != "李" || p.Fields == nil || !slices.Equal(*p.Fields, want) {
		t.Errorf("form: %v %v", p.DisplayName, p.Fields)
	}
	if p := profileParams(url.Values{"note": {"x"}}); p.DisplayName != nil || p.Fields != nil {
		t.Errorf("a body without them: %+v", p)
	}
}
