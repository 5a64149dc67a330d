package mastodon

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/server/webpush"
	"microblog/store"
)

// Web Push subscriptions (docs/mastodon.md): one per access token, as
// Mastodon keeps them. The pushes are sent by server/webpush.

// pushRoutes registers /api/v1/push/subscription. Without a push
// service (Deps.Push nil) there is never a subscription, as Mastodon
// answers a server that has no Web Push.
func (a *API) pushRoutes(r *router) {
	push := a.auth("push", true)
	if a.d.Push == nil {
		r.add(http.MethodGet, "/api/v1/push/subscription", func(echo.Context) error { return errRecordNotFound }, push)
		return
	}
	r.add(http.MethodPost, "/api/v1/push/subscription", a.createPushSubscription, push)
	r.add(http.MethodGet, "/api/v1/push/subscription", a.getPushSubscription, push)
	r.add(http.MethodPut, "/api/v1/push/subscription", a.updatePushSubscription, push)
	r.add(http.MethodDelete, "/api/v1/push/subscription", a.deletePushSubscription, push)
}

// WebPushSubscription is Mastodon's WebPushSubscription entity.
type WebPushSubscription struct {
	ID        string           `json:"id"`
	Endpoint  string           `json:"endpoint"`
	Alerts    store.PushAlerts `json:"alerts"`
	Policy    string           `json:"policy"`
	ServerKey string           `json:"server_key"`
	// Standard is true: pushes are encrypted as RFC 8291 says (aes128gcm),
	// not with the draft's aesgcm.
	Standard bool `json:"standard"`
}

// vapidKey is the VAPID public key, "" when it cannot be read now (Redis
// away): an app's entity still answers.
func (a *API) vapidKey(ctx context.Context) string {
	if a.d.Push == nil {
		return ""
	}
	k, err := a.d.Push.PublicKey(ctx)
	if err != nil {
		a.d.Logger.Warn("vapid public key", "err", err)
	}
	return k
}

// pushOwner is the owner of the caller's subscription: its token.
func pushOwner(c echo.Context) string { return "m:" + who(c).TokenHash }

// entity maps a subscription.
func (a *API) pushEntity(c echo.Context, sub store.PushSubscription) error {
	key, err := a.d.Push.PublicKey(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, WebPushSubscription{ID: strconv.FormatInt(sub.ID, 10), Endpoint: sub.Endpoint,
		Alerts: sub.Alerts, Policy: sub.Policy, ServerKey: key, Standard: true})
}

// pushParams reads the parameters of a subscription as Mastodon's names
// give them (subscription[keys][auth], data[alerts][mention], ...): from
// a form, the query, or a JSON body of nested objects.
func pushParams(c echo.Context) (url.Values, error) {
	mt, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type"))
	if mt != "application/json" {
		return readParams(c)
	}
	b, err := readBody(c)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &obj); err != nil {
			return nil, store.Invalid(store.CodeInvalidJSON, "request body must be a JSON object")
		}
	}
	out := url.Values{}
	var flatten func(prefix string, v any)
	flatten = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				name := k
				if prefix != "" {
					name = prefix + "[" + k + "]"
				}
				flatten(name, e)
			}
		case string:
			out.Add(prefix, v)
		case bool:
			out.Add(prefix, strconv.FormatBool(v))
		case float64:
			out.Add(prefix, strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	flatten("", obj)
	return out, nil
}

// pushAlertNames are the alerts' parameter names, as data[alerts][<name>].
var pushAlertNames = []string{"mention", "status", "reblog", "follow", "follow_request", "favourite", "poll",
	"update", "admin.sign_up", "admin.report"}

// readPushData applies the data[alerts][...] and data[policy] given to
// sub; what is not given stays as it was.
func readPushData(p url.Values, sub *store.PushSubscription) error {
	al := &sub.Alerts
	fields := []*bool{&al.Mention, &al.Status, &al.Reblog, &al.Follow, &al.FollowRequest, &al.Favourite, &al.Poll,
		&al.Update, &al.AdminSignUp, &al.AdminReport}
	for i, name := range pushAlertNames {
		if p.Has("data[alerts][" + name + "]") {
			*fields[i] = flag(p.Get("data[alerts][" + name + "]"))
		}
	}
	policy := p.Get("data[policy]")
	if policy == "" {
		policy = p.Get("policy") // Mastodon.py's name
	}
	switch policy {
	case "":
	case store.PushPolicyAll, store.PushPolicyFollowed, store.PushPolicyFollower, store.PushPolicyNone:
		sub.Policy = policy
	default:
		return store.Invalid(store.CodeInvalidField, "data[policy] must be all, followed, follower or none")
	}
	return nil
}

// createPushSubscription is POST /api/v1/push/subscription: it replaces
// the token's subscription. Alerts not given are off, as on Mastodon.
func (a *API) createPushSubscription(c echo.Context) error {
	p, err := pushParams(c)
	if err != nil {
		return err
	}
	sub := store.PushSubscription{UID: viewer(c), Owner: pushOwner(c), Endpoint: p.Get("subscription[endpoint]"),
		P256dh: p.Get("subscription[keys][p256dh]"), Auth: p.Get("subscription[keys][auth]"),
		Policy: store.PushPolicyAll, Lang: webpush.Lang(c.Request().Header.Get("Accept-Language")), Origin: a.d.Origin(c)}
	if err := webpush.CheckSubscription(sub.Endpoint, sub.P256dh, sub.Auth); err != nil {
		return err
	}
	if s := p.Get("subscription[standard]"); s != "" && !flag(s) {
		return store.Invalid(store.CodeInvalidField, "subscription[standard] must be true: pushes are encrypted as RFC 8291 says")
	}
	if err := readPushData(p, &sub); err != nil {
		return err
	}
	sub, err = a.st.PutPushSubscription(c.Request().Context(), sub)
	if err != nil {
		return err
	}
	return a.pushEntity(c, sub)
}

// getPushSubscription is GET /api/v1/push/subscription.
func (a *API) getPushSubscription(c echo.Context) error {
	sub, err := a.st.PushSubscription(c.Request().Context(), viewer(c), pushOwner(c))
	if err != nil {
		return recordNotFound(err)
	}
	return a.pushEntity(c, sub)
}

// updatePushSubscription is PUT /api/v1/push/subscription: it changes the
// alerts and policy given, and keeps the rest.
func (a *API) updatePushSubscription(c echo.Context) error {
	ctx := c.Request().Context()
	sub, err := a.st.PushSubscription(ctx, viewer(c), pushOwner(c))
	if err != nil {
		return recordNotFound(err)
	}
	p, err := pushParams(c)
	if err != nil {
		return err
	}
	if err := readPushData(p, &sub); err != nil {
		return err
	}
	if sub, err = a.st.PutPushSubscription(ctx, sub); err != nil {
		return err
	}
	return a.pushEntity(c, sub)
}

// deletePushSubscription is DELETE /api/v1/push/subscription: {} whether
// or not there was one, as Mastodon answers.
func (a *API) deletePushSubscription(c echo.Context) error {
	if err := a.st.DeletePushSubscription(c.Request().Context(), viewer(c), pushOwner(c)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct{}{})
}
