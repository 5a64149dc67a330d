package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"microblog/store"
)

// fromAddr is an HTTP client whose connections come from the local address
// ip (127.0.0.2 … 127.0.0.254 are all loopback on Linux), so that the server
// sees a different client address for each.
func fromAddr(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: hangWait}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
}

// callFrom is ts.call through client c, returning the Retry-After header too.
func (ts *testServer) callFrom(t testing.TB, c *http.Client, method, path, token string, body any) (int, []byte, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		r = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, ts.URL+path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header.Get("Retry-After")
}

// signup registers name with password and returns the status and body.
func (ts *testServer) signup(t testing.TB, name, password string) (int, []byte) {
	t.Helper()
	return ts.call(t, "POST", "/api/v1/users", "", map[string]string{"username": name, "password": password})
}

// login logs name in with password and returns the status and body.
func (ts *testServer) login(t testing.TB, name, password string) (int, []byte) {
	t.Helper()
	return ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": name, "password": password})
}

// TestLookAlikeNames: names that look like an existing one (Cyrillic а,
// fullwidth letters, a fullwidth digit) are taken; invisible names and
// mathematical letters are refused; a fullwidth name logs in as the plain
// one; other scripts keep working.
func TestLookAlikeNames(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	_, alice := ts.register(t, "alice")
	ts.register(t, "bob1")
	ts.register(t, "paypal")
	for _, name := range []string{"аlice", "ａｌｉｃｅ", "ALICE", "bob１", "bobl", "pаypal", "рaураl"} {
		if status, body := ts.signup(t, name, testPassword); status != 409 || errorCode(t, body) != "username_taken" {
			t.Errorf("sign-up %q (%U): %d %s, want 409 username_taken", name, []rune(name), status, body)
		}
	}
	for _, name := range []string{"\u3164\u3164\u3164", "\u115f\u115f", "ab\u3164", "𝐚𝐥𝐢𝐜𝐞", "a\u200bb"} {
		if status, body := ts.signup(t, name, testPassword); status != 400 || errorCode(t, body) != "invalid_username" {
			t.Errorf("sign-up %q (%U): %d %s, want 400 invalid_username", name, []rune(name), status, body)
		}
	}
	status, body := ts.login(t, "ａｌｉｃｅ", testPassword)
	var out struct{ User store.User }
	if mustDecode(t, body, &out); status != 200 || out.User.ID != alice || out.User.Username != "alice" {
		t.Fatalf("log in as ａｌｉｃｅ: %d %s, want alice (%d)", status, body, alice)
	}
	if status, _ := ts.call(t, "GET", "/api/v1/users/ａｌｉｃｅ", "", nil); status != 200 {
		t.Errorf("profile of ａｌｉｃｅ: %d, want alice's", status)
	}
	for _, name := range []string{"小明", "微博用户", "Ελένη", "Иван", "Zoë", "ivan_2"} {
		if status, body := ts.signup(t, name, testPassword); status != 201 {
			t.Errorf("sign-up %q: %d %s", name, status, body)
		}
	}
	if status, body := ts.signup(t, "Іvan_2", testPassword); status != 409 {
		t.Errorf("Cyrillic І spoof of ivan_2: %d %s, want 409", status, body)
	}
	if status, body := ts.signup(t, "ＺＯË", testPassword); status != 409 {
		t.Errorf("fullwidth ZOË: %d %s, want 409", status, body)
	}
}

// TestPasswordNFCAndNFD: a password typed with a composed é or with e and a
// combining accent is one password.
func TestPasswordNFCAndNFD(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	nfc, nfd := "café au lait", norm.NFD.String("café au lait")
	if status, body := ts.signup(t, "nfc_user", nfc); status != 201 {
		t.Fatalf("sign-up: %d %s", status, body)
	}
	if status, body := ts.signup(t, "nfd_user", nfd); status != 201 {
		t.Fatalf("sign-up: %d %s", status, body)
	}
	for _, c := range [][2]string{{"nfc_user", nfd}, {"nfc_user", nfc}, {"nfd_user", nfc}, {"nfd_user", nfd}} {
		if status, body := ts.login(t, c[0], c[1]); status != 200 {
			t.Errorf("log in %s with %+q: %d %s", c[0], c[1], status, body)
		}
	}
}

