// Package mobile is the HTML5 mobile web app: installable (manifest, icons,
// a service worker), packagable with Cordova/PhoneGap (config.xml), plain
// HTML, CSS and JavaScript modules with no build step, embedded into the
// server binary.
package mobile

import (
	"embed"
	"io/fs"
)

// files holds the app. icons/gen.go, which drew the PNG icons, is left out.
//
//go:embed index.html style.css sw.js manifest.webmanifest config.xml js icons/*.png icons/*.svg
var files embed.FS

// FS returns the static root served at /m/.
func FS() fs.FS { return files }
