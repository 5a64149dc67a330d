package mastodon

// statusRoutes registers the routes of this area.
func (a *API) statusRoutes(r *router) {}
