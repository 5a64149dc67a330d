package api

import (
	_ "embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/server/mail"
	"microblog/store"
)

// The pages the mailed links open, served by the server itself as plain
// HTML forms, so that a link works in any browser, without JavaScript, and
// whichever front end the user reads mail beside:
//
//	GET  /auth/reset/:token    the form for a new password (or why the link is void)
//	POST /auth/reset/:token    sets it (form field "password")
//	GET  /auth/confirm/:token  a button that confirms the address
//	POST /auth/confirm/:token  confirms it
//
// A GET changes nothing, so a mail scanner that follows links uses none up.
// Each page is in the link's ?lang= (the language the mail was written
// in), else the browser's.

//go:embed mail_pages.html
var mailPagesHTML string

var mailPages = template.Must(template.New("mail").Parse(mailPagesHTML))

// pageText is the words of the pages in one language.
type pageText struct {
	ResetTitle, ResetText, NewPassword, PasswordHint, SetPassword, ResetDone     string
	ConfirmTitle, ConfirmText, Confirm, ConfirmDone, Taken, Invalid, Unavailable string
	LogIn, LogInMobile, BadPassword, LinkTitle, Failed                           string
}

var pageTexts = map[string]pageText{
	"en": {
		ResetTitle: "Choose a new password", ResetText: "Choose a new password for %s.",
		NewPassword: "New password", PasswordHint: "8 to 128 characters.", SetPassword: "Set password",
		ResetDone:    "Your password is changed, and your account is signed out everywhere. Log in with the new password.",
		ConfirmTitle: "Confirm your email address", ConfirmText: "Confirm that %s is the address of your account %s.",
		Confirm: "Confirm address", ConfirmDone: "Your email address is confirmed. If you forget your password, a link to reset it will be mailed there.",
		Taken:       "Another account has confirmed this address already.",
		Invalid:     "This link is not valid: it was used already, has expired, or was replaced by a newer one. Ask for a new one.",
		Unavailable: "This server sends no mail.",
		LogIn:       "Log in", LogInMobile: "Log in on the mobile app",
		BadPassword: "The password must be 8 to 128 characters, without control characters.",
		LinkTitle:   "Link not valid", Failed: "Something went wrong. Try again in a moment.",
	},
	"zh": {
		ResetTitle: "设置新密码", ResetText: "为 %s 设置新密码。",
		NewPassword: "新密码", PasswordHint: "8 到 128 个字符。", SetPassword: "设置密码",
		ResetDone:    "密码已更改，你的账号已在所有设备上退出登录。请用新密码登录。",
		ConfirmTitle: "确认你的邮箱", ConfirmText: "确认 %s 是你的账号 %s 的邮箱。",
		Confirm: "确认邮箱", ConfirmDone: "你的邮箱已确认。忘记密码时，重置链接会发到这个邮箱。",
		Taken:       "另一个账号已经确认了这个邮箱。",
		Invalid:     "此链接无效：它已被使用、已过期，或已被更新的链接取代。请重新申请。",
		Unavailable: "此服务器不发送邮件。",
		LogIn:       "登录", LogInMobile: "在手机版登录",
		BadPassword: "密码须为 8 到 128 个字符，且不含控制字符。",
		LinkTitle:   "链接无效", Failed: "出了点问题，请稍后再试。",
	},
}

// pageData is what mail_pages.html shows.
type pageData struct {
	Lang, Title, Error, Done string
	Text                     template.HTML // escaped, with what users wrote marked (withOwn)
	Form, Action, Username   string
	Links                    bool
	T                        pageText
}

// mailPages registers the pages of the mailed links.
func (a *API) mailPages(e *echo.Echo) {
	on := a.d.Mail
	resetPath := mail.LinkPrefix + store.MailReset + "/:token"
	confirmPath := mail.LinkPrefix + store.MailConfirm + "/:token"
	e.GET(resetPath, a.resetPage(on, false))
	e.POST(resetPath, a.resetPage(on, true))
	e.GET(confirmPath, a.confirmPage(on, false))
	e.POST(confirmPath, a.confirmPage(on, true))
}

// pageLang is the page's language: the link's ?lang=, else the browser's.
func pageLang(c echo.Context) string {
	if l := c.QueryParam("lang"); l != "" {
		return mail.Lang(l)
	}
	return mail.Lang(c.Request().Header.Get("Accept-Language"))
}

