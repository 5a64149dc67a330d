package mastodon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/server/upload"
	"microblog/store"
)

// maxParamsBytes is the most of a request body of parameters read, as the
// native API's limit on a body.
const maxParamsBytes = 64 << 10

// readParams reads a request's parameters as Mastodon takes them: the
// query and a body of JSON, a URL-encoded form or a multipart form (its
// text parts). A name loses its "[]" (status_ids[] is status_ids), and a
// JSON array gives each of its values.
func readParams(c echo.Context) (url.Values, error) {
	out := url.Values{}
	add := func(vs url.Values) {
		for k, v := range vs {
			k = strings.TrimSuffix(k, "[]")
			out[k] = append(out[k], v...)
		}
	}
	add(c.QueryParams())
	r := c.Request()
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return out, nil
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "multipart/form-data":
		form, err := upload.Read(c, "")
		if err != nil {
			return nil, err
		}
		add(form.Values)
	case "application/x-www-form-urlencoded":
		b, err := readBody(c)
		if err != nil {
			return nil, err
		}
		vs, err := url.ParseQuery(string(b))
		if err != nil {
			return nil, store.Invalid(store.CodeInvalidBody, "the form is not valid")
		}
		add(vs)
	case "application/json", "":
		b, err := readBody(c)
		if err != nil {
			return nil, err
		}
		vs, err := jsonParams(b)
		if err != nil {
			return nil, err
		}
		add(vs)
	default:
		return nil, store.NewError(store.ErrUnsupported, store.CodeUnsupportedMedia, "send JSON, a URL-encoded form or a multipart form")
	}
	return out, nil
}

// readBody reads a body of parameters, at most maxParamsBytes.
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxParamsBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, store.NewError(store.ErrTooLarge, store.CodeBodyTooLarge, fmt.Sprintf("request body must be at most %d KiB", maxParamsBytes>>10))
	}
	if err != nil {
		return nil, store.Invalid(store.CodeInvalidBody, "could not read the request body")
	}
	return b, nil
}

// jsonParams reads a JSON object's scalar members (and arrays of them) as
// parameters, and nested objects and arrays of them as forms spell
// them (flatten).
func jsonParams(b []byte) (url.Values, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return url.Values{}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, store.Invalid(store.CodeInvalidJSON, "request body must be a JSON object")
	}
	out := url.Values{}
	for k, raw := range obj {
		flatten(out, k, raw, 0)
	}
	return out, nil
}

// flatten adds a JSON member's value under key: a scalar as it is, an
// array's scalars under key itself, and an object's members (an array's
// objects by index) under key[member], as forms spell them
// (fields_attributes[0][name]). It goes at most a few levels down.
func flatten(out url.Values, key string, raw json.RawMessage, depth int) {
	if s, ok := scalar(raw); ok {
		out.Add(key, s)
		return
	}
	if depth > 2 {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for i, v := range list {
			if s, ok := scalar(v); ok {
				out.Add(key, s)
			} else {
				flatten(out, key+"["+strconv.Itoa(i)+"]", v, depth+1)
			}
		}
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for k, v := range obj {
			flatten(out, key+"["+k+"]", v, depth+1)
		}
	}
}

// scalar is a JSON string, number or boolean as a parameter's text.
func scalar(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return fmt.Sprint(b), true
	}
	return "", false
}
