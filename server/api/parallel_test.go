package api

import "testing"

// parallel runs t beside the package's other tests: none of them needs a
// Redis.
func parallel(t *testing.T) { t.Parallel() }
