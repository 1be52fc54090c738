package sqlite

import (
	"database/sql"
	"time"
)

// Checkpoints. In WAL mode SQLite copies the log back into the database
// file (a checkpoint, with its fsyncs) inside the COMMIT that takes the log
// past wal_autocheckpoint pages (1000 by default): the request that
// commits it waits for the copy, and so does every other write, since a
// Store writes through one connection. Under load that was about one login
// in a hundred taking 3–4× the median (kexlab serve, OPAQUE, one client
// back to back, three runs of 5 s: p99 6.1–7.2 ms against a p50 of
// 1.6–1.9 ms; with the checkpointer below, p99 2.9–3.0 ms and p50
// 1.6–1.8 ms).
//
// So a goroutine checkpoints every CheckpointEvery on a connection of its
// own, PASSIVE (without waiting for readers or the writer: SQLite lets a
// checkpoint copy frames while a writer appends new ones), and the
// writer's own automatic checkpoint is moved to CheckpointBacklog pages.
// Once the whole log has been copied, the writer's next transaction starts
// it over: when writes pause now and then the -wal file stays at about
// what CheckpointEvery writes; under writing without a pause it grows to
// CheckpointBacklog pages, where the writer's checkpoint, with little left
// to copy, lets it start over.
const (
	CheckpointEvery   = 100 * time.Millisecond
	CheckpointBacklog = 10000 // pages of 4 KiB: 40 MiB
)

// checkpointer runs PASSIVE checkpoints on db until stop is closed, then
// closes db and closes done.
type checkpointer struct {
	db         *sql.DB
	stop, done chan struct{}
}

func startCheckpointer(db *sql.DB) *checkpointer {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(CheckpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			// An error (a lock another process holds, say) leaves the
			// frames for the next tick, or for the writer's own
			// checkpoint at CheckpointBacklog pages.
			c.db.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		}
	}
}

// close stops the goroutine and closes its connection.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.db.Close()
}
