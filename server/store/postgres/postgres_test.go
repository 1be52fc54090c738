package postgres

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kexlab/kexlab/server/store"
	"github.com/kexlab/kexlab/server/store/postgres/pgtest"
	"github.com/kexlab/kexlab/server/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func fresh(t *testing.T) func() (store.Store, error) {
	dsn := pgtest.DSN(t)
	return func() (store.Store, error) { return Open(t.Context(), dsn) }
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		t.Helper()
		st, err := fresh(t)()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}, storetest.Reopen(fresh))
}

// exec runs stmt on the database dsn names, outside the store.
func exec(t *testing.T, dsn, stmt string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), stmt, args...); err != nil {
		t.Fatal(err)
	}
}

func TestSchemaTooNew(t *testing.T) {
	dsn := pgtest.DSN(t)
	st, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	v := len(migrations) + 1
	exec(t, dsn, `INSERT INTO schema_version (version, name, applied) VALUES ($1, 'from the future', '')`, v)
	st, err = Open(t.Context(), dsn)
	if err == nil {
		st.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), fmt.Sprint("version ", v)) {
		t.Errorf("Open of a newer schema: %v", err)
	}
}

func TestMigrationsRecorded(t *testing.T) {
	dsn := pgtest.DSN(t)
	for range 2 {
		st, err := Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var n, v int
	if err := conn.QueryRow(t.Context(), `SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != len(migrations) || v != len(migrations) {
		t.Errorf("schema_version: %d rows, version %d; want %d, %d", n, v, len(migrations), len(migrations))
	}
}

func TestOpenErrors(t *testing.T) {
	for _, dsn := range []string{
		"host=/nonexistent/dir user=postgres dbname=x sslmode=disable connect_timeout=2",
		"not a = valid = dsn",
		"postgres://%zz",
	} {
		if st, err := Open(t.Context(), dsn); err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded", dsn)
		}
	}
}
