// Package mail sends the service's mail: the link that confirms a user's
// address and the link that resets a forgotten password, through the SMTP
// server of MICROBLOG_SMTP_URL, in the user's language. The mailer runner
// (store/redisdb/runner/mailer.go) calls Deliver for each queued job, off
// the request path.
//
// It uses github.com/wneessen/go-mail, a maintained mail library that
// both writes the message (MIME, RFC 2047 headers, quoted-printable UTF-8
// bodies, Message-ID and Date) and speaks SMTP (STARTTLS when the server
// offers it, and the AUTH mechanism it offers), where emersion/go-smtp is
// the protocol alone and would leave the message's encoding to us.
package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"microblog/store"
)

// Server is where mail goes: an SMTP server and who mail is from.
type Server struct {
	Host     string
	Port     int
	Username string
	Password string
	// ImplicitTLS: smtps://, TLS from the first byte (port 465); otherwise
	// STARTTLS when the server offers it.
	ImplicitTLS bool
	From        string
}

// ParseURL reads MICROBLOG_SMTP_URL: smtp://[user:pass@]host[:port]
// (port 587 by default; STARTTLS when offered) or smtps://… (port 465,
// TLS at once).
func ParseURL(raw string) (Server, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Server{}, errors.New("want smtp://user:pass@host:port")
	}
	var s Server
	switch u.Scheme {
	case "smtp":
		s.Port = 587
	case "smtps":
		s.Port, s.ImplicitTLS = 465, true
	default:
		return Server{}, errors.New("want smtp:// or smtps://")
	}
	if u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return Server{}, errors.New("want smtp://user:pass@host:port, with no path or query")
	}
	s.Host = u.Hostname()
	if p := u.Port(); p != "" {
		if s.Port, err = strconv.Atoi(p); err != nil || s.Port < 1 || s.Port > 65535 {
			return Server{}, errors.New("the port must be a number from 1 to 65535")
		}
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
	}
	return s, nil
}

// Options are a Mailer's settings beside its server.
type Options struct {
	// PublicURL is the origin the links point at (no trailing slash), as
	// known when a mail is written.
	PublicURL func() string
	// CAFile is a PEM file of the CAs trusted for the SMTP server's TLS
	// (MICROBLOG_SMTP_CA); empty: the system's.
	CAFile string
	// Tries is how many times a mail is tried before its job is left for
	// later (3); Wait the pause after the first failure, doubled after
	// each (1s).
	Tries int
	Wait  time.Duration
	// MaxAge drops a job queued longer ago than this (1h): a link asked
	// for so long ago is no use any more.
	MaxAge time.Duration
	// Now is the clock (time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// Mailer sends the store's mail jobs.
type Mailer struct {
	srv  Server
	st   store.MailDeliveries
	opt  Options
	tlsc *tls.Config
}

// New returns a mailer that sends through srv the links st issues.
func New(srv Server, st store.MailDeliveries, opt Options) (*Mailer, error) {
	if opt.Tries <= 0 {
		opt.Tries = 3
	}
	if opt.Wait <= 0 {
		opt.Wait = time.Second
	}
	if opt.MaxAge <= 0 {
		opt.MaxAge = time.Hour
	}
	if opt.PublicURL == nil {
		return nil, errors.New("mail: no public URL")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	tlsc := &tls.Config{ServerName: srv.Host, MinVersion: tls.VersionTLS12}
	if opt.CAFile != "" {
		pem, err := os.ReadFile(opt.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no PEM certificate in %s", opt.CAFile)
		}
		tlsc.RootCAs = pool
	}
	return &Mailer{srv: srv, st: st, opt: opt, tlsc: tlsc}, nil
}

// Deliver sends job's mail, if it has one: it returns an error only when
// the job should be tried again later.
func (m *Mailer) Deliver(ctx context.Context, job store.MailJob) error {
	if age := m.opt.Now().Sub(time.UnixMilli(job.At)); age > m.opt.MaxAge {
		m.opt.Logger.Warn("mail: dropped a job queued too long ago", "kind", job.Kind, "age", age.Round(time.Second))
		return nil
	}
	link, ok, err := m.st.IssueMailLink(ctx, job)
	if err != nil || !ok {
		return err
	}
	msg, err := m.message(link)
	if err != nil {
		m.opt.Logger.Warn("mail: cannot write the message", "kind", job.Kind, "err", err)
		return nil // no retry mends a bad address
	}
	wait := m.opt.Wait
	for try := 1; ; try++ {
		err = m.send(ctx, msg)
		if err == nil || try == m.opt.Tries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// send opens a connection to the SMTP server and sends msg over it.
func (m *Mailer) send(ctx context.Context, msg *gomail.Msg) error {
	opts := []gomail.Option{gomail.WithPort(m.srv.Port), gomail.WithTimeout(20 * time.Second),
		gomail.WithTLSConfig(m.tlsc)}
	if m.srv.ImplicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if m.srv.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(m.srv.Username), gomail.WithPassword(m.srv.Password))
	}
	c, err := gomail.NewClient(m.srv.Host, opts...)
	if err != nil {
		return err
	}
	return c.DialAndSendWithContext(ctx, msg)
}

// Link is the URL of a link's page.
func (m *Mailer) Link(link store.MailLink) string {
	return m.opt.PublicURL() + LinkPath(link.Kind, link.Token) + "?lang=" + Lang(link.Lang)
}

// LinkPrefix is where the pages that mailed links open are served
// (server/api): LinkPrefix + kind + "/" + token.
const LinkPrefix = "/auth/"

// LinkPath is the path of the page a mailed link opens: /auth/reset/<token>
// or /auth/confirm/<token>.
func LinkPath(kind, token string) string { return LinkPrefix + kind + "/" + token }

// Lang is "zh" for any Chinese, else "en": the languages mail is written in.
func Lang(tag string) string {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(tag)), "zh") {
		return "zh"
	}
	return "en"
}

