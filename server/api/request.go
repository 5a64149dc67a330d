package api

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
	"sync"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// MaxBodyBytes is the contract's limit on a JSON request body; uploads
// (UploadPaths) have their own.
const MaxBodyBytes = 64 << 10

// bodyTooLargeMsg tells a client the limit it went past.
var bodyTooLargeMsg = fmt.Sprintf("request body must be at most %d KiB", MaxBodyBytes>>10)

// bindJSON reads a JSON object body into v, answering the contract's error
// for a body that is not JSON, too large, not UTF-8, malformed or of the
// wrong types. Unknown fields are ignored, as clients of a JSON API expect.
func bindJSON(c echo.Context, v any) error {
	ct := c.Request().Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" || (params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8")) {
		return store.NewError(store.ErrUnsupported, store.CodeUnsupportedMedia, "request body must be application/json (UTF-8)")
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, MaxBodyBytes))
	if err != nil {
		// Over the limit: a body with its Content-Length was refused before
		// the handler; a chunked one stops here, with MaxBytesReader's error
		// or that of Echo's BodyLimit reader under it.
		var tooLarge *http.MaxBytesError
		var he *echo.HTTPError
		if errors.As(err, &tooLarge) || errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
			return store.NewError(store.ErrTooLarge, store.CodeBodyTooLarge, bodyTooLargeMsg)
		}
		return store.Invalid(store.CodeInvalidBody, "could not read the request body")
	}
	if !utf8.Valid(body) {
		return store.Invalid(store.CodeInvalidUTF8, "request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return store.Invalid(store.CodeInvalidJSON, "request body must be a JSON object")
			}
			return store.Invalid(store.CodeInvalidField, fmt.Sprintf("%s must be a %s", te.Field, jsonKind(te.Type.Kind().String())))
		}
		return store.Invalid(store.CodeInvalidJSON, jsonProblem(err))
	}
	if dec.More() {
		return store.Invalid(store.CodeInvalidJSON, "request body must hold one JSON object")
	}
	return nil
}

// jsonProblem says what is wrong with a body that is not JSON in the
// service's words, never in the decoder's, which name its internals
// ("exceeded max depth", "looking for beginning of value").
func jsonProblem(err error) string {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return "request body is empty: send a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "request body is not valid JSON: it ends too soon"
	case errors.As(err, &se):
		return fmt.Sprintf("request body is not valid JSON, or nests too deeply, at byte %d", se.Offset)
	}
	return "request body is not valid JSON"
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

// pageQuery reads ?limit=, ?cursor= and ?after=, for the caller.
func pageQuery(c echo.Context) (store.PageQuery, error) {
	q, err := store.ParsePageQuery(c.QueryParam("limit"), c.QueryParam("cursor"), c.QueryParam("after"))
	q.Viewer = viewer(c)
	return q, err
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
		if posts, ok := any(page).(store.Page[store.Post]); ok {
			return postPageJSON(c, posts)
		}
		return c.JSON(http.StatusOK, page)
	}
}

// pageBuffers hold the encoded pages of posts between requests.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// postPageJSON answers a page of posts as c.JSON would, byte for byte,
// encoded by store.AppendPostPageJSON rather than by reflection (a fifth
// of a home read's server CPU). A pretty-printed answer (?pretty, or
// Echo's debug mode) is left to c.JSON.
func postPageJSON(c echo.Context, page store.Page[store.Post]) error {
	if _, pretty := c.QueryParams()["pretty"]; pretty || c.Echo().Debug {
		return c.JSON(http.StatusOK, page)
	}
	buf := pageBuffers.Get().(*[]byte)
	*buf = store.AppendPostPageJSON((*buf)[:0], page)
	err := c.JSONBlob(http.StatusOK, *buf)
	if cap(*buf) <= 1<<20 { // a rare huge page is not kept
		pageBuffers.Put(buf)
	}
	return err
}

// idParam reads a message id from the path; a malformed one is simply not found.
func idParam(c echo.Context) (int64, error) {
	n, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || n <= 0 {
		return 0, store.ErrPostNotFound
	}
	return n, nil
}

// noContent answers 204.
func noContent(c echo.Context) error { return c.NoContent(http.StatusNoContent) }

// PlainHost tells whether a Host header is a bare host[:port], safe to put
// in a policy or a URL: net/http lets through characters such as ';' and ','.
func PlainHost(host string) bool {
	if host == "" || len(host) > 255 {
		return false
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-:[]", r)) {
			return false
		}
	}
	return true
}
