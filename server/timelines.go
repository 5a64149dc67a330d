package main

import (
	"context"
	"fmt"

	"microblog/store"
	"microblog/store/archive"
)

// openArchive opens the archive the settings name; nil when it is off. A
// database that does not answer yet is no reason not to start: the archive
// queue waits for it.
func (tc timelineConfig) openArchive(ctx context.Context) (store.Archive, error) {
	if tc.Archive == "off" {
		return nil, nil
	}
	db, err := archive.Open(ctx, tc.Archive)
	if err != nil {
		return nil, fmt.Errorf("open MICROBLOG_ARCHIVE: %w", err)
	}
	return db, nil
}
