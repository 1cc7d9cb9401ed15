//go:build linux

package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// withDigestCache gives the test a fresh, empty digest cache under its own
// cache directory, with the settle time set to settle.
func withDigestCache(t *testing.T, settle time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("PIPELINE_ANALYZE_DIGEST_CACHE", "")
	old := digestSettle
	digestSettle = settle
	digests.reset()
	t.Cleanup(func() { digestSettle = old; digests.reset() })
	return filepath.Join(dir, "pipeline-analyze", "sha256")
}

func sumOf(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// TestDigestCacheHit: a settled file's digest is stored, and a later run
// (a fresh process: the cache file read again) takes it from the cache
// without reading the file: a planted digest for the file's key comes back.
func TestDigestCacheHit(t *testing.T) {
	cacheFile := withDigestCache(t, 0)
	path := filepath.Join(t.TempDir(), "in.json")
	content := []byte(`{"status":"success"}`)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	got := hashFiles([]string{path}, []int{0})
	if got[0].err != nil || got[0].sum != sumOf(content) || got[0].size != int64(len(content)) {
		t.Fatalf("first hash: %+v, want %s", got[0], sumOf(content))
	}
	saved, err := os.ReadFile(cacheFile)
	if err != nil || !strings.Contains(string(saved), sumOf(content)) {
		t.Fatalf("cache file after the first hash: %q (%v), want the digest stored", saved, err)
	}
	planted := strings.Repeat("ab", 32)
	if err := os.WriteFile(cacheFile, []byte(strings.Replace(string(saved), sumOf(content), planted, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	digests.reset() // a new process
	if got := hashFiles([]string{path}, []int{0}); got[0].sum != planted {
		t.Fatalf("second run: digest %s, want the cached %s (the file was read again)", got[0].sum, planted)
	}
}

// TestDigestCacheMisses: a changed file is hashed again; a file changed
// less than digestSettle before hashing is not stored; the cache turned
// off stores nothing; a corrupt cache file is ignored.
func TestDigestCacheMisses(t *testing.T) {
	cacheFile := withDigestCache(t, 0)
	path := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(path, []byte("one"), 0o644)
	hashFiles([]string{path}, []int{0})
	os.WriteFile(path, []byte("two"), 0o644)
	if got := hashFiles([]string{path}, []int{0}); got[0].sum != sumOf([]byte("two")) {
		t.Fatalf("after a change: %s, want the new content's digest", got[0].sum)
	}

	cacheFile = withDigestCache(t, time.Hour) // every file is too fresh to store
	hashFiles([]string{path}, []int{0})
	if b, err := os.ReadFile(cacheFile); err == nil && len(b) > 0 {
		t.Errorf("a file changed within the settle time was stored: %q", b)
	}

	cacheFile = withDigestCache(t, 0)
	t.Setenv("PIPELINE_ANALYZE_DIGEST_CACHE", "off")
	if got := hashFiles([]string{path}, []int{0}); got[0].sum != sumOf([]byte("two")) {
		t.Fatalf("cache off: %s", got[0].sum)
	}
	if _, err := os.Stat(cacheFile); err == nil {
		t.Errorf("cache off, yet %s was written", cacheFile)
	}

	cacheFile = withDigestCache(t, 0)
	os.MkdirAll(filepath.Dir(cacheFile), 0o755)
	os.WriteFile(cacheFile, []byte("garbage\n1 2 3\n\x00\xff "+strings.Repeat("zz", 32)+"\n"), 0o644)
	if got := hashFiles([]string{path}, []int{0}); got[0].sum != sumOf([]byte("two")) {
		t.Fatalf("corrupt cache file: %s", got[0].sum)
	}
}

// TestDigestCacheBounded: the cache keeps the digestCacheMax most recently
// stored entries.
func TestDigestCacheBounded(t *testing.T) {
	withDigestCache(t, 0)
	digests.mu.Lock()
	digests.load()
	for i := range digestCacheMax + 10 {
		digests.put(digestKey{ino: uint64(i)}, strings.Repeat("0", 64))
	}
	n, oldest := len(digests.sums), digests.order[0].ino
	digests.mu.Unlock()
	if n != digestCacheMax || oldest != 10 {
		t.Fatalf("%d entries, oldest inode %d; want %d, 10", n, oldest, digestCacheMax)
	}
}
