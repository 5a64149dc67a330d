package mastodon

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// createDirect sends a status of visibility direct as what it is here, a
// private message, to the one user it mentions (as apps write a reply in
// a conversation: "@bob see you"); the mention that opens it is left out
// of the message. It answers the direct status that shows the message, as
// conversations and the direct stream do. The message's own rules apply:
// blocks, messages_from, the message rate limit and Idempotency-Key.
func (a *API) createDirect(c echo.Context, f url.Values) error {
	ctx := c.Request().Context()
	from := viewer(c)
	text := f.Get("status")
	names := store.ParseText(text).Mentions
	if len(names) != 1 {
		return store.Invalid(store.CodeInvalidField,
			"A direct status is a private message here: mention exactly one user, the one it goes to")
	}
	to, err := a.st.UIDByName(ctx, names[0])
	if err != nil {
		return err
	}
	if content := strings.TrimLeftFunc(strings.TrimPrefix(text, "@"+names[0]), unicode.IsSpace); content != "" &&
		strings.HasPrefix(text, "@"+names[0]) {
		text = content
	}
	nm := store.NewDM{From: from, To: to, Content: text, Limit: a.d.Limits.DM,
		IdempotencyKey: c.Request().Header.Get(idempotencyHeader)}
	if nm.MediaIDs, err = idsOf(f["media_ids"], "media_ids"); err != nil {
		return err
	}
	msg, err := a.st.SendDM(ctx, nm)
	if err != nil {
		return err
	}
	sender, err := a.st.User(ctx, from, from)
	if err != nil {
		return err
	}
	recipient, err := a.st.User(ctx, to, from)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mapperOf(c).directStatus(msg, sender, recipient))
}
