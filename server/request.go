package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// maxBodyBytes is maxBody in bytes, for reading bodies.
const maxBodyBytes = 64 << 10

// bindJSON reads a JSON object body into v, answering the contract's error
// for a body that is not JSON, too large, not UTF-8, malformed or of the
// wrong types. Unknown fields are ignored, as clients of a JSON API expect.
func bindJSON(c echo.Context, v any) error {
	ct := c.Request().Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" || (params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8")) {
		return newAPIError(http.StatusUnsupportedMediaType, "unsupported_media_type", "request body must be application/json (UTF-8)")
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return newAPIError(http.StatusRequestEntityTooLarge, "body_too_large", "request body must be at most 64 KiB")
		}
		return newAPIError(http.StatusBadRequest, "invalid_body", "could not read the request body")
	}
	if !utf8.Valid(body) {
		return newAPIError(http.StatusBadRequest, "invalid_utf8", "request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return newAPIError(http.StatusBadRequest, "invalid_json", "request body must be a JSON object")
			}
			return newAPIError(http.StatusBadRequest, "invalid_field", fmt.Sprintf("%s must be a %s", te.Field, jsonKind(te.Type.Kind().String())))
		}
		return newAPIError(http.StatusBadRequest, "invalid_json", "request body is not valid JSON: "+err.Error())
	}
	if dec.More() {
		return newAPIError(http.StatusBadRequest, "invalid_json", "request body must hold one JSON object")
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "int64", "int", "float64":
		return "number"
	case "bool":
		return "boolean"
	}
	return goKind
}

// pageQuery reads ?limit=, ?cursor= and ?after=.
func pageQuery(c echo.Context) (store.PageQuery, error) {
	var q store.PageQuery
	if s := c.QueryParam("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > store.MaxLimit {
			return q, newAPIError(http.StatusBadRequest, "invalid_limit", "limit must be a number from 1 to 100")
		}
		q.Limit = n
	}
	if s := c.QueryParam("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return q, newAPIError(http.StatusBadRequest, "invalid_after", "after must be a message id")
		}
		q.After = n
	}
	q.Cursor = c.QueryParam("cursor")
	return q, nil
}

// pageHandler answers GET of a list: it reads ?limit=, ?cursor= and ?after=,
// lets fetch load that page and answers it as JSON.
func pageHandler[T any](fetch func(c echo.Context, q store.PageQuery) (store.Page[T], error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		q, err := pageQuery(c)
		if err != nil {
			return err
		}
		page, err := fetch(c, q)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, page)
	}
}

// idParam reads a message id from the path; a malformed one is simply not found.
func idParam(c echo.Context) (int64, error) {
	n, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || n <= 0 {
		return 0, newAPIError(http.StatusNotFound, "post_not_found", "no such post")
	}
	return n, nil
}
