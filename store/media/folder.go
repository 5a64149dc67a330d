package media

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Folder keeps media files in one directory, under random names. Several
// server processes can share it (a network file system): names never
// collide and files are written under a temporary name, then renamed, so a
// reader never sees half a file.
type Folder struct{ Dir string }

// OpenFolder makes sure dir exists and is writable.
func OpenFolder(dir string) (*Folder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("media folder %s: %w", dir, err)
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil, fmt.Errorf("media folder %s is not writable: %w", dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return &Folder{Dir: dir}, nil
}

// NewName is a fresh random file name with ext: never the client's.
func NewName(ext string) string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:]) + ext
}

// Save writes a file under name.
func (f *Folder) Save(name string, b []byte) error {
	if !ValidName(name) {
		return fmt.Errorf("media: bad file name %q", name)
	}
	tmp, err := os.CreateTemp(f.Dir, ".upload-*")
	if err != nil {
		return fmt.Errorf("media: save: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(f.Dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("media: save: %w", err)
	}
	return nil
}

// Remove deletes files; a missing one is not an error.
func (f *Folder) Remove(names ...string) {
	for _, n := range names {
		if ValidName(n) {
			os.Remove(filepath.Join(f.Dir, n))
		}
	}
}

// Path is where a served name lives, or "" for a name this package never
// makes (so no request can reach another file).
func (f *Folder) Path(name string) string {
	if !ValidName(name) {
		return ""
	}
	return filepath.Join(f.Dir, name)
}

// ContentType is the type a name is served with: only images, never HTML.
func ContentType(name string) string {
	switch filepath.Ext(name) {
	case ".jpg":
		return "image/jpeg"
	case ".png":
		return "image/png"
	case ".gif":
		return "image/gif"
	}
	return ""
}

// ValidName tells whether name is one NewName makes: 32 hex digits and an
// image extension.
func ValidName(name string) bool {
	base, ext := strings.TrimSuffix(name, filepath.Ext(name)), filepath.Ext(name)
	if len(base) != 32 || ContentType("x"+ext) == "" {
		return false
	}
	_, err := hex.DecodeString(base)
	return err == nil && strings.ToLower(base) == base
}
