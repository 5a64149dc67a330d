package mastodon

// miscRoutes registers the routes of this area.
func (a *API) miscRoutes(r *router) {}
