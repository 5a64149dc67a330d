package mastodon

// oauthRoutes registers the routes of this area.
func (a *API) oauthRoutes(r *router) {}
