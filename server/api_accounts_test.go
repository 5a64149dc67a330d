package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/storetest"
)

// errorCode reads the contract's error body.
func errorCode(t testing.TB, body []byte) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	mustDecode(t, body, &e)
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("error body without code or message: %s", body)
	}
	return e.Error.Code
}

func TestRegisterLoginTwoDevicesLogout(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	rdb := ts.rdb()
	k := keysOf(rdb)
	ctx := context.Background()

	first, uid := ts.register(t, "Alice")
	if status, body := ts.call(t, "POST", "/api/v1/users", "", map[string]string{"username": "aLiCe", "password": testPassword}); status != 409 || errorCode(t, body) != "username_taken" {
		t.Fatalf("same name in other case: %d %s", status, body)
	}

	// Log in on two devices.
	login := func() string {
		status, body := ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "alice", "password": testPassword})
		if status != 200 {
			t.Fatalf("login: %d %s", status, body)
		}
		var out struct {
			User  store.User
			Token string
		}
		mustDecode(t, body, &out)
		if out.User.ID != uid || out.User.Username != "Alice" {
			t.Fatalf("login user = %+v", out.User)
		}
		return out.Token
	}
	phone, laptop := login(), login()
	for _, tok := range []string{first, phone, laptop} {
		if status, body := ts.call(t, "GET", "/api/v1/me", tok, nil); status != 200 {
			t.Fatalf("me: %d %s", status, body)
		}
	}

	// Redis keeps the token only as its SHA-256, in both places, and the password only as a bcrypt hash.
	h := store.TokenHash(phone)
	if got, _ := rdb.Get(ctx, k.Session(h)).Result(); got != fmt.Sprint(uid) {
		t.Errorf("auth:<hash> = %q, want uid %d", got, uid)
	}
	if ttl := rdb.TTL(ctx, k.Session(h)).Val(); ttl <= 0 {
		t.Errorf("session without TTL: %v", ttl)
	}
	if ok, _ := rdb.SIsMember(ctx, k.UserSessions(uid), h).Result(); !ok {
		t.Errorf("session hash missing from the user's session set")
	}
	if pw := rdb.HGet(ctx, k.User(uid), "password").Val(); !strings.HasPrefix(pw, "$2") {
		t.Errorf("password stored as %q, want a bcrypt hash", pw)
	}
	assertNotStored(t, ts, phone, testPassword)

	// Each check of a session with Redis slides its expiry back to the full
	// TTL; a process checks a session at most every 30 s and remembers it
	// meanwhile (its first use after logging in is a check).
	tablet := login()
	th := store.TokenHash(tablet)
	rdb.PExpire(ctx, k.Session(th), time.Minute) // far below the full TTL; a busy machine uses it well before
	ts.call(t, "GET", "/api/v1/me", tablet, nil)
	if ttl := rdb.TTL(ctx, k.Session(th)).Val(); ttl < 24*time.Hour {
		t.Errorf("session TTL after use = %v, want it slid back to the full TTL", ttl)
	}

	// Logging out the phone kills its token at once, and only its token.
	if status, body := ts.call(t, "DELETE", "/api/v1/sessions/current", phone, nil); status != 204 {
		t.Fatalf("logout: %d %s", status, body)
	}
	if status, body := ts.call(t, "GET", "/api/v1/me", phone, nil); status != 401 || errorCode(t, body) != "unauthorized" {
		t.Fatalf("logged-out token: %d %s", status, body)
	}
	if status, _ := ts.call(t, "GET", "/api/v1/me", laptop, nil); status != 200 {
		t.Fatalf("other device logged out too: %d", status)
	}
	if n := rdb.Exists(ctx, k.Session(h)).Val(); n != 0 {
		t.Errorf("auth key of the logged-out token still exists")
	}

	// A token is valid only while both keys agree (as a check with Redis
	// finds them: the ways a session ends tell every process at once).
	desk := login()
	rdb.SRem(ctx, k.UserSessions(uid), store.TokenHash(desk))
	if status, _ := ts.call(t, "GET", "/api/v1/me", desk, nil); status != 401 {
		t.Fatalf("token missing from the user's set still works: %d", status)
	}

	// Wrong password and unknown user look the same.
	for _, c := range []map[string]string{
		{"username": "alice", "password": "wrong password"},
		{"username": "nobody", "password": testPassword},
	} {
		if status, body := ts.call(t, "POST", "/api/v1/sessions", "", c); status != 401 || errorCode(t, body) != "invalid_credentials" {
			t.Errorf("login %v: %d %s", c, status, body)
		}
	}
}

