// Package profgen writes profiler captures of a known shape for the tests
// and benchmarks of compare --profile (package profdiff, the driver's
// binary tests): a training loop of steps of layers of operators, each
// launching one kernel, as a PyTorch profiler (Kineto) JSON trace or an
// Nsight Systems SQLite export, with one layer's kernels slowed by a chosen
// factor. A test harness: only tests import it.
package profgen

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	_ "modernc.org/sqlite" // registered as "sqlite"
)

// Shape sizes a generated capture: steps × layers × kernels per layer.
type Shape struct{ Steps, Layers, PerLayer int }

// Million is a million kernels: 50 steps of 200 layers of 100 kernels.
var Million = Shape{50, 200, 100}

// Kineto writes a Kineto trace of the shape: per step a ProfilerStep
// range, per layer a record_function range ("model.layers.N"), per kernel
// a cpu_op enclosing its cudaLaunchKernel and the kernel itself on the GPU
// row; the kernels of layer slow take ×factor.
func Kineto(w io.Writer, g Shape, slow int, factor float64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprint(bw, `{"schemaVersion":1,"distributedInfo":{"rank":0},"traceEvents":[`)
	first := true
	ev := func(format string, a ...any) {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		fmt.Fprintf(bw, format, a...)
	}
	var cpu, gpu float64 = 1000, 1000 // µs
	corr := 0
	for s := range g.Steps {
		stepStart := cpu
		for l := range g.Layers {
			layerStart := cpu
			for k := range g.PerLayer {
				corr++
				dur := 5.0 + float64((k*7+l*3)%11) // µs, 5–15
				if l == slow {
					dur *= factor
				}
				ev(`{"ph":"X","cat":"cpu_op","name":"aten::op%d","pid":1,"tid":1,"ts":%.3f,"dur":4,"args":{"External id":%d}}`, k%17, cpu, corr)
				ev(`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%.3f,"dur":2,"args":{"External id":%d,"correlation":%d}}`, cpu+1, corr, corr)
				gpu = max(gpu, cpu+2)
				ev(`{"ph":"X","cat":"kernel","name":"void kernel_%d<float>(float*, int)","pid":0,"tid":7,"ts":%.3f,"dur":%.3f,"args":{"External id":%d,"device":0,"stream":7,"correlation":%d}}`, (k+l)%64, gpu, dur, corr, corr)
				gpu += dur
				cpu += 5
			}
			ev(`{"ph":"X","cat":"user_annotation","name":"model.layers.%d","pid":1,"tid":1,"ts":%.3f,"dur":%.3f,"args":{}}`, l, layerStart-0.5, cpu-layerStart+0.5)
		}
		ev(`{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":%.3f,"dur":%.3f,"args":{}}`, s, stepStart-1, cpu-stepStart+1)
		cpu += 100
	}
	fmt.Fprint(bw, `],"traceName":"generated"}`)
	return bw.Flush()
}

// Nsight writes the same capture as an Nsight SQLite export: kernels,
// runtime launches and NVTX push/pop ranges.
func Nsight(path string, g Shape, slow int, factor float64) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{
		`PRAGMA journal_mode = OFF`, `PRAGMA synchronous = OFF`,
		`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER, shortName INTEGER)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER)`,
		`CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER, textId INTEGER)`,
	} {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for i := range 64 {
		if _, err := tx.Exec(`INSERT INTO StringIds VALUES (?, ?)`, i, "kernel_"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	kst, _ := tx.Prepare(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, ?)`)
	rst, _ := tx.Prepare(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, 100)`)
	nst, _ := tx.Prepare(`INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, 1, NULL)`)
	var cpu, gpu int64 = 1e6, 1e6 // ns
	corr := 0
	for s := range g.Steps {
		stepStart := cpu
		for l := range g.Layers {
			layerStart := cpu
			for k := range g.PerLayer {
				corr++
				dur := int64(5000 + 1000*((k*7+l*3)%11))
				if l == slow {
					dur = int64(float64(dur) * factor)
				}
				if _, err := rst.Exec(cpu+1000, cpu+3000, corr); err != nil {
					return err
				}
				gpu = max(gpu, cpu+2000)
				if _, err := kst.Exec(gpu, gpu+dur, corr, (k+l)%64); err != nil {
					return err
				}
				gpu += dur
				cpu += 5000
			}
			if _, err := nst.Exec(layerStart-500, cpu, "model.layers."+strconv.Itoa(l)); err != nil {
				return err
			}
		}
		if _, err := nst.Exec(stepStart-1000, cpu, "ProfilerStep#"+strconv.Itoa(s)); err != nil {
			return err
		}
		cpu += 100000
	}
	return tx.Commit()
}

// Write writes a capture of the format ("kineto" or "nsight") into dir as
// name.json or name.sqlite, with layer slow's kernels ×factor (slow −1:
// none), and returns its path.
func Write(dir, format, name string, g Shape, slow int, factor float64) (string, error) {
	if format == "nsight" {
		p := filepath.Join(dir, name+".sqlite")
		return p, Nsight(p, g, slow, factor)
	}
	p := filepath.Join(dir, name+".json")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	if err := Kineto(f, g, slow, factor); err != nil {
		f.Close()
		return "", err
	}
	return p, f.Close()
}
