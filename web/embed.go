// Package web is the desktop browser front end: plain HTML, CSS and
// JavaScript modules with no build step, embedded into the server binary
// (which bundles the modules when it starts: server/api/static_bundle.go).
//
// It also owns the parts both front ends share, core.css and the modules in
// js/core; the mobile app is served them from here (see Shared).
package web

import (
	"embed"
	"io/fs"
)

// files holds the page. The e2e folder (browser tests and their
// node_modules) is left out on purpose: it is not part of what is served.
//
//go:embed index.html style.css core.css favicon.svg img js
var files embed.FS

// shared holds only what the mobile app uses too, at the same paths as in files.
//
//go:embed core.css js/core
var shared embed.FS

// FS returns the static root served at /.
func FS() fs.FS { return files }

// Shared returns the files both front ends use, core.css and js/core/*.js,
// at the same paths as in FS, so that another front end can lay them over
// its own root and load them with the same relative URLs.
func Shared() fs.FS { return shared }
