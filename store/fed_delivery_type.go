package store

// Delivery is an activity to deliver: its id, who signs it (a local uid; 0
// is the instance actor), its JSON and the inboxes it goes to. The queue
// sends one request per distinct inbox.
//
// (Until fedcore's store/fed.go is merged; it declares the same type.)
type Delivery struct {
	ID      string
	Signer  int64
	Body    []byte
	Inboxes []string
}
