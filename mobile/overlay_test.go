package mobile

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"testing/fstest"
)

// TestOverlay checks that an overlay merges its layers consistently for
// Open, ReadDir, WalkDir and http.FileServer, the earlier layer winning.
func TestOverlay(t *testing.T) {
	o := overlay{
		fstest.MapFS{"index.html": {Data: []byte("own")}, "js/app.js": {Data: []byte("app")}, "a.txt": {Data: []byte("first")}},
		fstest.MapFS{"js/core/api.js": {Data: []byte("api")}, "core.css": {Data: []byte("css")}, "a.txt": {Data: []byte("second")}},
	}
	if err := fstest.TestFS(o, "index.html", "js/app.js", "js/core/api.js", "core.css", "a.txt"); err != nil {
		t.Fatal(err)
	}
	if b, _ := fs.ReadFile(o, "a.txt"); string(b) != "first" {
		t.Errorf("a.txt = %q, want the first layer's", b)
	}
	var names []string
	fs.WalkDir(o, ".", func(path string, d fs.DirEntry, err error) error {
		names = append(names, path)
		return err
	})
	want := []string{".", "a.txt", "core.css", "index.html", "js", "js/app.js", "js/core", "js/core/api.js"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("WalkDir saw %q, want %q", names, want)
	}
	if _, err := o.Open("nope.js"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(nope.js) = %v, want ErrNotExist", err)
	}

	srv := httptest.NewServer(http.FileServerFS(o))
	defer srv.Close()
	for path, body := range map[string]string{"/js/core/api.js": "api", "/js/app.js": "app", "/core.css": "css"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(b) != body {
			t.Errorf("GET %s = %d %q, want 200 %q", path, res.StatusCode, b, body)
		}
	}
}
