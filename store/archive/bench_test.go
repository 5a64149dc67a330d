package archive_test

import (
	"context"
	"strings"
	"testing"

	"microblog/store"
)

// BenchmarkArchiveSave saves batches of 500 new posts, the size of a busy
// archiver's batch, and reports rows/s on each engine (the MariaDB one a
// throwaway server with default durability: a commit is flushed). Reproduce:
//
//	go test -run '^$' -bench ArchiveSave ./store/archive
func BenchmarkArchiveSave(b *testing.B) {
	const batch = 500
	text := strings.Repeat("今天天气很好 good weather 🌞 ", 5)
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			db := open(b, e.dsn(b))
			ctx := context.Background()
			put := make([]store.Archived, batch)
			id := int64(0)
			for b.Loop() {
				for i := range put {
					id++
					put[i] = post(id, 1+id%1000, text)
					put[i].Tags = `["天气"]`
				}
				if err := db.Save(ctx, put, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(id)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
