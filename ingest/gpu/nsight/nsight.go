package nsight

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/gpu"
)

// The Nsight Systems SQLite reader. An export is untrusted input that can
// run code of its own: a "table" may be a VIEW over an endless recursive
// CTE, a cell may hold a 900 MB blob, a table may have billions of rows. So
// only real tables of the names below are read (a view of such a name is
// named in a warning), every cell is checked by typeof()/octet_length()
// before it is loaded (SQLite answers both without reading the content),
// rows are capped with LIMIT, names are resolved one distinct ID at a time,
// and every query runs under lim.QueryTimeout.

// nsysTables are the tables the reader looks at.
var nsysTables = []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
	"CUPTI_ACTIVITY_KIND_RUNTIME", "StringIds", "TARGET_INFO_SESSION_START_TIME", "TARGET_INFO_SYSTEM_ENV", "TARGET_INFO_GPU"}

// decodeNsightSQLite reads an Nsight Systems SQLite export, opened read-only,
// into per-GPU timeline series (see Timeline.derive) with prefix "nsys".
// Tables and columns are looked up by name; missing ones are tolerated.
// Activity rows beyond lim.MaxSpans are not read (with a warning).
// Its length is one pass over the tables in schema order (open, probe
// columns, read each activity table into the timeline), kept in one piece
// so the read-only transaction and its deferred cleanup stay in one place.
func decodeNsightSQLite(name, path string, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	n, err := OpenExport(name, path, lim, nsysTables)
	if err != nil {
		return nil, err
	}
	defer n.Close()
	b := &ingest.Bundle{}
	views := n.Views
	if len(views) > 0 {
		b.Warn(ingest.ErrBadValue, name, len(views), "%s: a view, not a table (not read: a view can run any query)", strings.Join(views, ", "))
	}
	if !n.Has("CUPTI_ACTIVITY_KIND_KERNEL", "start", "end", "deviceId") {
		b.Warn(ingest.ErrPartialInput, name, 1, "no CUPTI_ACTIVITY_KIND_KERNEL table: the trace has no CUDA kernels")
	}
	if err := n.PrepareStrings(); err != nil {
		return nil, err
	}
	tl := &gpu.Timeline{Prefix: "nsys"}
	if n.Has("TARGET_INFO_SESSION_START_TIME", "utcEpochNs") {
		var base sql.NullInt64
		_ = n.DB.QueryRowContext(n.Ctx, `SELECT `+NumCol("utcEpochNs")+` FROM TARGET_INFO_SESSION_START_TIME LIMIT 1`).Scan(&base)
		tl.Base = base.Int64
	}
	if tl.Base == 0 {
		b.Warn(ingest.ErrPartialInput, name, 1, "no session start time (TARGET_INFO_SESSION_START_TIME): timestamps are relative to the trace start")
	}
	host := ""
	if n.Has("TARGET_INFO_SYSTEM_ENV", "name", "value") {
		var h sql.NullString
		_ = n.DB.QueryRowContext(n.Ctx, `SELECT `+StrCol("value", 256)+` FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' LIMIT 1`).Scan(&h)
		host = h.String
	}
	uuids := map[int]string{}
	if n.Has("TARGET_INFO_GPU", "id", "uuid") {
		r, err := n.DB.QueryContext(n.Ctx, `SELECT `+NumCol("id")+`, `+StrCol("uuid", 256)+` FROM TARGET_INFO_GPU LIMIT 4096`)
		if err == nil {
			for r.Next() {
				var id sql.NullInt64
				var u sql.NullString
				if r.Scan(&id, &u) == nil && id.Valid && u.String != "" {
					if !strings.HasPrefix(u.String, "GPU-") {
						u.String = "GPU-" + u.String
					}
					uuids[int(id.Int64)] = u.String
				}
			}
			r.Close()
		}
	}
	tl.Entity = func(dev int) ingest.Entity { return gpu.Entity(uuids[dev], host, strconv.Itoa(dev)) }
	rows := 0 // activity rows read, against lim.MaxSpans
	capped := false
	for _, t := range []struct {
		table string
		kind  gpu.ActKind
	}{{"CUPTI_ACTIVITY_KIND_KERNEL", gpu.ActKernel}, {"CUPTI_ACTIVITY_KIND_MEMCPY", gpu.ActMemcpy}, {"CUPTI_ACTIVITY_KIND_MEMSET", gpu.ActMemset}} {
		if !n.Has(t.table, "start", "end", "deviceId") {
			continue
		}
		nameCol := "NULL"
		if t.kind == gpu.ActKernel {
			for _, c := range []string{"shortName", "demangledName", "name"} {
				if n.Has(t.table, c) {
					nameCol = StrCol(c, n.MaxStr)
					break
				}
			}
		}
		left := lim.MaxSpans - rows
		q := fmt.Sprintf(`SELECT %s, %s, %s, %s FROM %s LIMIT %d`, NumCol("start"), NumCol("end"), NumCol("deviceId"), nameCol, t.table, left+1)
		more, err := n.scanIntervals(q, left, &rows, func(s, e int64, dev int, nm any) error {
			a := gpu.Interval{Dev: dev, Start: s, End: e, Kind: t.kind}
			if t.kind == gpu.ActKernel {
				str, err := n.Str(nm)
				if err != nil {
					return err
				}
				a.Name = gpu.ShortKernelName(str)
			}
			tl.Acts = append(tl.Acts, a)
			return nil
		})
		if err != nil {
			return nil, n.Bad(fmt.Errorf("%s: %w", t.table, err))
		}
		if more {
			capped = true
			break
		}
	}
	if n.Has("CUPTI_ACTIVITY_KIND_RUNTIME", "start", "end") && (n.Has("CUPTI_ACTIVITY_KIND_RUNTIME", "nameId") || n.Has("CUPTI_ACTIVITY_KIND_RUNTIME", "name")) && !capped {
		col := "nameId"
		if !n.Has("CUPTI_ACTIVITY_KIND_RUNTIME", col) {
			col = "name"
		}
		devs := map[int]bool{}
		for _, a := range tl.Acts {
			devs[a.Dev] = true
		}
		dev := -1
		if len(devs) == 1 {
			for d := range devs {
				dev = d
			}
		}
		unplaced := 0
		left := lim.MaxSpans - rows
		q := fmt.Sprintf(`SELECT %s, %s, 0, %s FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT %d`, NumCol("start"), NumCol("end"), StrCol(col, n.MaxStr), left+1)
		more, err := n.scanIntervals(q, left, &rows, func(s, e int64, _ int, nm any) error {
			str, err := n.Str(nm)
			if err != nil || !gpu.IsSyncCall(str) {
				return err
			}
			if dev < 0 {
				unplaced++
				return nil
			}
			tl.Stalls = append(tl.Stalls, gpu.HostInterval{Dev: dev, Start: s, End: e})
			return nil
		})
		if err != nil {
			return nil, n.Bad(fmt.Errorf("runtime: %w", err))
		}
		capped = more
		if unplaced > 0 {
			b.Warn(ingest.ErrUnmatched, name, unplaced, "%d blocking CUDA calls not attributed: the trace has %d GPUs and runtime calls name none", unplaced, len(devs))
		}
	}
	if capped {
		b.Warn(ingest.ErrLimit, name, 1, "stopped after %d activity rows (--max-spans); the rest of the export was not read", lim.MaxSpans)
	}
	tl.Derive(b, name, lim)
	return b, nil
}

