package main

import "microblog/server/api"

// The native API's names the end-to-end tests use, from its package.
const (
	idempotencyHeader = api.IdempotencyHeader
	cookieName        = api.CookieName
	hostCookieName    = api.HostCookieName
	sessionCookieMark = api.SessionCookieMark
	uploadPath        = api.UploadPath
	oidcLoginPath     = api.OIDCLoginPath
	oidcCallbackPath  = api.OIDCCallbackPath
	oidcHandoverPath  = api.OIDCHandoverPath
	oidcStateTTL      = api.OIDCStateTTL
)

// The native API's answers the end-to-end tests read.
type (
	provider          = api.Provider
	providersResponse = api.Providers
	sessionResponse   = api.Session
)
