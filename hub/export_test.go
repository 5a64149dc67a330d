package hub

// FlushControl waits until every stars and lens_changed event queued
// before it has been applied: the control goroutine runs them in order.
func FlushControl(h *Hub) {
	done := make(chan struct{})
	h.control.push(func() { close(done) })
	<-done
}
