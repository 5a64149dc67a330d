package mastodon

// notificationRoutes registers the routes of this area.
func (a *API) notificationRoutes(r *router) {}
