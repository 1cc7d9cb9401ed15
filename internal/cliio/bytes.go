package cliio

import "fmt"

// BinaryBytes renders n bytes as "512 MiB", "1 GiB".
func BinaryBytes(n int64) string {
	for _, u := range []struct {
		v    int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.v && n%u.v == 0 {
			return fmt.Sprintf("%d %s", n/u.v, u.name)
		}
		if n >= u.v {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.v), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
