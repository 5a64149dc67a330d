package mastodon

// conversationRoutes registers the routes of this area.
func (a *API) conversationRoutes(r *router) {}
