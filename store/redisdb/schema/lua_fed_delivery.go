package schema

import _ "embed"

// The scripts of the delivery queue of federation (keys_fed_delivery.go).
var (
	//go:embed lua/fed_enqueue.lua
	fedEnqueueSrc string
	FedEnqueue    = newScript(fedEnqueueSrc)

	//go:embed lua/fed_done.lua
	fedDoneSrc string
	FedDone    = newScript(fedDoneSrc)

	//go:embed lua/fed_retry.lua
	fedRetrySrc string
	FedRetry    = newScript(fedRetrySrc)

	//go:embed lua/fed_due.lua
	fedDueSrc string
	FedDue    = newScript(fedDueSrc)
)

var (
	//go:embed lua/fed_enqueue_more.lua
	fedEnqueueMoreSrc string
	FedEnqueueMore    = newScript(fedEnqueueMoreSrc)
)
