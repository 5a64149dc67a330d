package schema

import _ "embed"

// The script of email addresses and password resets.
var (
	//go:embed lua/password_set.lua
	passwordSetSrc string
	PasswordSet    = newScript(passwordSetSrc)
)
