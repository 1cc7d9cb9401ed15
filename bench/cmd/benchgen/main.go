// Command benchgen writes the benchmark bundles of package bench (simulated
// incidents at 10k/100k/1M spans and 300/3,000 Prometheus series, the
// generated fleets of 1,000 and 10,000 services, and the wide workloads of
// 1k/10k/100k replicas beside an incident) into a cache directory and
// prints one line per bundle: name, then its directory. The ten-million-span
// bundle (10M, 6.5 GB) is written only when named.
//
// Usage: benchgen [-root DIR] [-fleets] [-wide] [SIZE...]   (default: every span size; -fleets adds the fleets, -wide the wide workloads)
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pipeline-analyze/pipeline-analyze/bench"
)

func main() {
	root := flag.String("root", "", "cache directory (default: the user cache dir)")
	fleets := flag.Bool("fleets", false, "with no SIZE, also the system-size fleets (svc-1k, svc-10k)")
	wides := flag.Bool("wide", false, "with no SIZE, also the wide workloads (wide-1k … wide-full-100k)")
	flag.Parse()
	if *root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		*root = dir + "/pipeline-analyze-bench/" + bench.CacheVersion
	}
	want := map[string]bool{}
	for _, a := range flag.Args() {
		want[a] = true
	}
	for _, sz := range append(bench.Sizes, bench.Huge...) {
		if len(want) > 0 && !want[sz.Name] || len(want) == 0 && sz.Copies > 1 {
			continue
		}
		dir, err := bench.Cached(*root, sz)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchgen: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("%s %s\n", sz.Name, dir)
	}
	for _, fl := range bench.Fleets {
		if len(want) > 0 && !want[fl.Name] || len(want) == 0 && !*fleets {
			continue
		}
		dir, err := bench.CachedFleet(*root, fl)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchgen: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("%s %s\n", fl.Name, dir)
	}
	for _, w := range bench.Wides {
		if len(want) > 0 && !want[w.Name] || len(want) == 0 && !*wides {
			continue
		}
		dir, err := bench.CachedWide(*root, w)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchgen: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("%s %s\n", w.Name, dir)
	}
}
