package mobile

import (
	"bytes"
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"microblog/web"
)

// TestSharedFilesAreServed checks that the app holds every file it shares
// with the desktop page (core.css, js/core/*.js) as web/ has it, and that
// mobile/ keeps no copy of its own that would hide web's.
func TestSharedFilesAreServed(t *testing.T) {
	var shared []string
	err := fs.WalkDir(web.Shared(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		shared = append(shared, path)
		want, err := fs.ReadFile(web.Shared(), path)
		if err != nil {
			return err
		}
		if got, err := fs.ReadFile(FS(), path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("the app's %s is not web's: %v", path, err)
		}
		if _, err := fs.Stat(files, path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("mobile/%s exists: shared files live only in web/, delete the copy", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"core.css", "js/core/api.js", "js/core/app.js", "js/core/dom.js", "js/core/feed.js", "js/core/live.js", "js/core/render.js", "js/core/time.js", "js/core/views.js"} {
		if !strings.Contains(strings.Join(shared, " "), want) {
			t.Errorf("web.Shared() lacks %s", want)
		}
	}
	// The merged tree must look the same through Open, Stat, ReadDir and
	// WalkDir, as http.FileServer and the service-worker test rely on.
	if err := fstest.TestFS(FS(), append(shared, "index.html", "style.css", "sw.js", "js/app.js", "icons/icon.svg")...); err != nil {
		t.Error(err)
	}
}

// TestServiceWorkerCachesTheShell checks that every file of the app is in
// sw.js's SHELL list, so the app opens offline, and that every listed file exists.
func TestServiceWorkerCachesTheShell(t *testing.T) {
	sw, err := fs.ReadFile(FS(), "sw.js")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{"index.html": strings.Contains(string(sw), "'./'")}
	for _, m := range regexp.MustCompile(`'([^']+\.(?:html|css|js|webmanifest|png|svg))'`).FindAllSubmatch(sw, -1) {
		listed[string(m[1])] = true
	}
	for name := range listed {
		if name == "index.html" {
			continue
		}
		if _, err := fs.Stat(FS(), name); err != nil {
			t.Errorf("sw.js caches %s, which is not in the app", name)
		}
	}
	fs.WalkDir(FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == "sw.js" || path == "config.xml" {
			return err
		}
		if !listed[path] {
			t.Errorf("%s is not in sw.js's SHELL list: the app would miss it offline", path)
		}
		return nil
	})
}
