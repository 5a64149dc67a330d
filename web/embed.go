// Package web is the desktop browser front end: plain HTML, CSS and
// JavaScript modules with no build step, embedded into the server binary.
package web

import (
	"embed"
	"io/fs"
)

// files holds the page. The e2e folder (browser tests and their
// node_modules) is left out on purpose: it is not part of what is served.
//
//go:embed index.html style.css favicon.svg js
var files embed.FS

// FS returns the static root served at /.
func FS() fs.FS { return files }
