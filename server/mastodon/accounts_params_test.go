package mastodon

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// Parameters read the same from the query, JSON and a form: names lose
// their [], arrays give each value, numbers and booleans their text.
func TestReadParams(t *testing.T) {
	e := echo.New()
	for _, tc := range []struct{ name, ctype, body string }{
		{"json", "application/json", `{"account_id": 12, "status_ids": ["3", 4], "forward": true, "source": {"note": "x"}}`},
		{"form", "application/x-www-form-urlencoded", "account_id=12&status_ids[]=3&status_ids[]=4&forward=true"},
	} {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/reports?comment=hi", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", tc.ctype)
		got, err := readParams(e.NewContext(req, httptest.NewRecorder()))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Get("account_id") != "12" || !slices.Equal(got["status_ids"], []string{"3", "4"}) ||
			got.Get("forward") != "true" || got.Get("comment") != "hi" || got.Has("source") {
			t.Fatalf("%s: %v", tc.name, got)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`["not an object"]`))
	req.Header.Set("Content-Type", "application/json")
	if _, err := readParams(e.NewContext(req, httptest.NewRecorder())); err == nil {
		t.Fatal("a JSON array was taken as parameters")
	}
}
