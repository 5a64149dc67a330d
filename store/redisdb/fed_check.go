package redisdb
import "microblog/store"
var _ store.Fed = (*Store)(nil)