// TestLongPasswordPreHashIsNoPassword: a password over bcrypt's 72 bytes logs
// in, whole, and the SHA-256 pre-hash it used to be reduced to does not.
func TestLongPasswordPreHashIsNoPassword(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	long := strings.Repeat("long password ", 7) // 98 bytes
	if status, body := ts.signup(t, "longpw", long); status != 201 {
		t.Fatalf("sign-up: %d %s", status, body)
	}
	if status, body := ts.login(t, "longpw", long); status != 200 {
		t.Fatalf("log in with the password: %d %s", status, body)
	}
	sum := sha256.Sum256([]byte(long))
	pre := base64.StdEncoding.EncodeToString(sum[:])
	if status, body := ts.login(t, "longpw", pre); status != 401 {
		t.Fatalf("log in with the pre-hash %s: %d %s, want 401", pre, status, body)
	}
	if status, _ := ts.login(t, "longpw", long[:72]); status != 401 {
		t.Fatalf("log in with the first 72 bytes: %d, want 401", status)
	}
}

// TestLoginBackoffPerAccount: 120 wrong passwords from 6 addresses make the
// account wait (429 with Retry-After) for an unknown address, even with the
// right password; the address the user logged in from before still gets in,
// the wait stays short, and a success resets it.
func TestLoginBackoffPerAccount(t *testing.T) {
	parallel(t)
	// Generous per-address limits, so that only the per-account one acts.
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=login=1000/1m,login_account=10/15m")
	home := fromAddr("127.0.0.9")
	if status, body, _ := ts.callFrom(t, home, "POST", "/api/v1/users", "", map[string]string{"username": "victim", "password": testPassword}); status != 201 {
		t.Fatalf("sign-up: %d %s", status, body)
	}
	bad := map[string]string{"username": "victim", "password": "not the password"}
	good := map[string]string{"username": "victim", "password": testPassword}
	if status, body, _ := ts.callFrom(t, home, "POST", "/api/v1/sessions", "", good); status != 200 {
		t.Fatalf("log in at home: %d %s", status, body)
	}
	var attackers []*http.Client
	for i := 2; i <= 7; i++ {
		attackers = append(attackers, fromAddr(fmt.Sprintf("127.0.0.%d", i)))
	}
	refused := 0
	for i := range 120 {
		status, body, _ := ts.callFrom(t, attackers[i%6], "POST", "/api/v1/sessions", "", bad)
		switch status {
		case 401:
		case 429:
			refused++
		default:
			t.Fatalf("attempt %d: %d %s", i, status, body)
		}
	}
	if refused == 0 {
		t.Fatal("120 wrong passwords from 6 addresses were all checked; want the account to back off")
	}
	// Make sure the account-wide wait has at least a second to run: a
	// guesser from an address never used before (so no per-address wait)
	// is told to wait 2 s or more. Then the right password from a new
	// address waits too.
	locked := false
	for i := 0; i < 60 && !locked; i++ {
		status, _, retry := ts.callFrom(t, fromAddr(fmt.Sprintf("127.0.0.%d", 20+i)), "POST", "/api/v1/sessions", "", bad)
		wait, _ := strconv.Atoi(retry)
		locked = status == 429 && wait >= 2
		if status == 429 && !locked {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if !locked {
		t.Fatal("no account-wide back-off of 2 s or more after 120 wrong passwords")
	}
	status, body, retry := ts.callFrom(t, fromAddr("127.0.0.8"), "POST", "/api/v1/sessions", "", good)
	if status != 429 || errorCode(t, body) != "rate_limited" {
		t.Fatalf("right password from a new address during the back-off: %d %s, want 429", status, body)
	}
	wait, err := strconv.Atoi(retry)
	if err != nil || wait < 1 || wait > 300 {
		t.Fatalf("Retry-After %q, want 1 to 300 seconds", retry)
	}
	// The user's own address is not locked out by others' failures.
	if status, body, _ := ts.callFrom(t, home, "POST", "/api/v1/sessions", "", good); status != 200 {
		t.Fatalf("right password from the user's usual address: %d %s", status, body)
	}
	// That success reset the count: a new address gets in at once.
	if status, body, _ := ts.callFrom(t, fromAddr("127.0.0.10"), "POST", "/api/v1/sessions", "", good); status != 200 {
		t.Fatalf("right password from a new address after the reset: %d %s", status, body)
	}
}

// TestLoginBackoffEndsAfterTheWait: after the wait the right password works
// from any address; the wait is capped; a wrong name backs off alike, so the
// back-off tells nobody which names exist.
func TestLoginBackoffEndsAfterTheWait(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=login=1000/1m,login_account=3/15m")
	ts.register(t, "carol")
	c := fromAddr("127.0.0.11")
	try := func(name, pw string) (int, string) {
		status, _, retry := ts.callFrom(t, c, "POST", "/api/v1/sessions", "", map[string]string{"username": name, "password": pw})
		return status, retry
	}
	// The first wait ends a second after the third failure, and a busy
	// machine may take that long for a handful of logins: carol's right
	// password comes right after her own tries, not after nobody_here's.
	var retry string
	for _, name := range []string{"carol", "nobody_here"} {
		var statuses []int
		for range 4 {
			s, _ := try(name, "wrong password")
			statuses = append(statuses, s)
		}
		if name == "carol" {
			var s int
			if s, retry = try("carol", testPassword); s != 429 {
				t.Fatalf("right password during the back-off: %d", s)
			}
		}
		if fmt.Sprint(statuses) != "[401 401 401 429]" {
			t.Errorf("%s: statuses %v, want [401 401 401 429]", name, statuses)
		}
	}
	wait, _ := strconv.Atoi(retry)
	time.Sleep(time.Duration(wait) * time.Second)
	if s, _ := try("carol", testPassword); s != 200 {
		t.Fatalf("right password after Retry-After: %d", s)
	}
	if s, _ := try("carol", "wrong password"); s != 401 {
		t.Fatalf("a wrong password after a success: %d, want 401 (the count starts again)", s)
	}
}

// TestFollowLimitAndCoalescing: follows are limited per user (429 with
// Retry-After), and 30 follow/unfollow cycles tell the star once.
func TestFollowLimitAndCoalescing(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=follow=5/1h") // limits count in fixed windows: a minute's could end mid-test
	fanTok, _ := ts.register(t, "fan")
	for i := range 6 {
		ts.register(t, fmt.Sprintf("star%d", i))
	}
	for i := range 5 {
		ts.follow(t, fanTok, fmt.Sprintf("star%d", i), true)
	}
	resp := ts.do(t, "PUT", "/api/v1/users/star5/follow", fanTok, nil, nil)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth follow in an hour: %d (Retry-After %q), want 429", resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	ts2 := newTestServer(t)
	starTok, _ := ts2.register(t, "star")
	fan2, _ := ts2.register(t, "fan")
	ws := ts2.dialWS(t, starTok, "")
	ws.ready(t)
	for range 30 {
		ts2.follow(t, fan2, "star", true)
		ts2.follow(t, fan2, "star", false)
	}
	ts2.follow(t, fan2, "star", true)
	follows := 0
	deadline := time.After(time.Second)
	for done := false; !done; {
		select {
		case f, ok := <-ws.Frames():
			if !ok {
				t.Fatal("live feed closed")
			}
			if f.Event == store.EventFollow {
				follows++
			}
			if f.Event == store.EventNotification && strings.Contains(string(f.Data), `"follow"`) {
				follows++
			}
		case <-deadline:
			done = true
		}
	}
	if follows > 2 { // one follow event and its notification
		t.Fatalf("31 follows in a row sent %d follow events and notifications, want 2", follows)
	}
	if n := len(ts2.notifications(t, starTok)); n > 1 {
		t.Fatalf("%d notifications, want at most 1", n)
	}
	n, _ := ts2.rdb().ZCard(context.Background(), keysOf(ts2.rdb()).Fans(1)).Result()
	if n != 1 {
		t.Fatalf("star has %d fans, want 1", n)
	}
}
