package api

import "testing"

// parallel runs t beside the package's other tests: none of them needs a
// Redis, so none needs the server package's care for a shared cluster.
func parallel(t *testing.T) { t.Parallel() }