// message writes the mail of link.
func (m *Mailer) message(link store.MailLink) (*gomail.Msg, error) {
	host := m.opt.PublicURL()
	if u, err := url.Parse(host); err == nil && u.Host != "" {
		host = u.Host
	}
	subject, body := Text(link, host, m.Link(link))
	msg := gomail.NewMsg(gomail.WithCharset(gomail.CharsetUTF8), gomail.WithEncoding(gomail.EncodingQP))
	if err := msg.From(m.srv.From); err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	if err := msg.To(link.To); err != nil {
		return nil, fmt.Errorf("to: %w", err)
	}
	msg.Subject(subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, body)
	return msg, nil
}

// Text is the subject and body of link's mail, in its language, for the
// service at host with the page at href.
func Text(link store.MailLink, host, href string) (subject, body string) {
	zh := Lang(link.Lang) == "zh"
	switch {
	case link.Kind == store.MailReset && zh:
		return "重置你在 " + host + " 的密码",
			"你好，" + link.Username + "：\n\n有人（希望是你）请求重置你在 " + host + " 的账号密码。打开下面的链接设置新密码：\n\n" +
				href + "\n\n此链接 1 小时内有效，只能使用一次。设置新密码后，你的账号会在所有设备上退出登录。\n如果不是你本人请求的，请忽略这封邮件，你的密码不会改变。\n"
	case link.Kind == store.MailReset:
		return "Reset your password on " + host,
			"Hello " + link.Username + ",\n\nSomeone (we hope you) asked to reset the password of your account on " + host + ". Open this link to choose a new one:\n\n" +
				href + "\n\nThe link works once, for 1 hour. Setting a new password signs your account out everywhere.\nIf it was not you, ignore this mail: your password stays as it is.\n"
	case zh:
		return "确认你在 " + host + " 的邮箱",
			"你好，" + link.Username + "：\n\n请打开下面的链接，确认这个邮箱属于你在 " + host + " 的账号：\n\n" +
				href + "\n\n此链接 24 小时内有效。确认后，忘记密码时重置链接会发到这个邮箱。\n如果你没有在 " + host + " 填写这个邮箱，请忽略这封邮件。\n"
	default:
		return "Confirm your email address on " + host,
			"Hello " + link.Username + ",\n\nOpen this link to confirm that this address belongs to your account on " + host + ":\n\n" +
				href + "\n\nThe link works for 24 hours. Once confirmed, a link to reset a forgotten password is mailed here.\nIf you did not give this address on " + host + ", ignore this mail.\n"
	}
}
