package main

import "net/http"

// requestStack is how much goroutine stack a request may use before its
// handler runs without growing it: the deepest paths (a post: net/http,
// Echo's dozen middlewares, the handler, the store, go-redis's pipeline or
// encoding/json) take 10–11 KiB, more than the 8 KiB a new goroutine
// starts with here (the runtime sizes it to the average stack it scans).
const requestStack = 12 << 10

// growStack makes h's requests grow their goroutine's stack, where it must
// grow, before the handler runs rather than deep inside it. A stack grows
// by copying itself whole and mending every frame's pointers, at a cost
// that goes with its depth: grown half way through a post, inside the
// store's claim, that was 5–8% of the server's CPU under the seed
// benchmark (a new connection, so a new goroutine, for each post); grown
// here, a few frames deep, it is a small copy. A stack big enough already
// costs one comparison; one that the garbage collector shrinks again
// grows here again.
func growStack(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reserveStack()
		h.ServeHTTP(w, r)
	})
}

// reserveStack has a frame of requestStack bytes: calling it grows the
// stack until that fits above the caller.
//
//go:noinline
func reserveStack() {
	var frame [requestStack]byte
	touchStack(frame[:])
}

//go:noinline
func touchStack(b []byte) { b[0] = 1 }
