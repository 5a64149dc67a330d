package api

import (
	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleLikers lists who likes the post in the path, newest like first.
func handleLikers(st store.Social) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.User], error) {
		mid, err := idParam(c)
		if err != nil {
			return store.Page[store.User]{}, err
		}
		return st.Likers(c.Request().Context(), mid, q)
	})
}

// handleMarkRead marks the caller's notifications up to {"up_to"} read.
func handleMarkRead(st store.Social) echo.HandlerFunc {
	return func(c echo.Context) error {
		upTo, err := bindUpTo(c)
		if err != nil {
			return err
		}
		if err := st.MarkRead(c.Request().Context(), viewer(c), upTo); err != nil {
			return err
		}
		return noContent(c)
	}
}

// bindUpTo reads a body {"up_to": id}: where a read goes up to.
func bindUpTo(c echo.Context) (int64, error) {
	var in struct {
		UpTo *int64 `json:"up_to"`
	}
	if err := bindJSON(c, &in); err != nil {
		return 0, err
	}
	if in.UpTo == nil {
		return 0, store.Invalid(store.CodeInvalidField, "up_to is missing")
	}
	return *in.UpTo, nil
}

// handleTagPosts lists the posts carrying the topic in the path.
func handleTagPosts(st store.Social) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		return st.TagPosts(c.Request().Context(), c.Param("tag"), q)
	})
}

// handleSearchUsers lists the users whose name starts with ?q=.
func handleSearchUsers(st store.Social) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.User], error) {
		return st.SearchUsers(c.Request().Context(), c.QueryParam("q"), q)
	})
}

// handleSearchTags lists the topics that start with ?q= and have a post
// the caller may see.
func handleSearchTags(st store.Social) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.TagCount], error) {
		tags, err := st.SearchTags(c.Request().Context(), c.QueryParam("q"), q)
		return store.Page[store.TagCount]{Items: tags}, err
	})
}

// handleSuggestions lists popular users the caller does not follow yet.
func handleSuggestions(st store.Social) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.User], error) {
		return st.Suggestions(c.Request().Context(), q)
	})
}
