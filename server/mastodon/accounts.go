package mastodon

// accountRoutes registers the routes of this area.
func (a *API) accountRoutes(r *router) {}
