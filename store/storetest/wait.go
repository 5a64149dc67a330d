package storetest

import "time"

// HangWait bounds a test's wait for what must happen (a queue to drain, a
// consumer to leave, a replica to catch up): a deadline against a hang,
// never a speed check, far above what a busy 2-core machine under the race
// detector needs.
const HangWait = time.Minute
