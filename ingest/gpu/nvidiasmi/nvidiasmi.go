package nvidiasmi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/gpu"
)

// This file reads the two text outputs of nvidia-smi:
//
//   - `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` (and the
//     per-process `--query-compute-apps`/`--query-accounted-apps` CSVs), and
//   - `nvidia-smi dmon` / `nvidia-smi pmon` (whitespace columns under a
//     "# gpu ..." header and a "# Idx ..." units line; -o DT adds Date/Time).
//
// nvidia-smi prints local time without a zone; the readers take it as UTC.
// Without a time column, samples are placed one second apart from the Unix
// epoch (relative time) and a warning says so.

// smiTimeLayouts are the timestamp layouts nvidia-smi prints in CSV output.
var smiTimeLayouts = []string{"2006/01/02 15:04:05.000", "2006/01/02 15:04:05", "2006-01-02 15:04:05.000", "2006-01-02 15:04:05"}

// smiCellKey names the series a CSV cell goes to: its row's identity (the
// GPU entity and the row's labels) and its column.
type smiCellKey struct {
	row string
	col int
}

// metricName turns an nvidia-smi field name into a metric-name fragment.
func metricName(field string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(field) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	return strings.Trim(sb.String(), "_")
}

// smiSkipField reports whether a --query-gpu field is an identity or static
// attribute rather than a measurement.
func smiSkipField(f string) bool {
	switch f {
	case "timestamp", "name", "uuid", "serial", "index", "count", "driver_version", "vbios_version", "hostname",
		"gpu_name", "gpu_uuid", "gpu_serial", "gpu_bus_id", "pid", "process_name", "compute_mode", "compute_cap",
		"persistence_mode", "addressing_mode", "gpu_recovery_action", "power.management", "time":
		return true
	}
	for _, p := range []string{"pci.", "inforom.", "platform.", "fabric.", "vgpu_", "display_", "accounting.",
		"driver_model.", "gom.", "mig.", "gsp.", "c2c.", "dramencryption.", "ecc.mode.", "retired_pages.address",
		"retired_pages.timestamp", "retired_pages.cause"} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return strings.HasSuffix(f, ".supported")
}

// smiSignal classifies an nvidia-smi field (or dmon/pmon column) name.
func smiSignal(f string) ingest.SignalKind {
	switch {
	case f == "utilization.gpu" || f == "sm" || f == "gpu_util" || f == "gpu_utilization":
		return ingest.SignalGPUUtil
	case f == "utilization.memory" || f == "mem" || f == "mem_util" || f == "mem_utilization":
		return ingest.SignalGPUMemBW
	case strings.HasPrefix(f, "clocks_event_reasons") || strings.HasPrefix(f, "clocks_throttle_reasons") ||
		f == "pviol" || f == "tviol":
		return ingest.SignalGPUThrottle
	case strings.HasPrefix(f, "clocks.") || f == "mclk" || f == "pclk":
		return ingest.SignalGPUClock
	case strings.HasPrefix(f, "temperature.") || f == "gtemp" || f == "mtemp":
		return ingest.SignalTemperature
	case strings.Contains(f, "power") || f == "pwr":
		return ingest.SignalPower
	case strings.HasPrefix(f, "ecc.") || strings.HasPrefix(f, "retired_pages.") || strings.HasPrefix(f, "remapped_rows.") ||
		f == "sbecc" || f == "dbecc" || f == "pci" || f == "xid":
		return ingest.SignalXID
	case strings.HasPrefix(f, "memory.") || strings.HasPrefix(f, "protected_memory.") || f == "used_gpu_memory" ||
		f == "max_memory_usage" || f == "fb" || f == "bar1" || f == "ccpm":
		return ingest.SignalGPUMemory
	case strings.HasPrefix(f, "nvlink") || f == "nvlrx" || f == "nvltx":
		return ingest.SignalNVLink
	}
	return ingest.SignalOther
}

