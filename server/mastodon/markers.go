package mastodon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Markers: where the caller stopped reading its home timeline and its
// notifications, kept for it across apps (store.AppState). Setting the
// notifications marker moves the native read mark too, so that the unread
// count of the service's own front ends follows what was read in an app.

// markerTimelines are the timelines a marker may be set for.
var markerTimelines = []string{store.MarkerHome, store.MarkerNotifications}

// markerRoutes registers the marker routes.
func (a *API) markerRoutes(r *router) {
	r.add(http.MethodGet, "/api/v1/markers", a.markers, a.auth("read:statuses", true))
	r.add(http.MethodPost, "/api/v1/markers", a.setMarkers, a.auth("write:statuses", true))
}

// Marker is Mastodon's Marker.
type Marker struct {
	LastReadID string `json:"last_read_id"`
	Version    int64  `json:"version"`
	UpdatedAt  string `json:"updated_at"`
}

// markerMap maps markers by timeline, as Mastodon answers them.
func markerMap(ms []store.Marker) map[string]Marker {
	out := make(map[string]Marker, len(ms))
	for _, m := range ms {
		out[m.Timeline] = Marker{LastReadID: idString(m.LastReadID), Version: m.Version, UpdatedAt: timeString(m.UpdatedAt)}
	}
	return out
}

// markers answers GET /api/v1/markers?timeline[]=...: the markers of the
// timelines asked for that were ever set.
func (a *API) markers(c echo.Context) error {
	q := c.QueryParams()
	var timelines []string
	for _, tl := range append(q["timeline[]"], q["timeline"]...) {
		for _, known := range markerTimelines {
			if tl == known && !slices.Contains(timelines, known) {
				timelines = append(timelines, known)
			}
		}
	}
	ms, err := a.st.Markers(c.Request().Context(), viewer(c), timelines)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, markerMap(ms))
}

// setMarkers answers POST /api/v1/markers, with home[last_read_id] and
// notifications[last_read_id] as a form or as JSON.
func (a *API) setMarkers(c echo.Context) error {
	want, err := markersOf(c)
	if err != nil {
		return err
	}
	ctx, uid := c.Request().Context(), viewer(c)
	var set []store.Marker
	for _, tl := range markerTimelines {
		id, ok := want[tl]
		if !ok {
			continue
		}
		if tl == store.MarkerNotifications && id > 0 {
			if err := a.st.MarkRead(ctx, uid, id); err != nil {
				return err
			}
		}
		m, err := a.st.SetMarker(ctx, uid, tl, id)
		if err != nil {
			return err
		}
		set = append(set, m)
	}
	return c.JSON(http.StatusOK, markerMap(set))
}

// markersOf reads the last read ids a POST /api/v1/markers sets, by
// timeline.
func markersOf(c echo.Context) (map[string]int64, error) {
	raw := make(map[string]string)
	if strings.HasPrefix(c.Request().Header.Get(echo.HeaderContentType), echo.MIMEApplicationJSON) {
		var body map[string]struct {
			LastReadID any `json:"last_read_id"`
		}
		dec := json.NewDecoder(c.Request().Body)
		dec.UseNumber() // ids as they were written, not as floats
		if err := dec.Decode(&body); err != nil {
			return nil, store.Invalid(store.CodeInvalidJSON, "the body is not JSON of markers")
		}
		for tl, m := range body {
			if m.LastReadID != nil {
				raw[tl] = fmt.Sprint(m.LastReadID)
			}
		}
	} else {
		form, err := c.FormParams()
		if err != nil {
			return nil, store.Invalid(store.CodeInvalidBody, "the body is not a form of markers")
		}
		for _, tl := range markerTimelines {
			if v := form.Get(tl + "[last_read_id]"); v != "" {
				raw[tl] = v
			}
		}
	}
	out := make(map[string]int64, len(raw))
	for _, tl := range markerTimelines {
		v, ok := raw[tl]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, store.Invalid(store.CodeInvalidField, tl+"[last_read_id] must be an id")
		}
		out[tl] = n
	}
	if len(out) == 0 {
		return nil, store.Invalid(store.CodeInvalidField, "set home[last_read_id] or notifications[last_read_id]")
	}
	return out, nil
}
