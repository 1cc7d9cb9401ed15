package jaeger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// jaegerDep is one element of Jaeger's /api/dependencies answer. callCount
// is accepted as a number or a numeric string.
type jaegerDep struct {
	Parent    string          `json:"parent"`
	Child     string          `json:"child"`
	CallCount json.RawMessage `json:"callCount"`
}

// decodeDependencies reads Jaeger's /api/dependencies JSON, either the
// envelope {"data":[{"parent","child","callCount"}], ...} or a bare array of
// the same objects, into Bundle.Deps in input order. Edges with an empty
// parent or child are dropped with one ErrBadValue warning; a call count
// that is not a non-negative integer is a positioned *InputError.
func decodeDependencies(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, ingest.JSONError(name, err, dec)
	}
	raw = bytes.TrimSpace(raw)
	var deps []jaegerDep
	if len(raw) > 0 && raw[0] == '{' {
		var env struct {
			Data   []jaegerDep     `json:"data"`
			Errors json.RawMessage `json:"errors"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
		if e := bytes.TrimSpace(env.Errors); len(e) > 0 && !bytes.Equal(e, []byte("null")) && !bytes.Equal(e, []byte("[]")) {
			return nil, &ingest.InputError{File: name, Offset: -1, Err: fmt.Errorf("jaeger dependencies: errors in response: %s", e)}
		}
		deps = env.Data
	} else if err := json.Unmarshal(raw, &deps); err != nil {
		return nil, ingest.JSONError(name, err, nil)
	}
	b := &ingest.Bundle{}
	empty := 0
	for i, d := range deps {
		n, err := parseCallCount(d.CallCount)
		if err != nil {
			return nil, &ingest.InputError{File: name, Offset: -1, Err: fmt.Errorf("jaeger dependencies: edge %d (%s->%s): %w", i, d.Parent, d.Child, err)}
		}
		p, c := strings.TrimSpace(d.Parent), strings.TrimSpace(d.Child)
		if p == "" || c == "" {
			empty++
			continue
		}
		b.Deps = append(b.Deps, ingest.Dependency{Parent: p, Child: c, CallCount: n, Source: name})
	}
	if empty > 0 {
		b.Warn(ingest.ErrBadValue, name, empty, "%d dependency edges without parent or child dropped", empty)
	}
	return b, nil
}

// parseCallCount accepts 12, 12.0 and "12"; absent means 0.
func parseCallCount(raw json.RawMessage) (int64, error) {
	s := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	if s == "" || s == "null" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("negative callCount %d", n)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != float64(int64(f)) {
		return 0, errors.New("callCount " + strconv.Quote(s) + " is not a non-negative integer")
	}
	return int64(f), nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatJaegerDependencies, Decode: decodeDependencies, WholeDocument: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityJaegerDeps, Match: func(h *ingest.Head) bool { return h.JSON() && h.Has("parent") && h.Has("child") && h.Has("callCount") }}}})
}
