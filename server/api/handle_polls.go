package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleVote records the caller's vote in the poll of the post in the path
// (a poll's id is its post's): 200 Poll with the new counts; 409
// already_voted, 422 poll_expired or invalid_choices, 404 as for a post the
// caller may not see.
func handleVote(st store.Polls) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		var in struct {
			Choices []int `json:"choices"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		p, err := st.Vote(c.Request().Context(), viewer(c), mid, in.Choices)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, p)
	}
}

// handlePoll returns the poll of the post in the path as the caller sees it.
func handlePoll(st store.Polls) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		p, err := st.Poll(c.Request().Context(), viewer(c), mid)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, p)
	}
}
