package mobile

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// overlay is a read-only file system made of layers. A name is looked up in
// each layer in turn and the first that has it wins; a directory lists the
// entries of that directory in every layer. The app uses it to add the files
// it shares with the desktop page, which live only in web/, to its own.
type overlay []fs.FS

// Open opens name in the first layer that has it. A directory comes back
// with the merged listing, so http.FileServer sees the same tree as WalkDir.
func (o overlay) Open(name string) (fs.File, error) {
	for _, layer := range o {
		f, err := layer.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if !st.IsDir() {
			return f, nil
		}
		entries, err := o.ReadDir(name)
		if err != nil {
			f.Close()
			return nil, err
		}
		return &dir{File: f, entries: entries}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Stat describes name as the first layer that has it does.
func (o overlay) Stat(name string) (fs.FileInfo, error) {
	for _, layer := range o {
		st, err := fs.Stat(layer, name)
		if !errors.Is(err, fs.ErrNotExist) {
			return st, err
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// ReadDir lists directory name across all layers, sorted by file name; where
// two layers hold the same name, the earlier layer's entry is the one listed.
func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	var all []fs.DirEntry
	found := false
	for _, layer := range o {
		entries, err := fs.ReadDir(layer, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found = true
		for _, e := range entries {
			if !slices.ContainsFunc(all, func(seen fs.DirEntry) bool { return seen.Name() == e.Name() }) {
				all = append(all, e)
			}
		}
	}
	if !found {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	slices.SortFunc(all, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return all, nil
}

// dir is an open directory of an overlay: the first layer's directory for
// Stat and Close, listing the entries of every layer.
type dir struct {
	fs.File
	entries []fs.DirEntry // not yet returned by ReadDir
}

// ReadDir implements fs.ReadDirFile.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		rest := d.entries
		d.entries = nil
		return rest, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	batch := d.entries[:n:n]
	d.entries = d.entries[n:]
	return batch, nil
}
