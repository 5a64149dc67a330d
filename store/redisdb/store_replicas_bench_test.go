package redisdb

import (
	"context"
	"fmt"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/storetest"
)

// BenchmarkReplicaAcks is what MICROBLOG_REDIS_REPLICA_ACKS=1 costs a
// write on a cluster of 3 masters with a replica each: a post made and
// answered at once (acks=0), and made, then waited for on every master
// (acks=1), side by side in one run: wall time, the Go side's CPU and the
// six nodes' CPU per post.
//
//	go test -run '^$' -bench BenchmarkReplicaAcks -benchtime 2000x ./store/redisdb/
func BenchmarkReplicaAcks(b *testing.B) {
	c := storetest.StartReplicatedCluster(b)
	ctx := context.Background()
	rdb := c.Client()
	nodes := append(append([]*storetest.Redis{}, c.Masters...), c.Replicas...)
	nodesCPU := func() float64 {
		var sum float64
		for _, n := range nodes {
			sum += benchRedisCPU(b, n.Client())
		}
		return sum
	}
	for _, acks := range []int{0, 1} {
		s := New(rdb, Options{BcryptCost: bcrypt.MinCost, ReplicaAcks: acks})
		u, _, err := s.Register(ctx, fmt.Sprint("author", acks), "password123")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint("acks=", acks), func(b *testing.B) {
			r0, a0 := nodesCPU(), benchAppCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Create(ctx, store.NewPost{Author: u.ID, Content: "hello"}); err != nil {
					b.Fatal(err)
				}
				if err := s.Replicated(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric((benchAppCPU()-a0)*1e6/float64(b.N), "app-cpu-µs/op")
			b.ReportMetric((nodesCPU()-r0)*1e6/float64(b.N), "redis-cpu-µs/op")
		})
	}
}
