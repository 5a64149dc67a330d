package main

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"
)

// handleStatic serves a front end from fsys under prefix. A path that is not
// a file and has no extension is a route of the app (say /u/alice) and gets
// its index.html; a missing asset is a plain 404.
func handleStatic(fsys fs.FS, prefix string) echo.HandlerFunc {
	files := http.FileServer(http.FS(fsys))
	return func(c echo.Context) error {
		r := c.Request()
		if strings.HasPrefix(r.URL.Path, "/api/") {
			return echo.ErrNotFound
		}
		name := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, prefix)), "/")
		if name == "" {
			name = "."
		}
		st, err := fs.Stat(fsys, name)
		if err != nil || (st.IsDir() && name != ".") {
			if path.Ext(name) != "" {
				return echo.ErrNotFound
			}
			name = "."
		}
		h := c.Response().Header()
		switch {
		case name == "." || strings.HasSuffix(name, ".html") || strings.HasSuffix(name, "sw.js"):
			h.Set("Cache-Control", "no-cache")
		default:
			h.Set("Cache-Control", "public, max-age=300")
		}
		if strings.HasSuffix(name, "sw.js") {
			h.Set("Service-Worker-Allowed", prefix)
		}
		req := r.Clone(r.Context())
		req.URL.Path = "/" + strings.TrimPrefix(name, ".")
		files.ServeHTTP(c.Response(), req)
		return nil
	}
}
