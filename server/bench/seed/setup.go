package main

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
	"microblog/store"
)

// account is a user the benchmark signed up, with its session token.
type account struct {
	ID    int64
	Name  string
	Token string
}

const benchPassword = "seedbench-password"

// setUpUsers signs up one author (with a display name) and its fans
// through the API, has each
// fan follow the author, and logs the author in: the post requests carry
// that session's token, the reads a fan's.
func setUpUsers(client *http.Client, base string, fans int) (author account, fanAccts []account, err error) {
	signUp := func(name string) (account, error) {
		var out struct {
			User struct {
				ID int64 `json:"id"`
			} `json:"user"`
			Token string `json:"token"`
		}
		err := spawn.Call(client, base, "POST", "/api/v1/users", "", map[string]string{"username": name, "password": benchPassword}, http.StatusCreated, &out)
		return account{ID: out.User.ID, Name: name, Token: out.Token}, err
	}
	if author, err = signUp("seedauthor"); err != nil {
		return author, nil, err
	}
	// The author shows a display name (昵称), as most do: every post read
	// carries it. A build without display names takes the bio and leaves
	// the unknown field, so builds from before compare alike.
	if err := spawn.Call(client, base, "PATCH", "/api/v1/me", author.Token, map[string]string{"bio": "", "display_name": "种子作者"}, http.StatusOK, nil); err != nil {
		return author, nil, err
	}
	for i := range fans {
		f, err := signUp("seedfan" + strconv.Itoa(i+1))
		if err != nil {
			return author, nil, err
		}
		if err := spawn.Call(client, base, "PUT", "/api/v1/users/"+author.Name+"/follow", f.Token, nil, http.StatusNoContent, nil); err != nil {
			return author, nil, err
		}
		fanAccts = append(fanAccts, f)
	}
	var login struct {
		Token string `json:"token"`
	}
	err = spawn.Call(client, base, "POST", "/api/v1/sessions", "", map[string]string{"username": author.Name, "password": benchPassword}, http.StatusOK, &login)
	author.Token = login.Token
	return author, fanAccts, err
}

// setUpBare writes what the bare handler needs: the author's fans in
// A:<uid>:fansID (uids 2 to fans+1; the author is 1), the last user id and
// the author's session, auth:<sha256-hex of its token> holding its uid, as
// the contract keeps it, and the author's user hash, which a home read reads.
func setUpBare(ctx context.Context, rdb *redis.Client, fans int) (author account, fanAccts []account, err error) {
	author = account{ID: 1, Name: "seedauthor", Token: "1.seedbench-bare-session"}
	now := float64(time.Now().UnixMilli())
	zs := make([]redis.Z, fans)
	for i := range fans {
		f := account{ID: int64(i + 2), Name: "seedfan" + strconv.Itoa(i+1)}
		fanAccts = append(fanAccts, f)
		zs[i] = redis.Z{Score: now, Member: f.ID}
	}
	_, err = rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.ZAdd(ctx, "A:1:fansID", zs...)
		pl.Set(ctx, "global:userid", fans+1, 0)
		pl.HSet(ctx, "user:userid:1", "username", author.Name, "created", int64(now), "display_name", "", "avatar", "")
		pl.Set(ctx, "auth:"+store.TokenHash(author.Token), author.ID, 24*time.Hour)
		return nil
	})
	return author, fanAccts, err
}
