// Package mobile is the HTML5 mobile web app: installable (manifest, icons,
// a service worker), packagable with Cordova/PhoneGap (config.xml), plain
// HTML, CSS and JavaScript modules with no build step, embedded into the
// server binary.
package mobile

import (
	"embed"
	"io/fs"

	"microblog/web"
)

// files holds the app's own files. icons/gen.go, which drew the PNG icons,
// is left out.
//
//go:embed index.html style.css sw.js manifest.webmanifest config.xml cordova.js js icons/*.png icons/*.svg
var files embed.FS

// app is the whole app: its own files with the ones it shares with the
// desktop page (core.css and js/core/*.js, kept only in web/) laid over them
// at the same paths, so the pages load them as core.css and js/core/….
var app fs.FS = overlay{files, web.Shared()}

// FS returns the static root served at /m/.
func FS() fs.FS { return app }
