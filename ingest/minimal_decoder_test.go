package ingest

// The minimal decoder: what adding an input format takes, shown on a tiny
// made-up text format and registered through the same three tables the
// built-in formats use (docs/architecture.md, "Add a format"):
//
//  1. a Format value and its name (a built-in format adds a constant and
//     its name in ingest/model/model.go, formatNames; this test takes the
//     first value past them, whose name is "format(N)"),
//  2. a sniff rule that recognises the format from the first bytes, never
//     the file name, with its priority in the sniff order (sniff.go),
//  3. a decoder: a DecodeFunc that reads one input into a fresh Bundle,
//     sets Source on what it emits, classifies its series, respects the
//     Limits, returns positioned InputErrors for broken input and records
//     data-quality problems as warnings (FormatSpec.Decode, registered by
//     RegisterFormat from the decoder package's init).
//
// Read then does the rest for every format alike: the Input record (size,
// hash, counts, time range), merging, Finalize (alignment, entity matching,
// derived series) and Validate.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// kvHeader starts every kv-metrics file:
//
//	#kv-metrics
//	<unix seconds> <metric name> <service> <value>
//	...
const kvHeader = "#kv-metrics"

// decodeKV is the whole decoder of the kv-metrics format.
func decodeKV(name string, r io.Reader, lim Limits) (*Bundle, error) {
	lim = lim.WithDefaults()
	b := &Bundle{}
	byKey := map[string]*Series{}
	bad, dropped := 0, 0
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if line == 1 {
			if text != kvHeader {
				return nil, &InputError{File: name, Offset: 0, Line: 1, Column: 1, Err: fmt.Errorf("want %q first", kvHeader)}
			}
			continue
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, &InputError{File: name, Offset: -1, Line: line, Column: 1,
				Err: fmt.Errorf("want: unix-seconds metric service value, found %d fields", len(f))}
		}
		ts, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, &InputError{File: name, Offset: -1, Line: line, Column: 1, Err: fmt.Errorf("time %q: %w", f[0], err)}
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			v = math.NaN() // a data-quality problem, not a broken file: a warning
			bad++
		}
		key := f[1] + "\x00" + f[2]
		s := byKey[key]
		if s == nil {
			if len(byKey) >= lim.MaxSeries {
				dropped++
				continue
			}
			s = &Series{Name: f[1], Labels: Labels{{Name: "service", Value: f[2]}}, Source: name}
			ClassifySeries(s) // signal, statistic, unit and entity, as every metric decoder does
			byKey[key] = s
			b.Series = append(b.Series, s)
		}
		s.T = append(s.T, FromUnixSeconds(ts))
		s.V = append(s.V, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if bad > 0 {
		b.Warn(ErrBadValue, name, bad, "values that are not numbers (kept as NaN)")
	}
	if dropped > 0 {
		b.Warn(ErrLimit, name, dropped, "points of series beyond --max-series dropped")
	}
	return b, nil
}

// registerFormat takes the first Format value past the built-in ones and
// registers its decoder for the test's duration (the test must not run in parallel with others
// that read). A decoder package calls RegisterFormat from its init with a
// built-in Format constant and a priority from the table in sniff.go.
func registerFormat(t *testing.T, sniff func(head []byte) bool, decode DecodeFunc) Format {
	t.Helper()
	f := FormatOTLPLogsProto + 1
	RegisterFormat(FormatSpec{Format: f, Decode: decode, Sniff: []SniffRule{{Priority: 1, Match: func(h *Head) bool { return sniff(h.Raw) }}}})
	t.Cleanup(func() {
		unregisterFormat(f)
	})
	return f
}

func TestMinimalDecoder(t *testing.T) {
	kv := registerFormat(t, func(h []byte) bool { return bytes.HasPrefix(h, []byte(kvHeader+"\n")) },
		decodeKV)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var sb strings.Builder
	sb.WriteString(kvHeader + "\n")
	for i := range 40 {
		v := "0.120"
		if i == 7 {
			v = "n/a"
		}
		fmt.Fprintf(&sb, "%d checkout_request_duration_seconds checkout %s\n", 1_796_000_000+15*i, v)
		fmt.Fprintf(&sb, "%d checkout_requests_per_second checkout %d\n", 1_796_000_000+15*i, 40+i%3)
	}
	good := write("a.kv", sb.String())

	t.Run("sniffed by content", func(t *testing.T) {
		if got := Sniff([]byte(sb.String())); got != kv {
			t.Fatalf("Sniff = %v, want the kv-metrics format %v", got, kv)
		}
		if got := Sniff([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`)); got != FormatPromQueryRange {
			t.Errorf("a Prometheus file now sniffs as %v", got)
		}
	})
	t.Run("read like any format", func(t *testing.T) {
		b, err := Read([]string{good}, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if len(b.Inputs) != 1 || b.Inputs[0].Format != kv || b.Inputs[0].Counts.Series != 2 || b.Inputs[0].SHA256 == "" {
			t.Fatalf("input record %+v", b.Inputs)
		}
		var lat, traffic *Series
		for _, s := range b.Series {
			switch s.Name {
			case "checkout_request_duration_seconds":
				lat = s
			case "checkout_requests_per_second":
				traffic = s
			}
		}
		if lat == nil || traffic == nil {
			t.Fatalf("series %v", b.Series)
		}
		if lat.Signal != SignalLatency || traffic.Signal != SignalTraffic || lat.Entity.Kind != KindService || lat.Entity.Name != "checkout" {
			t.Errorf("classification: latency %v/%v, traffic %v", lat.Signal, lat.Entity, traffic.Signal)
		}
		if !lat.Aligned || b.Step.Seconds() != 15 {
			t.Errorf("not aligned on the 15 s grid: aligned %v, step %v", lat.Aligned, b.Step)
		}
		warned := false
		for _, w := range b.Warnings {
			warned = warned || errors.Is(w.Kind, ErrBadValue) && w.Count == 1
		}
		if !warned {
			t.Errorf("the bad value is no warning: %+v", b.Warnings)
		}
	})
	t.Run("positioned errors", func(t *testing.T) {
		broken := write("b.kv", kvHeader+"\n1796000000 x checkout 1\n1796000015 x checkout\n")
		_, err := Read([]string{broken}, nil, Options{})
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != broken || ie.Line != 3 {
			t.Fatalf("err = %v, want an InputError at %s line 3", err, broken)
		}
	})
}
