package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
	"microblog/store/archive/archivetest"
	"microblog/store/storetest"
)

// backends are what the run starts: a Redis Cluster of 3 masters with a
// replica each, a MariaDB archive, and the server processes that share
// them, on free loopback ports in temporary folders.
type backends struct {
	l       *launcher
	cluster *storetest.Cluster
	rdb     *redis.ClusterClient // the checker's own client
	maria   *archivetest.Server
	archive string  // the servers' MICROBLOG_ARCHIVE
	db      *sql.DB // the archive, read by the checker
	bin     string
	env     []string
	dir     string // the servers' media folder's parent
	out     string // where their logs go

	mu      sync.Mutex
	procs   []*spawn.Proc // running, in the rotation
	started int
	gone    []*spawn.Proc // killed, kept for their logs
}

// startBackends starts the cluster, the archive and cfg.procs servers.
func startBackends(cfg config) (b *backends, err error) {
	b = &backends{l: &launcher{keep: cfg.keep}, bin: cfg.server, out: cfg.out}
	defer func() {
		if err != nil {
			b.stop()
		}
	}()
	if err := try(func() { b.cluster = storetest.StartReplicatedCluster(b.l) }); err != nil {
		return nil, fmt.Errorf("start the Redis Cluster: %w", err)
	}
	b.rdb = b.cluster.Client()
	if err := try(func() {
		b.maria = archivetest.StartMariaDB(b.l)
		b.archive = b.maria.NewDatabase(b.l)
	}); err != nil {
		return nil, fmt.Errorf("start the archive's MariaDB: %w", err)
	}
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.DBName = "tcp", b.maria.Addr(), "root", path.Base(b.archive)
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	b.db = sql.OpenDB(conn)
	b.dir = b.l.TempDir()
	b.env = append([]string{
		"MICROBLOG_REDIS_CLUSTER=true",
		"MICROBLOG_LOG_LEVEL=info", // a line a request, for a reader looking into a failure
		"MICROBLOG_ARCHIVE=" + b.archive,
		// Nothing leaves Redis: the checker finds every post there.
		"MICROBLOG_HOT_WINDOW=1000000",
		// A resume replays whatever its client missed, however long a fault.
		"MICROBLOG_WS_REPLAY_MAX=1000000",
		"MICROBLOG_FANOUT_CLAIM_IDLE=" + cfg.claimIdle.String(),
		"MICROBLOG_REPAIR_INTERVAL=" + cfg.repairInterval.String(),
		"MICROBLOG_REDIS_REPLICA_ACKS=" + strconv.Itoa(cfg.replicaAcks),
	}, cfg.env...)
	for range cfg.procs {
		if _, err := b.startServer(); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// startServer starts one more server process and puts it in the rotation.
func (b *backends) startServer() (*spawn.Proc, error) {
	b.mu.Lock()
	b.started++
	name := fmt.Sprintf("server %d", b.started)
	b.mu.Unlock()
	addr, err := spawn.FreeAddr()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(b.out, strings.ReplaceAll(name, " ", "-")+".log"))
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd := exec.Command(b.bin)
	cmd.Env = append(spawn.ServerEnv(b.cluster.URL(), addr, b.dir), b.env...)
	cmd.Stdout = logFile
	p, err := spawn.StartHTTP(name, cmd, addr)
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	b.l.Cleanup(func() { logFile.Close() })
	b.mu.Lock()
	b.procs = append(b.procs, p)
	b.mu.Unlock()
	return p, nil
}

// pick is a running server's base URL, at random: clients spread over the
// processes as behind a load balancer.
func (b *backends) pick(rng *rand.Rand) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.procs[rng.IntN(len(b.procs))].URL
}

// killServer SIGKILLs a running server, as a machine that dies, and takes
// it out of the rotation once it is dead (clients meet the dead process
// meanwhile, as they would before a load balancer noticed).
func (b *backends) killServer(rng *rand.Rand) *spawn.Proc {
	b.mu.Lock()
	i := rng.IntN(len(b.procs))
	p := b.procs[i]
	b.mu.Unlock()
	syscall.Kill(p.Pid(), syscall.SIGKILL)
	<-p.Exited()
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, q := range b.procs {
		if q == p {
			b.procs = append(b.procs[:i:i], b.procs[i+1:]...)
		}
	}
	b.gone = append(b.gone, p)
	return p
}

// failover SIGKILLs the master of a shard that has a replica and waits
// until its replica serves its slots; with rejoin it then starts the dead
// node again on its data, as an operator would the machine, and waits
// until it is a replica of the new master, so that the shard may fail over
// again later. It returns the shard and how long the failover took.
func (b *backends) failover(rng *rand.Rand, rejoin bool) (shard int, took time.Duration, err error) {
	c := b.cluster
	var can []int
	for i, r := range c.Replicas {
		if r != nil {
			can = append(can, i)
		}
	}
	if len(can) == 0 {
		return 0, 0, fmt.Errorf("no master has a replica to take over")
	}
	shard = can[rng.IntN(len(can))]
	if err := try(func() { c.Fail(shard); took = c.FailedOver(shard) }); err != nil {
		return shard, took, fmt.Errorf("failover of shard %d: %w", shard, err)
	}
	if !rejoin {
		return shard, took, nil
	}
	dead := c.Failed[len(c.Failed)-1]
	if err := try(dead.Restart); err != nil {
		return shard, took, fmt.Errorf("restart the failed master %s: %w", dead.Addr(), err)
	}
	if err := waitReplica(dead.Client()); err != nil {
		return shard, took, err
	}
	c.Failed = c.Failed[:len(c.Failed)-1]
	c.Replicas[shard] = dead
	return shard, took, nil
}

// waitReplica waits until the node rdb talks to is a replica in sync with
// its master.
func waitReplica(rdb *redis.Client) error {
	deadline := time.Now().Add(time.Minute)
	for {
		info, err := rdb.Info(context.Background(), "replication").Result()
		if err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_link_status:up") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the restarted node is not a replica in sync after a minute: %v\n%s", err, info)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// restartArchive kills mariadbd, as a crash, and starts it again on the
// same data after down.
func (b *backends) restartArchive(down time.Duration) error {
	b.maria.Kill()
	time.Sleep(down)
	if err := try(func() { b.maria.Restart(b.l) }); err != nil {
		return fmt.Errorf("restart the archive's MariaDB: %w", err)
	}
	return nil
}

// logs says where the servers' logs are, with the end of each, for a
// reader looking into a failed invariant.
func (b *backends) logs() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var sb strings.Builder
	fmt.Fprintf(&sb, "the servers' logs are in %s; their ends:\n", b.out)
	for _, p := range append(append([]*spawn.Proc(nil), b.gone...), b.procs...) {
		logs := p.Logs()
		fmt.Fprintf(&sb, "--- %s (%s):\n%s\n", p.Name, p.URL, logs[max(0, len(logs)-2000):])
	}
	return sb.String()
}

// stop stops the servers, then the cluster and the archive.
func (b *backends) stop() {
	b.mu.Lock()
	procs := b.procs
	b.procs = nil
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(p.Stop)
	}
	wg.Wait()
	if b.db != nil {
		b.db.Close()
	}
	b.l.close()
}
