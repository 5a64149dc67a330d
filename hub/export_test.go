package hub

import "microblog/store"

// FlushControl waits until every stars and lens_changed event queued
// before it has been applied: the control goroutine runs them in order.
func FlushControl(h *Hub) {
	done := make(chan struct{})
	h.control.push(func() { close(done) })
	<-done
}

// Listeners is how many users listen to topic t here.
func Listeners(h *Hub, t store.Topic) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if tp := h.topics[t]; tp != nil {
		return tp.users.len()
	}
	return 0
}
