package mobile

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSharedCoreIsIdentical checks that js/core holds the same modules as
// web/js/core: the two front ends share them as copies, because each is
// embedded on its own and the packaged app carries all its files.
func TestSharedCoreIsIdentical(t *testing.T) {
	web, _ := filepath.Glob("../web/js/core/*.js")
	mine, _ := filepath.Glob("js/core/*.js")
	if len(web) == 0 || len(web) != len(mine) {
		t.Fatalf("web/js/core has %d modules, mobile/js/core %d: copy them with cp web/js/core/*.js mobile/js/core/", len(web), len(mine))
	}
	for _, w := range web {
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(filepath.Join("js/core", filepath.Base(w)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("mobile/js/core/%s differs from web/js/core: edit web's copy, then cp web/js/core/*.js mobile/js/core/", filepath.Base(w))
		}
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
