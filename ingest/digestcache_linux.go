package ingest

import (
	"os"
	"syscall"
)

// statKey returns the digest-cache key of the regular file at path (ok
// false for anything else, or where the platform's stat lacks a field).
func statKey(path string) (digestKey, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return digestKey{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return digestKey{}, false
	}
	return digestKey{dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