// assertNotStored fails if any Redis key or value holds one of the secrets in the clear.
func assertNotStored(t *testing.T, ts *testServer, secrets ...string) {
	t.Helper()
	ctx := context.Background()
	rdb := ts.rdb()
	for _, key := range storetest.Keys(t, rdb, "*") {
		var vals []string
		switch rdb.Type(ctx, key).Val() {
		case "string":
			vals = []string{rdb.Get(ctx, key).Val()}
		case "hash":
			for k, v := range rdb.HGetAll(ctx, key).Val() {
				vals = append(vals, k, v)
			}
		case "set":
			vals = rdb.SMembers(ctx, key).Val()
		}
		for _, s := range secrets {
			for _, v := range append(vals, key) {
				if strings.Contains(v, s) {
					t.Errorf("secret %q stored in the clear in %s", s, key)
				}
			}
		}
	}
}

func TestConcurrentRegistrationOneWins(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	const n = 16
	var wg sync.WaitGroup
	statuses := make(chan int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "Racer"
			if i%2 == 1 {
				name = "racer"
			}
			status, _ := ts.call(t, "POST", "/api/v1/users", "", map[string]string{"username": name, "password": testPassword})
			statuses <- status
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[409] != n-1 {
		t.Fatalf("statuses = %v, want one 201 and %d 409", count, n-1)
	}
	k := keysOf(ts.rdb())
	uid, _ := ts.rdb().Get(context.Background(), k.UsernameIndex("racer")).Int64()
	if name := ts.rdb().HGet(context.Background(), k.User(uid), "username").Val(); !strings.EqualFold(name, "racer") {
		t.Fatalf("winner's hash names %q", name)
	}
}

func TestUnicodeNamesAndProfile(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, uid := ts.register(t, "微博用户")
	status, body := ts.call(t, "PATCH", "/api/v1/me", tok, map[string]string{"bio": "写代码的人 ✍️"})
	if status != 200 {
		t.Fatalf("patch me: %d %s", status, body)
	}
	var u store.User
	status, body = ts.call(t, "GET", "/api/v1/users/微博用户", "", nil)
	mustDecode(t, body, &u)
	if status != 200 || u.ID != uid || u.Bio != "写代码的人 ✍️" || u.Following != nil {
		t.Fatalf("profile: %d %+v", status, u)
	}
	if !strings.Contains(string(body), `"following":null`) || !strings.Contains(string(body), `"created_at":"20`) {
		t.Fatalf("User JSON = %s", body)
	}
	if status, body := ts.call(t, "GET", "/api/v1/users/nobody_here", "", nil); status != 404 || errorCode(t, body) != "user_not_found" {
		t.Fatalf("unknown user: %d %s", status, body)
	}
}

func TestCookieSessionsAndCrossOriginWrites(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	resp := ts.do(t, "POST", "/api/v1/users", "", map[string]string{"username": "carol", "password": testPassword}, nil)
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "auth" {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("session cookie = %+v", cookie)
	}
	post := func(origin string) int {
		h := http.Header{"Cookie": {"auth=" + cookie.Value}}
		if origin != "" {
			h.Set("Origin", origin)
		}
		r := ts.do(t, "POST", "/api/v1/posts", "", map[string]string{"content": "via cookie"}, h)
		r.Body.Close()
		return r.StatusCode
	}
	if s := post(ts.URL); s != 201 {
		t.Fatalf("same-origin cookie write: %d", s)
	}
	if s := post(""); s != 201 {
		t.Fatalf("cookie write without Origin (not a browser): %d", s)
	}
	if s := post("https://evil.example"); s != 403 {
		t.Fatalf("cross-origin cookie write: %d, want 403", s)
	}
	if n := ts.rdb().Get(context.Background(), keysOf(ts.rdb()).LastPostID()).Val(); n != "2" {
		t.Fatalf("global:postid = %s, want 2 (the refused write wrote nothing)", n)
	}
}
