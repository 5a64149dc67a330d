package upload

import (
	"context"

	"microblog/store"
	"microblog/store/media"
)

// headerStore is where a header image's name is kept.
type headerStore interface {
	SetHeader(ctx context.Context, uid int64, name string) (store.User, error)
}

// SaveHeader makes a prepared image uid's header image, as SaveAvatar
// makes one its avatar: the full image only (a header is shown wide).
func SaveHeader(ctx context.Context, st headerStore, files *media.Folder, uid int64, img *media.Image) (store.User, error) {
	name := media.NewName(img.Ext)
	if err := saveFiles(files, name, img.Full); err != nil {
		return store.User{}, err
	}
	u, err := st.SetHeader(ctx, uid, name)
	if err != nil {
		files.Remove(name)
		return store.User{}, err
	}
	return u, nil
}
