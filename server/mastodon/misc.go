package mastodon

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// What apps call at start: the caller's word filters as Mastodon's
// filters, its preferences, suggestions of whom to follow, markers
// (markers.go), and valid empty answers for what the service does not
// have (custom emojis, announcements, featured tags,
// endorsements, domain blocks); push subscriptions are in push.go.

// miscRoutes registers those routes.
func (a *API) miscRoutes(r *router) {
	anyone, read := a.auth("", false), a.auth("read", true)
	r.add(http.MethodGet, "/api/v1/custom_emojis", emptyList, anyone)
	r.add(http.MethodGet, "/api/v1/filters", a.filtersV1, a.auth("read:filters", true))
	r.add(http.MethodGet, "/api/v2/filters", a.filtersV2, a.auth("read:filters", true))
	r.add(http.MethodGet, "/api/v1/preferences", preferences, a.auth("read:accounts", true))
	r.add(http.MethodGet, "/api/v1/suggestions", a.suggestionsV1, read)
	r.add(http.MethodGet, "/api/v2/suggestions", a.suggestionsV2, read)
	for path, scope := range map[string]string{
		"/api/v1/announcements":             "read",
		"/api/v1/featured_tags":             "read:accounts",
		"/api/v1/endorsements":              "read:accounts",
		"/api/v1/domain_blocks":             "read:blocks",
		"/api/v1/featured_tags/suggestions": "read:accounts",
	} {
		r.add(http.MethodGet, path, emptyList, a.auth(scope, true))
	}
	r.add(http.MethodGet, "/api/v1/accounts/:id/featured_tags", emptyList, anyone)
	a.pushRoutes(r)
	a.markerRoutes(r)
}

// filterContexts are where the service's word filters apply: everywhere.
var filterContexts = []string{"home", "notifications", "public", "thread", "account"}

// FilterV1 is Mastodon's v1 Filter: one filtered word.
type FilterV1 struct {
	ID           string   `json:"id"`
	Phrase       string   `json:"phrase"`
	Context      []string `json:"context"`
	ExpiresAt    *string  `json:"expires_at"`
	Irreversible bool     `json:"irreversible"`
	WholeWord    bool     `json:"whole_word"`
}

// FilterKeyword is one word of a v2 Filter.
type FilterKeyword struct {
	ID        string `json:"id"`
	Keyword   string `json:"keyword"`
	WholeWord bool   `json:"whole_word"`
}

// FilterV2 is Mastodon's v2 Filter: the caller's words are one filter
// that hides what holds any of them, as the service does.
type FilterV2 struct {
	ID           string          `json:"id"`
	Title        string          `json:"title"`
	Context      []string        `json:"context"`
	ExpiresAt    *string         `json:"expires_at"`
	FilterAction string          `json:"filter_action"`
	Keywords     []FilterKeyword `json:"keywords"`
	Statuses     []struct{}      `json:"statuses"`
}

// filtersV1 answers GET /api/v1/filters: each filtered word, its id its
// place in the list (the service keeps the words as a list).
func (a *API) filtersV1(c echo.Context) error {
	words, err := a.st.Filters(c.Request().Context(), viewer(c))
	if err != nil {
		return err
	}
	out := make([]FilterV1, 0, len(words))
	for i, w := range words {
		out = append(out, FilterV1{ID: strconv.Itoa(i + 1), Phrase: w, Context: filterContexts, Irreversible: true})
	}
	return c.JSON(http.StatusOK, out)
}

// filtersV2 answers GET /api/v2/filters: one filter of all the words, or
// none.
func (a *API) filtersV2(c echo.Context) error {
	words, err := a.st.Filters(c.Request().Context(), viewer(c))
	if err != nil {
		return err
	}
	out := []FilterV2{}
	if len(words) > 0 {
		f := FilterV2{ID: "1", Title: "Filtered words", Context: filterContexts, FilterAction: "hide",
			Keywords: make([]FilterKeyword, 0, len(words)), Statuses: []struct{}{}}
		for i, w := range words {
			f.Keywords = append(f.Keywords, FilterKeyword{ID: strconv.Itoa(i + 1), Keyword: w})
		}
		out = append(out, f)
	}
	return c.JSON(http.StatusOK, out)
}

// preferences answers GET /api/v1/preferences: what the service does for
// everyone (every post is public, nothing is hidden behind a warning).
func preferences(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{
		"posting:default:visibility": "public",
		"posting:default:sensitive":  false,
		"posting:default:language":   nil,
		"reading:expand:media":       "default",
		"reading:expand:spoilers":    false,
		"reading:autoplay:gifs":      false,
	})
}

// suggestedUsers are popular users the caller does not follow yet, at
// most ?limit= (default 40, as Mastodon).
func (a *API) suggestedUsers(c echo.Context) ([]store.User, error) {
	limit := 40
	if v, err := strconv.Atoi(c.QueryParam("limit")); err == nil && v > 0 {
		limit = min(v, store.MaxLimit)
	}
	pg, err := a.st.Suggestions(c.Request().Context(), store.PageQuery{Limit: limit, Viewer: viewer(c)})
	return pg.Items, err
}

// suggestionsV1 answers GET /api/v1/suggestions: accounts.
func (a *API) suggestionsV1(c echo.Context) error {
	users, err := a.suggestedUsers(c)
	if err != nil {
		return err
	}
	m := mapperOf(c)
	out := make([]Account, 0, len(users))
	for _, u := range users {
		out = append(out, m.account(u))
	}
	return c.JSON(http.StatusOK, out)
}

// Suggestion is Mastodon's v2 Suggestion.
type Suggestion struct {
	Source  string   `json:"source"`
	Sources []string `json:"sources"`
	Account Account  `json:"account"`
}

// suggestionsV2 answers GET /api/v2/suggestions: the same users, as
// suggestions the service makes for everyone (the most followed).
func (a *API) suggestionsV2(c echo.Context) error {
	users, err := a.suggestedUsers(c)
	if err != nil {
		return err
	}
	m := mapperOf(c)
	out := make([]Suggestion, 0, len(users))
	for _, u := range users {
		out = append(out, Suggestion{Source: "global", Sources: []string{"most_followed"}, Account: m.account(u)})
	}
	return c.JSON(http.StatusOK, out)
}
