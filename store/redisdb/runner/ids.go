package runner

import "microblog/store/redisdb/schema"

// id and parseID write and read ids as the schema does.
func id(n int64) string      { return schema.ID(n) }
func parseID(s string) int64 { return schema.ParseID(s) }
