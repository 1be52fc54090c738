// Package testvec finds the shared test-vector files for tests: the folder
// ../shared/vectors beside the repository root (the directory holding
// go.mod). A missing file fails the test; it is never skipped.
package testvec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Path returns the path of rel inside ../shared/vectors, failing t if the
// file does not exist.
func Path(t testing.TB, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testvec: no go.mod above the test's directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "vectors", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testvec: shared vector file missing: %v", err)
	}
	return p
}

// Read returns the contents of rel inside ../shared/vectors.
func Read(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// JSON decodes rel inside ../shared/vectors into v.
func JSON(t testing.TB, rel string, v any) {
	t.Helper()
	if err := json.Unmarshal(Read(t, rel), v); err != nil {
		t.Fatalf("testvec: %s: %v", rel, err)
	}
}

// ECDHFile is the layout of Wycheproof's ecdh_*_test.json files (schema
// ecdh_test_schema_v1 and ecdh_ecpoint_test_schema_v1); byte strings are
// hex.
type ECDHFile struct {
	NumberOfTests int `json:"numberOfTests"`
	TestGroups    []struct {
		Curve    string `json:"curve"`
		Encoding string `json:"encoding"`
		Tests    []struct {
			TcID    int      `json:"tcId"`
			Comment string   `json:"comment"`
			Flags   []string `json:"flags"`
			Public  string   `json:"public"`
			Private string   `json:"private"`
			Shared  string   `json:"shared"`
			Result  string   `json:"result"`
		} `json:"tests"`
	} `json:"testGroups"`
}
