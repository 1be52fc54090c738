package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointer: writes reach the database file without a commit
// taking the log past the writer's automatic checkpoint (CheckpointBacklog
// pages, far more than these writes make): the background checkpointer
// copied them, and the log is started over instead of growing.
func TestCheckpointer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kexlab.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	time.Sleep(3 * CheckpointEvery) // the migration's pages
	before := size(path)
	ctx := context.Background()
	now := time.Now()
	write := func(round int) {
		for i := range 500 {
			if _, _, err := s.TakeToken(ctx, fmt.Sprintf("addr:%d-%d", round, i), now, 1, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(0)
	deadline := time.Now().Add(5 * time.Second)
	for size(path) <= before {
		if time.Now().After(deadline) {
			t.Fatalf("the database file stayed at %d bytes after 500 writes: no checkpoint ran", before)
		}
		time.Sleep(CheckpointEvery)
	}
	// The log is reused from its start once checkpointed: more rounds of
	// the same writes leave it about as large as one round made it.
	time.Sleep(3 * CheckpointEvery)
	wal := size(path + "-wal")
	for round := 1; round <= 4; round++ {
		write(round)
		time.Sleep(3 * CheckpointEvery)
	}
	if got := size(path + "-wal"); got > 2*wal+1<<20 {
		t.Errorf("the log grew from %d to %d bytes over four more rounds of writes", wal, got)
	}
}
