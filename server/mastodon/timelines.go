package mastodon

// timelineRoutes registers the routes of this area.
func (a *API) timelineRoutes(r *router) {}
