package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// The digest cache: the sha256 of an input file that has not changed since
// an earlier run is taken from a small per-user file instead of hashing the
// file again (a million spans are ~660 MB, half a second of one core). A file
// is the same when its device, inode, size, modification and status-change
// times (to the nanosecond) all are, the test git's index and ccache rely
// on; any write changes the status-change time, which no user can set back.
// An entry is stored only for a file whose times were already at least
// digestSettle old when hashing began and did not change while it was
// hashed, so a write in the same clock tick as an earlier hash cannot pass
// for the old content. The cache holds digests and stat keys, no paths.
//
// It lives at $XDG_CACHE_HOME/pipeline-analyze/sha256 (os.UserCacheDir);
// PIPELINE_ANALYZE_DIGEST_CACHE=off turns it off. Any failure to read or
// write it is silent: the file is then hashed as before.

// digestKey is what identifies a file's content for the cache.
type digestKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns since the epoch
}

// digestSettle is how old a file's times must be when hashing starts for
// its digest to be stored (a variable for the tests).
var digestSettle = 2 * time.Second

// digestCacheMax bounds the entries kept (the most recently stored).
const digestCacheMax = 4096

// digestCacheMaxBytes bounds what is read of the cache file.
const digestCacheMaxBytes = 1 << 20

// digestCache is the process's view of the cache file, loaded once.
type digestCache struct {
	mu      sync.Mutex
	loaded  bool
	path    string // "" = off
	sums    map[digestKey]string
	order   []digestKey // oldest stored first
	changed bool
}

var digests digestCache

// digestCachePath is the cache file's path, "" when the cache is off or
// there is no cache directory.
func digestCachePath() string {
	if os.Getenv("PIPELINE_ANALYZE_DIGEST_CACHE") == "off" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "pipeline-analyze", "sha256")
}

// load reads the cache file once; c.mu is held.
func (c *digestCache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.path = digestCachePath()
	c.sums = map[digestKey]string{}
	if c.path == "" {
		return
	}
	f, err := os.Open(c.path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, digestCacheMaxBytes))
	for sc.Scan() {
		if k, sum, ok := parseDigestLine(sc.Bytes()); ok {
			c.put(k, sum)
		}
	}
	c.changed = false
}

// parseDigestLine parses "dev ino size mtime ctime sum" (decimal numbers,
// 64 hex digits); ok is false for anything else.
func parseDigestLine(line []byte) (k digestKey, sum string, ok bool) {
	fs := bytes.Fields(line)
	if len(fs) != 6 || len(fs[5]) != 64 {
		return k, "", false
	}
	var n [5]int64
	for i := range n {
		v, err := strconv.ParseInt(string(fs[i]), 10, 64)
		if err != nil {
			return k, "", false
		}
		n[i] = v
	}
	for _, c := range fs[5] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return k, "", false
		}
	}
	return digestKey{uint64(n[0]), uint64(n[1]), n[2], n[3], n[4]}, string(fs[5]), true
}

// put records sum for k, a new key as the newest entry; c.mu is held.
func (c *digestCache) put(k digestKey, sum string) {
	_, known := c.sums[k]
	c.sums[k] = sum
	if known { // a key repeated in the cache file: its place stands
		return
	}
	c.order = append(c.order, k)
	if len(c.order) > digestCacheMax {
		drop := len(c.order) - digestCacheMax
		for _, o := range c.order[:drop] {
			delete(c.sums, o)
		}
		c.order = append(c.order[:0], c.order[drop:]...)
	}
	c.changed = true
}

// reset forgets what was loaded, so the next use reads the cache file
// again (the tests' fresh process).
func (c *digestCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loaded, c.path, c.sums, c.order, c.changed = false, "", nil, nil, false
}

// lookup returns the cached digest of the file whose stat key is k.
func (c *digestCache) lookup(k digestKey) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	sum, ok := c.sums[k]
	return sum, ok
}

// store records a digest hashed from a file whose key was k both before
// and after hashing, begun at start; a file changed too recently is not
// stored (see digestSettle).
func (c *digestCache) store(k digestKey, sum string, start time.Time) {
	settled := start.Add(-digestSettle).UnixNano()
	if k.mtime >= settled || k.ctime >= settled {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	if c.path == "" {
		return
	}
	c.put(k, sum)
}

// save writes the cache file when entries were added (a temporary file
// renamed over it, so a concurrent run reads the old or the new file,
// never half of one).
func (c *digestCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path == "" || !c.changed {
		return
	}
	c.changed = false
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), "sha256-*")
	if err != nil {
		return
	}
	w := bufio.NewWriter(tmp)
	for _, k := range c.order {
		fmt.Fprintf(w, "%d %d %d %d %d %s\n", k.dev, k.ino, k.size, k.mtime, k.ctime, c.sums[k])
	}
	if w.Flush() != nil || tmp.Close() != nil || os.Rename(tmp.Name(), c.path) != nil {
		os.Remove(tmp.Name())
	}
}

// hashFileCached is hashFile through the digest cache: a file whose stat
// key is cached is not read.
func hashFileCached(path string, scratch *[]byte) (string, int64, error) {
	before, ok := statKey(path)
	if !ok {
		return hashFile(path, scratch)
	}
	if sum, hit := digests.lookup(before); hit {
		return sum, before.size, nil
	}
	start := time.Now()
	sum, n, err := hashFile(path, scratch)
	if err == nil && n == before.size {
		if after, ok := statKey(path); ok && after == before {
			digests.store(before, sum, start)
		}
	}
	return sum, n, err
}
