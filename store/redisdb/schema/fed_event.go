package schema

import (
	"encoding/json"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// FedEventEntry is e as a FedOutbox entry's fields.
func FedEventEntry(e store.FedEvent) []any {
	raw, _ := json.Marshal(e)
	return []any{FedEventField, raw}
}

// ParseFedEvent reads a FedOutbox entry; ok is false for anything else.
func ParseFedEvent(m redis.XMessage) (e store.FedEvent, ok bool) {
	raw, _ := m.Values[FedEventField].(string)
	if json.Unmarshal([]byte(raw), &e) != nil || e.Kind == "" {
		return e, false
	}
	return e, true
}
