package mastodon

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"microblog/hub"
	"microblog/store"
)

// List streams: the posts, edits and deletes of the members of one of the
// caller's lists. The connection hears the authors its user follows
// already, and a list's members are among them (the store keeps them so),
// so a list stream is a routing of those author events by the list's
// members, under the same safety rule. The members are read as the stream
// is subscribed, and kept up to date by the store's list_members events
// on the user's own topic (store.EventListMembers), so that an account
// added to or taken out of the list, from any process, counts at once.

// listLoadWait bounds the read of a list's members at a subscription.
const listLoadWait = 5 * time.Second

// listMembers reads the members of uid's list named by its id.
func (a *API) listMembers(uid int64) func(ctx context.Context, list string) ([]int64, error) {
	return func(ctx context.Context, list string) ([]int64, error) {
		lid, err := parseID(list)
		if err != nil {
			return nil, err
		}
		return a.st.ListMemberIDs(ctx, uid, lid)
	}
}

// loadList reads the members of s when it is a list stream: Record not
// found when the list is none of the caller's.
func (f *streamFormat) loadList(s stream) error {
	if s.name != "list" {
		return nil
	}
	if f.members == nil || f.uid == 0 {
		return errRecordNotFound
	}
	ctx, cancel := context.WithTimeout(context.Background(), listLoadWait)
	defer cancel()
	ids, err := f.members(ctx, s.key)
	if err != nil {
		return listError(err)
	}
	set := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lists == nil {
		f.lists = make(map[string]map[int64]struct{})
	}
	f.lists[s.key] = set
	return nil
}

// dropList forgets the members of s when it is a list stream.
func (f *streamFormat) dropList(s stream) {
	if s.name != "list" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.lists, s.key)
}

// inListLocked tells whether author is a member of the list of id key.
// The caller holds mu.
func (f *streamFormat) inListLocked(key string, author int64) bool {
	_, ok := f.lists[key][author]
	return ok
}

// listChangedLocked takes the members a list_members event ev tells, when
// it is of the list of id key. The caller holds mu.
func (f *streamFormat) listChangedLocked(ev *hub.Event, key string) {
	d, _ := ev.Shared(listDataKey{}, func() any {
		var d store.ListMembersData
		if json.Unmarshal(ev.Data, &d) != nil {
			return (*store.ListMembersData)(nil)
		}
		return &d
	}).(*store.ListMembersData)
	if d == nil || idString(d.ListID) != key {
		return
	}
	set := make(map[int64]struct{}, len(d.Members))
	for _, id := range d.Members {
		set[id] = struct{}{}
	}
	f.lists[key] = set
}

// listDataKey is the hub.Event.Shared key of a list_members event's data.
type listDataKey struct{}

// listErrorStatus is the status of an error frame for a list that cannot
// be streamed.
func listErrorStatus(err error) int {
	if errors.Is(err, store.ErrNotFound) {
		return http.StatusNotFound
	}
	return http.StatusServiceUnavailable
}