// scanIntervals runs q (start, end, device, name) and calls f per row, for
// at most max rows (counted into *rows); rows with NULL (or non-numeric) or
// inverted times are skipped. more reports that q had rows beyond max.
func (n *Export) scanIntervals(q string, max int, rows *int, f func(s, e int64, dev int, name any) error) (more bool, err error) {
	r, err := n.DB.QueryContext(n.Ctx, q)
	if err != nil {
		return false, err
	}
	defer r.Close()
	for got := 0; r.Next(); got++ {
		if got == max {
			return true, nil
		}
		*rows++
		var s, e sql.NullInt64
		var dev sql.NullInt64
		var nm any
		if err := r.Scan(&s, &e, &dev, &nm); err != nil {
			return false, err
		}
		if !s.Valid || !e.Valid || e.Int64 < s.Int64 {
			continue
		}
		if err := f(s.Int64, e.Int64, int(dev.Int64), nm); err != nil {
			return false, err
		}
	}
	return false, r.Err()
}

// readSQLite hands the Nsight decoder a real file: the path itself when it
// is a regular uncompressed file (direct: read in place, not copied, not
// bounded by MaxFileBytes), else a temporary copy in tempDir
// ("" = the system's). The copy is bounded: never more than
// lim.MaxTempBytes, and no more than the database size its header states
// (a gzip bomb behind a valid header is not inflated onto the disk). The
// copy is removed when the decoder is done; the command removes tempDir on
// SIGINT/SIGTERM.
func readSQLite(name, path string, r io.Reader, lim ingest.Limits, direct bool, tempDir string) (*ingest.Bundle, error) {
	if direct {
		return decodeNsightSQLite(name, path, lim) // hashed later from the file, like every regular file
	}
	br := bufio.NewReaderSize(r, 100)
	max := lim.MaxTempBytes
	if head, _ := br.Peek(100); len(head) == 100 {
		if n := sqliteDeclaredSize(head); n > 0 && n < max {
			max = n
		}
	}
	tmp, err := os.CreateTemp(tempDir, "pipeline-analyze-*.sqlite")
	if err != nil {
		return nil, fmt.Errorf("nsight %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(br, max+1))
	if err != nil {
		tmp.Close()
		return nil, &ingest.InputError{File: name, Offset: n, Err: err}
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("nsight %s: %w", name, err)
	}
	if n > max && max == lim.MaxTempBytes {
		return nil, &ingest.InputError{File: name, Offset: n, Err: fmt.Errorf("%w: a compressed or piped SQLite export needs a temporary copy of more than %d bytes (--max-temp-size); decompress it first", ingest.ErrLimit, max)}
	}
	if err := os.Truncate(tmp.Name(), min(n, max)); err != nil {
		return nil, fmt.Errorf("nsight %s: %w", name, err)
	}
	return decodeNsightSQLite(name, tmp.Name(), lim)
}

// sqliteDeclaredSize is the database size an SQLite header states (page
// size × "in-header database size"), or 0 when the header does not state it
// validly (the change counter and the version-valid-for number differ).
func sqliteDeclaredSize(h []byte) int64 {
	if len(h) < 100 || !bytes.HasPrefix(h, []byte("SQLite format 3\x00")) {
		return 0
	}
	page := int64(h[16])<<8 | int64(h[17])
	if page == 1 {
		page = 65536
	}
	if page < 512 || page&(page-1) != 0 {
		return 0
	}
	be32 := func(b []byte) int64 { return int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3]) }
	pages := be32(h[28:32])
	if pages == 0 || be32(h[24:28]) != be32(h[92:96]) {
		return 0
	}
	return page * pages
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatNsightSQLite, DecodeFile: readSQLite,
		Sniff: []ingest.SniffRule{{Priority: ingest.PrioritySQLite, Match: func(h *ingest.Head) bool { return bytes.HasPrefix(h.Raw, []byte("SQLite format 3\x00")) }}}})
}