// smiUnitScale normalises a unit: MiB become bytes, microseconds and
// milliseconds seconds; others are kept as printed.
func smiUnitScale(unit string) (string, float64) {
	switch unit {
	case "MiB", "MB":
		return "bytes", 1 << 20
	case "KiB":
		return "bytes", 1 << 10
	case "GiB":
		return "bytes", 1 << 30
	case "us":
		return "s", 1e-6
	case "ms":
		return "s", 1e-3
	case "#":
		return "", 1
	}
	return unit, 1
}

// smiCellKind says what a cell held.
type smiCellKind uint8

const (
	cellNumber  smiCellKind = iota
	cellMissing             // [N/A], [Not Supported], "-", empty
	cellFailure             // [GPU is lost], [Unknown Error], ...: the tool itself reports a problem
	cellText                // any other text
)

// parseSMICell parses one nvidia-smi value: "87 %", "1410 MHz", "0x...01FF",
// "Active"/"Not Active", "Yes"/"No", "P0", "[N/A]"... It returns the number
// and the unit printed after it ("" when none).
func parseSMICell(c string) (float64, string, smiCellKind) {
	c = strings.TrimSpace(c)
	switch c {
	case "", "-", "N/A", "[N/A]", "[Not Supported]", "Not Supported", "[Requested functionality has been deprecated]", "[Insufficient Permissions]":
		return math.NaN(), "", cellMissing
	case "Active", "Yes", "Enabled":
		return 1, "", cellNumber
	case "Not Active", "No", "Disabled":
		return 0, "", cellNumber
	}
	if strings.HasPrefix(c, "[") && strings.HasSuffix(c, "]") {
		return math.NaN(), "", cellFailure
	}
	if strings.HasPrefix(c, "0x") || strings.HasPrefix(c, "0X") {
		if u, err := strconv.ParseUint(c[2:], 16, 64); err == nil {
			return float64(u), "", cellNumber
		}
		return math.NaN(), "", cellText
	}
	if len(c) >= 2 && c[0] == 'P' && c[1] >= '0' && c[1] <= '9' {
		if n, err := strconv.Atoi(c[1:]); err == nil {
			return float64(n), "", cellNumber
		}
	}
	num, unit := c, ""
	if i := strings.IndexByte(c, ' '); i > 0 {
		num, unit = c[:i], strings.TrimSpace(c[i+1:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) {
		return math.NaN(), "", cellText
	}
	return v, unit, cellNumber
}

// parseSMITime parses an nvidia-smi timestamp cell (taken as UTC).
func parseSMITime(c string) (ingest.Time, bool) {
	c = strings.TrimSpace(c)
	for _, l := range smiTimeLayouts {
		if t, err := time.Parse(l, c); err == nil {
			return ingest.FromTime(t), true
		}
	}
	return 0, false
}

// smiColumn is one column of a --query-gpu CSV.
type smiColumn struct {
	field string // lower-case field name without the unit
	unit  string // from the header "[%]", "" when none
}

// lineReader yields lines with their byte offsets.
type lineReader struct {
	sc   *bufio.Scanner
	off  int64 // offset of the line last returned
	next int64
	line int
}

func newLineReader(r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	return &lineReader{sc: sc}
}

func (lr *lineReader) scan() (string, bool) {
	if !lr.sc.Scan() {
		return "", false
	}
	lr.off = lr.next
	b := lr.sc.Bytes()
	lr.next += int64(len(b)) + 1
	lr.line++
	return strings.TrimRight(string(b), "\r"), true
}

// decodeNvidiaSmiCSV reads `nvidia-smi --query-*=... --format=csv` output,
// with or without header and units. Every numeric, non-identity column of
// every GPU (and, for per-process queries, every PID) becomes a series named
// "nvidia_smi_<field>". Without a header the columns are named col1..colN.
// Its length is one line-oriented pass (header, units, rows) whose state
// (columns, units, per-GPU sets) is shared by every step.
func decodeNvidiaSmiCSV(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	b := &ingest.Bundle{}
	lr := newLineReader(r)
	ss := gpu.NewSeriesSet(name)
	var cols []smiColumn
	var header string
	tsCol, uuidCol, idxCol, busCol, pidCol, procCol, hostCol := -1, -1, -1, -1, -1, -1, -1
	relative := map[string]int{} // per-series sample counter when there is no time
	bySeriesCell := map[smiCellKey]*ingest.Series{}
	badRows, failures, badCells := 0, 0, 0
	var firstFailure string
	rows := 0
	for {
		line, ok := lr.scan()
		if !ok {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		cells := strings.Split(line, ",")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cols == nil {
			header = line
			if _, _, k := parseSMICell(cells[0]); k == cellNumber || isSMITime(cells[0]) || strings.HasPrefix(cells[0], "GPU-") {
				// noheader: positional columns.
				b.Warn(ingest.ErrPartialInput, name, 1, "no CSV header: columns named col1..col%d", len(cells))
				for i := range cells {
					cols = append(cols, smiColumn{field: fmt.Sprintf("col%d", i+1)})
				}
				header = ""
			} else {
				for _, c := range cells {
					col := smiColumn{field: strings.ToLower(c)}
					if i := strings.IndexByte(c, '['); i >= 0 && strings.HasSuffix(c, "]") {
						col.field = strings.ToLower(strings.TrimSpace(c[:i]))
						col.unit = c[i+1 : len(c)-1]
					}
					cols = append(cols, col)
				}
				if len(cols) < 1 || cols[0].field == "" {
					return nil, ingest.ErrorAt(name, lr.off, errors.New("nvidia-smi csv: empty header"))
				}
				for i, c := range cols {
					switch c.field {
					case "timestamp":
						tsCol = i
					case "uuid", "gpu_uuid":
						uuidCol = i
					case "index":
						idxCol = i
					case "pci.bus_id", "gpu_bus_id":
						busCol = i
					case "pid":
						pidCol = i
					case "process_name":
						procCol = i
					case "hostname":
						hostCol = i
					}
				}
				if tsCol < 0 {
					b.Warn(ingest.ErrPartialInput, name, 1, "no timestamp column: samples placed 1 s apart from the Unix epoch (relative time)")
				}
				continue
			}
			for i, c := range cells { // positional: recognise time and UUID cells
				if tsCol < 0 && isSMITime(c) {
					tsCol = i
				}
				if uuidCol < 0 && strings.HasPrefix(c, "GPU-") {
					uuidCol = i
				}
			}
			if tsCol < 0 {
				b.Warn(ingest.ErrPartialInput, name, 1, "no timestamp column: samples placed 1 s apart from the Unix epoch (relative time)")
			}
		}
		if line == header {
			continue // repeated header (nvidia-smi -l prints it once, concatenations more)
		}
		if len(cells) != len(cols) {
			badRows++
			continue
		}
		rows++
		var t ingest.Time
		if tsCol >= 0 {
			var ok bool
			if t, ok = parseSMITime(cells[tsCol]); !ok {
				return nil, ingest.ErrorAt(name, lr.off, fmt.Errorf("nvidia-smi csv: bad timestamp %q", cells[tsCol]))
			}
		}
		cell := func(i int) string {
			if i < 0 {
				return ""
			}
			if _, _, k := parseSMICell(cells[i]); k == cellMissing || k == cellFailure {
				return ""
			}
			return cells[i]
		}
		idx := cell(idxCol)
		if idx == "" {
			idx = cell(busCol)
		}
		e := gpu.Entity(cell(uuidCol), cell(hostCol), idx)
		var labels ingest.Labels
		if pid := cell(pidCol); pid != "" {
			labels = append(labels, ingest.Label{Name: "pid", Value: pid})
			if p := cell(procCol); p != "" {
				labels = append(labels, ingest.Label{Name: "process", Value: p})
			}
		}
		rowKey := e.Name + "\x00" + labels.String()
		for i, c := range cols {
			if i == tsCol || i == uuidCol || smiSkipField(c.field) {
				continue
			}
			v, cu, k := parseSMICell(cells[i])
			switch k {
			case cellText:
				continue // a text column (e.g. "Enabled" states we do not map)
			case cellFailure:
				failures++
				if firstFailure == "" {
					firstFailure = fmt.Sprintf("%s=%s at line %d", c.field, cells[i], lr.line)
				}
			}
			unit := c.unit
			if unit == "" {
				unit = cu
			}
			unit, scale := smiUnitScale(unit)
			ck := smiCellKey{rowKey, i}
			s := bySeriesCell[ck] // ss.get, memoised per row identity and column
			if s == nil {
				s = ss.Get("nvidia_smi_"+metricName(c.field), append(ingest.Labels(nil), labels...), e, smiSignal(c.field), unit)
				bySeriesCell[ck] = s
			}
			st := t
			if tsCol < 0 {
				k := s.Name + s.Labels.String() + e.Name
				st = ingest.Time(int64(relative[k]) * int64(time.Second))
				relative[k]++
			}
			s.T = append(s.T, st)
			s.V = append(s.V, v*scale)
		}
	}
	if err := lr.sc.Err(); err != nil {
		return nil, ingest.ErrorAt(name, lr.next, fmt.Errorf("nvidia-smi csv: %w", err))
	}
	if cols == nil {
		return nil, ingest.ErrorAt(name, 0, errors.New("nvidia-smi csv: no header or data"))
	}
	if badRows > 0 {
		b.Warn(ingest.ErrBadValue, name, badRows, "%d rows with a cell count other than the header's %d skipped", badRows, len(cols))
	}
	if failures > 0 {
		b.Warn(ingest.ErrSourceWarning, name, failures, "nvidia-smi reported %d failed reads (first: %s)", failures, firstFailure)
	}
	_ = badCells
	b.Series = ss.NonEmpty()
	return b, nil
}

func isSMITime(c string) bool {
	_, ok := parseSMITime(c)
	return ok
}

// dmonColumn is one column of a dmon/pmon table.
type dmonColumn struct{ field, unit string }

// decodeNvidiaSmiDmon reads `nvidia-smi dmon` (device) and `nvidia-smi pmon`
// (per-process) tables. dmon columns become "nvidia_smi_dmon_<col>" series
// per GPU; pmon columns "nvidia_smi_pmon_<col>" per GPU and PID (labels pid,
// command, type), plus "nvidia_smi_pmon_process" = 1 for each sample in which
// a process was present, so that PIDs are kept even when their columns are "-".
// Its length is one line-oriented pass over header and rows, like
// decodeNvidiaSmiCSV.
func decodeNvidiaSmiDmon(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	b := &ingest.Bundle{}
	lr := newLineReader(r)
	ss := gpu.NewSeriesSet(name)
	var cols []dmonColumn
	pmon := false
	dateCol, timeCol, gpuCol, pidCol, typeCol, cmdCol := -1, -1, -1, -1, -1, -1
	relative := map[string]int{}
	headerSeen, unitsPending := false, false
	badRows := 0
	for {
		line, ok := lr.scan()
		if !ok {
			break
		}
		tl := strings.TrimSpace(line)
		if tl == "" {
			continue
		}
		if strings.HasPrefix(tl, "#") {
			f := strings.Fields(strings.TrimPrefix(tl, "#"))
			if len(f) == 0 {
				continue
			}
			if unitsPending {
				for i := range cols {
					if i < len(f) {
						cols[i].unit = f[i]
					}
				}
				unitsPending = false
				continue
			}
			if headerSeen && len(f) == len(cols) && strings.EqualFold(f[0], cols[0].field) {
				unitsPending = true // repeated header
				continue
			}
			if headerSeen {
				continue // another comment
			}
			cols = cols[:0]
			for i, c := range f {
				c = strings.ToLower(c)
				cols = append(cols, dmonColumn{field: c})
				switch c {
				case "date":
					dateCol = i
				case "time":
					timeCol = i
				case "gpu":
					gpuCol = i
				case "pid":
					pidCol, pmon = i, true
				case "type":
					typeCol = i
				case "command":
					cmdCol = i
				}
			}
			if gpuCol < 0 {
				return nil, ingest.ErrorAt(name, lr.off, fmt.Errorf("nvidia-smi dmon: header without a gpu column: %q", tl))
			}
			headerSeen, unitsPending = true, true
			if timeCol < 0 {
				b.Warn(ingest.ErrPartialInput, name, 1, "no Date/Time columns (dmon -o DT): samples placed 1 s apart from the Unix epoch (relative time)")
			}
			continue
		}
		if !headerSeen {
			return nil, ingest.ErrorAt(name, lr.off, errors.New("nvidia-smi dmon: data before the \"# gpu ...\" header"))
		}
		f := strings.Fields(tl)
		if cmdCol >= 0 && len(f) > len(cols) { // command names may hold spaces
			f = append(f[:cmdCol], strings.Join(f[cmdCol:], " "))
		}
		if len(f) != len(cols) {
			badRows++
			continue
		}
		idx := f[gpuCol]
		var labels ingest.Labels
		if pmon {
			if pidCol < 0 || f[pidCol] == "-" {
				continue // no process on this GPU in this sample
			}
			labels = ingest.Labels{{Name: "pid", Value: f[pidCol]}}
			if typeCol >= 0 {
				labels = append(labels, ingest.Label{Name: "type", Value: f[typeCol]})
			}
			if cmdCol >= 0 && f[cmdCol] != "-" {
				labels = append(labels, ingest.Label{Name: "command", Value: f[cmdCol]})
			}
		}
		var t ingest.Time
		if timeCol >= 0 {
			ds := "19700101"
			if dateCol >= 0 {
				ds = f[dateCol]
			}
			tt, err := time.Parse("20060102 15:04:05", ds+" "+f[timeCol])
			if err != nil {
				return nil, ingest.ErrorAt(name, lr.off, fmt.Errorf("nvidia-smi dmon: bad date/time %q %q", ds, f[timeCol]))
			}
			t = ingest.FromTime(tt)
		} else {
			k := idx + labels.String()
			t = ingest.Time(int64(relative[k]) * int64(time.Second))
			relative[k]++
		}
		e := gpu.Entity("", "", idx)
		prefix := "nvidia_smi_dmon_"
		if pmon {
			prefix = "nvidia_smi_pmon_"
			s := ss.Get(prefix+"process", append(ingest.Labels(nil), labels...), e, ingest.SignalOther, "")
			s.T, s.V = append(s.T, t), append(s.V, 1)
		}
		for i, c := range cols {
			if i == dateCol || i == timeCol || i == gpuCol || i == pidCol || i == typeCol || i == cmdCol {
				continue
			}
			v, _, k := parseSMICell(f[i])
			if k == cellText || k == cellFailure {
				v = math.NaN()
			}
			unit, scale := smiUnitScale(c.unit)
			s := ss.Get(prefix+metricName(c.field), append(ingest.Labels(nil), labels...), e, smiSignal(c.field), unit)
			s.T, s.V = append(s.T, t), append(s.V, v*scale)
		}
	}
	if err := lr.sc.Err(); err != nil {
		return nil, ingest.ErrorAt(name, lr.next, fmt.Errorf("nvidia-smi dmon: %w", err))
	}
	if !headerSeen {
		return nil, ingest.ErrorAt(name, 0, errors.New("nvidia-smi dmon: no \"# gpu ...\" header"))
	}
	if badRows > 0 {
		b.Warn(ingest.ErrBadValue, name, badRows, "%d rows with a column count other than the header's %d skipped", badRows, len(cols))
	}
	b.Series = ss.NonEmpty()
	return b, nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatNvidiaSmiDmon, Decode: decodeNvidiaSmiDmon,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityNvidiaSmiDmon, Match: func(h *ingest.Head) bool {
			t := h.Text
			return t[0] == '#' && (bytes.Contains(t[:min(len(t), 2048)], []byte("gpu")) && bytes.Contains(t[:min(len(t), 2048)], []byte("Idx")) ||
				bytes.HasPrefix(t, []byte("# gpu")))
		}}}})
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatNvidiaSmiCSV, Decode: decodeNvidiaSmiCSV,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityNvidiaSmiCSV, Match: func(h *ingest.Head) bool {
			first := h.FirstLine()
			return !h.JSON() && bytes.Count(first, []byte(",")) >= 1 && (bytes.Contains(first, []byte("index")) || bytes.Contains(first, []byte("uuid")) ||
				bytes.Contains(first, []byte("utilization.")) || bytes.Contains(first, []byte("timestamp")) || bytes.Contains(first, []byte("name"))) &&
				!bytes.Contains(first, []byte("{"))
		}}}})
}
