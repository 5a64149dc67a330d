package mastodon

// instanceRoutes registers the routes of this area.
func (a *API) instanceRoutes(r *router) {}
