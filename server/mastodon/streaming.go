package mastodon

import (
	"github.com/labstack/echo/v4"

	"microblog/hub"
)

// StreamingRoutes registers the streaming API once the live hub is up.
func (a *API) StreamingRoutes(e *echo.Echo, h *hub.Hub) {
	a.hub = h
}
