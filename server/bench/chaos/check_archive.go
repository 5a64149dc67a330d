package main

import (
	"context"
	"fmt"
	"strings"
)

// checkArchive holds the SQL archive, read directly, to Redis and the
// ledger: every standing post archived once under its id, no post that
// does not stand (unless Redis still has it unfinished), and the likes of
// the last acknowledged write of each pair.
func checkArchive(ctx context.Context, w *world, f *findings, msgs map[int64]message) error {
	rows, err := w.b.db.QueryContext(ctx, "SELECT id, content FROM messages WHERE kind = 'post' AND deleted = 0")
	if err != nil {
		return fmt.Errorf("read the archive's messages: %w", err)
	}
	archived := map[int64]bool{}
	byKey := map[string][]int64{}
	for rows.Next() {
		var id int64
		var content string
		if err := rows.Scan(&id, &content); err != nil {
			rows.Close()
			return fmt.Errorf("read the archive's messages: %w", err)
		}
		archived[id] = true
		key := strings.TrimPrefix(content, "chaos ")
		byKey[key] = append(byKey[key], id)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the archive's messages: %w", err)
	}
	led := w.led
	for mid, m := range msgs {
		if m.stands() && !archived[mid] {
			if _, ok := led.posts[m.key]; ok {
				f.lost["post "+m.key] = true
			}
			f.fail("post %s (%d) stands in Redis but is not in the archive", m.key, mid)
		}
	}
	for key, ids := range byKey {
		if len(ids) > 1 {
			f.duplicates += len(ids) - 1
			f.fail("post %s is in the archive %d times: ids %v (acknowledged as %d)", key, len(ids), ids, led.posts[key])
		}
		for _, id := range ids {
			if m, ok := msgs[id]; !ok || !m.stands() && !m.unfinished {
				f.fail("post %s (%d) is in the archive but not in Redis", key, id)
			}
		}
	}
	return checkArchivedLikes(ctx, w, f)
}

// checkArchivedLikes holds the archive's likes to the last acknowledged
// write of each pair: every like and unlike is queued for it.
func checkArchivedLikes(ctx context.Context, w *world, f *findings) error {
	rows, err := w.b.db.QueryContext(ctx, "SELECT uid, mid FROM likes")
	if err != nil {
		return fmt.Errorf("read the archive's likes: %w", err)
	}
	defer rows.Close()
	liked := map[pair]bool{}
	for rows.Next() {
		var p pair
		if err := rows.Scan(&p.who, &p.what); err != nil {
			return fmt.Errorf("read the archive's likes: %w", err)
		}
		liked[p] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the archive's likes: %w", err)
	}
	led := w.led
	for p, on := range led.likes {
		if !led.likesUnsure[p] && liked[p] != on {
			f.lost[fmt.Sprintf("like %d %d", p.who, p.what)] = true
			f.fail("user %d's last acknowledged write of its like of post %d left it %v, the archive says %v", p.who, p.what, on, !on)
		}
	}
	return nil
}
