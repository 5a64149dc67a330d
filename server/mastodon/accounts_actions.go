package mastodon

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// What the caller does to an account: each answers the Relationship that
// follows, and counts against the caller's follow limit as the native API
// counts it (follows, blocks and mutes change who follows whom or what
// reaches whom).

// action is one thing the caller (uid) does to the account id.
type action func(ctx context.Context, uid, id int64) error

// act serves an action on the account in the path.
func (a *API) act(do action) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		ctx, uid := c.Request().Context(), viewer(c)
		if _, err := a.userOf(ctx, id, uid); err != nil {
			return err
		}
		if err := do(ctx, uid, id); err != nil {
			return recordNotFound(err)
		}
		r, err := a.relationshipOf(ctx, uid, id)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, r)
	}
}

// allowFollow counts one change of uid's against its follow limit.
func (a *API) allowFollow(ctx context.Context, uid int64) error {
	return a.st.Allow(ctx, "follow", strconv.FormatInt(uid, 10), a.d.Limits.Follow)
}

// followOrAsk follows id, or asks it when it is protected (the
// relationship then says requested).
func (a *API) followOrAsk(ctx context.Context, uid, id int64) error {
	if err := a.allowFollow(ctx, uid); err != nil {
		return err
	}
	_, err := a.st.FollowOrAsk(ctx, uid, id)
	return err
}

// unfollow stops following id.
func (a *API) unfollow(ctx context.Context, uid, id int64) error {
	if err := a.allowFollow(ctx, uid); err != nil {
		return err
	}
	return a.st.Unfollow(ctx, uid, id)
}

// blocker is an action that turns a block or a mute (set) on or off.
func (a *API) blocker(set func(ctx context.Context, uid, target int64, on bool) error, on bool) action {
	return func(ctx context.Context, uid, id int64) error {
		if err := a.allowFollow(ctx, uid); err != nil {
			return err
		}
		return set(ctx, uid, id, on)
	}
}

// answer is the action that approves (or rejects) id's request to follow
// the caller; Record not found when there is none.
func (a *API) answer(approve bool) action {
	return func(ctx context.Context, uid, id int64) error {
		return a.st.AnswerFollowRequest(ctx, uid, id, approve)
	}
}
