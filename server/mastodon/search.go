package mastodon

// searchRoutes registers the routes of this area.
func (a *API) searchRoutes(r *router) {}