// renderPage answers a page with status.
func renderPage(c echo.Context, status int, d pageData) error {
	h := c.Response().Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The server's Referrer-Policy, same-origin, keeps the token (in the
	// URL) from other sites; no-referrer would make the form's Origin
	// "null", which the check of cookie writes refuses.
	c.Response().WriteHeader(status)
	return mailPages.ExecuteTemplate(c.Response(), "page", d)
}

// failedPage is the page of a refused link or a failure.
func failedPage(c echo.Context, d pageData, err error) error {
	d.Form, d.Text = "", ""
	switch {
	case errors.Is(err, store.ErrUnavailable) && !errors.Is(err, store.ErrMailUnavailable):
		d.Error = d.T.Failed
		return renderPage(c, http.StatusServiceUnavailable, d)
	case errors.Is(err, store.ErrMailUnavailable):
		d.Title, d.Error = d.T.LinkTitle, d.T.Unavailable
		return renderPage(c, http.StatusServiceUnavailable, d)
	case errors.Is(err, store.ErrEmailTaken):
		d.Error = d.T.Taken
		return renderPage(c, http.StatusConflict, d)
	case errors.Is(err, store.ErrInvalidToken):
		d.Title, d.Error = d.T.LinkTitle, d.T.Invalid
		return renderPage(c, http.StatusBadRequest, d)
	}
	return err // the error handler logs it and answers 500
}

// withOwn is format's %s filled with values, each escaped and marked
// translate="no" (a name, an address: a browser's translator leaves them
// alone), the rest escaped.
func withOwn(format string, values ...string) template.HTML {
	parts := strings.Split(format, "%s")
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(template.HTMLEscapeString(p))
		if i < len(values) && i < len(parts)-1 {
			b.WriteString(`<span translate="no">` + template.HTMLEscapeString(values[i]) + `</span>`)
		}
	}
	return template.HTML(b.String())
}

// action is the form's own URL, its language kept.
func action(c echo.Context, lang string) string {
	return c.Request().URL.Path + "?lang=" + url.QueryEscape(lang)
}

// resetPage shows the reset form (post false) or sets the password.
func (a *API) resetPage(on, post bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		lang := pageLang(c)
		tx := pageTexts[lang]
		d := pageData{Lang: lang, T: tx, Title: tx.ResetTitle, Form: store.MailReset, Action: action(c, lang)}
		if !on {
			return failedPage(c, d, store.ErrMailUnavailable)
		}
		ctx := c.Request().Context()
		token := c.Param("token")
		link, err := a.st.CheckMailToken(ctx, store.MailReset, token)
		if err != nil {
			return failedPage(c, d, err)
		}
		d.Username, d.Text = link.Username, withOwn(tx.ResetText, link.Username)
		if !post {
			return renderPage(c, http.StatusOK, d)
		}
		err = a.st.ResetPassword(ctx, token, c.FormValue("password"))
		var se *store.Error
		if errors.As(err, &se) && se.Code == store.CodeInvalidPassword {
			d.Error = tx.BadPassword
			return renderPage(c, http.StatusBadRequest, d)
		}
		if err != nil {
			return failedPage(c, d, err)
		}
		d.Form, d.Text, d.Done, d.Links = "", "", tx.ResetDone, true
		return renderPage(c, http.StatusOK, d)
	}
}

// confirmPage shows the confirmation button (post false) or confirms.
func (a *API) confirmPage(on, post bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		lang := pageLang(c)
		tx := pageTexts[lang]
		d := pageData{Lang: lang, T: tx, Title: tx.ConfirmTitle, Form: store.MailConfirm, Action: action(c, lang)}
		if !on {
			return failedPage(c, d, store.ErrMailUnavailable)
		}
		ctx := c.Request().Context()
		token := c.Param("token")
		link, err := a.st.CheckMailToken(ctx, store.MailConfirm, token)
		if err != nil {
			return failedPage(c, d, err)
		}
		d.Text = withOwn(tx.ConfirmText, link.To, link.Username)
		if !post {
			return renderPage(c, http.StatusOK, d)
		}
		if _, err := a.st.ConfirmEmail(ctx, token); err != nil {
			return failedPage(c, d, err)
		}
		d.Form, d.Text, d.Done = "", "", tx.ConfirmDone
		return renderPage(c, http.StatusOK, d)
	}
}
