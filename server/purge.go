package server

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// purger removes expired flows and sessions and idle counters from the
// store every Config.PurgeEvery (store.Store.PurgeExpired). Every instance
// runs one: the deletes are idempotent, and an instance that is down
// leaves the work to the others.
type purger struct {
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	rows     prometheus.Counter
}

func (s *Server) startPurger() {
	p := &purger{stop: make(chan struct{}), done: make(chan struct{}),
		rows: prometheus.NewCounter(prometheus.CounterOpts{Name: "kexlab_store_purged_rows_total",
			Help: "Rows the periodic purge removed: expired flows and sessions, idle token buckets and counters."})}
	s.m.reg.MustRegister(p.rows)
	s.purge = p
	if s.cfg.PurgeEvery < 0 {
		close(p.done)
		return
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(s.cfg.PurgeEvery)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				s.purgeOnce()
			}
		}
	}()
}

// purgeOnce runs one purge, bounded in time, and logs a failure.
func (s *Server) purgeOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := s.st.PurgeExpired(ctx, s.cfg.Now())
	if err != nil {
		s.log.Warn("purge of expired store rows failed", "err", err)
		return
	}
	s.purge.rows.Add(float64(n))
	if n > 0 {
		s.log.Debug("purged expired store rows", "rows", n)
	}
}

// stopPurger ends the purge loop and waits for a purge in progress.
func (s *Server) stopPurger() {
	if s.purge == nil {
		return
	}
	s.purge.stopOnce.Do(func() { close(s.purge.stop) })
	<-s.purge.done
}
