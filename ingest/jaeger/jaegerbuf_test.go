package jaeger

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
)

// bufSpans are spans in Jaeger's own shape (spanBuf reads them) and near it.
var bufSpans = []string{
	`{"traceID":"dfa31798eedbf9048ebeaedb1b2b67d9","spanID":"22b3d98aff76dc58","flags":1,"operationName":"POST /v1/chat","references":[],"startTime":1796004120017851,"duration":5409959,"tags":[{"key":"span.kind","type":"string","value":"server"},{"key":"http.status_code","type":"int64","value":200},{"key":"llm.streaming","type":"bool","value":true},{"key":"ttft","type":"float64","value":0.0683833},{"key":"n","type":"string","value":null},{"key":"f","type":"bool","value":false}],"logs":[],"processID":"p1","warnings":null}`,
	`{"traceID":"dfa31798eedbf9048ebeaedb1b2b67d9","spanID":"18e2cc10a86d5335","flags":1,"operationName":"router.schedule","references":[{"refType":"CHILD_OF","traceID":"dfa31798eedbf9048ebeaedb1b2b67d9","spanID":"22b3d98aff76dc58"},{"refType":"FOLLOWS_FROM","spanID":"1"}],"startTime":-5,"duration":0,"tags":[],"logs":[],"processID":"p2","warnings":[]}`,
	`{"spanID":"1","operationName":"","startTime":1,"tags":[{"key":"k","value":-1.5e3}]}`,
	`{"traceID":"1","spanID":"2","parentSpanID":"3","startTime":4}`,
	`{"traceID":"1","spanID":"2","logs":[{"timestamp":1}],"warnings":["w"]}`,
	`{"traceID":"1","traceID":"2"}`,
	`{"spanID":"1","traceID":"2"}`,
	`{}`,
}

// walkSpan reads in with spanWalk (the general fast path) and returns the
// span, where it stopped and whether it succeeded.
func walkSpan(in []byte, maxTok int64, maxDepth int) (jSpan, int, bool) {
	s := &fastjson.Scanner{Buf: in, EOF: true, Keep: -1, MaxTok: maxTok, MaxDepth: maxDepth}
	var js jSpan
	ok := spanWalk(s, &js)
	return js, s.Pos(), ok
}

// checkSpanBuf fails t where spanBuf accepts in but reads a span other
// than spanWalk's or stops elsewhere; it reports whether spanBuf accepted.
func checkSpanBuf(t *testing.T, in []byte, maxTok int64, maxDepth int) bool {
	var got jSpan
	n := spanBuf(in, &got, maxTok, maxDepth)
	if n < 0 {
		return false
	}
	want, pos, ok := walkSpan(in, maxTok, maxDepth)
	if !ok || pos != n || !reflect.DeepEqual(got, want) {
		t.Errorf("maxTok %d maxDepth %d, %q:\nspanBuf %d %+v\nspanWalk %v %d %+v", maxTok, maxDepth, in, n, got, ok, pos, want)
	}
	return true
}

// TestSpanBufMatchesWalk checks spanBuf against spanWalk on spans of
// Jaeger's shape and on every truncation and many one-byte edits of them,
// under several bounds: where spanBuf reads a span, it is spanWalk's, and
// it reads the usual shape.
func TestSpanBufMatchesWalk(t *testing.T) {
	edits := []string{"", " ", `"`, `\`, "{", "}", "[", "]", ",", ":", "0", "-", ".", "e", "x", "n", "\x80", "\x01", `""`, `"k":1,`}
	for i, sp := range bufSpans {
		for _, lim := range []struct {
			tok   int64
			depth int
		}{{0, 100}, {0, 3}, {20, 4}, {4, 100}} {
			if ok := checkSpanBuf(t, []byte(sp+","), lim.tok, lim.depth); i < 3 && lim.tok == 0 && lim.depth == 100 && !ok {
				t.Errorf("spanBuf declines %s", sp)
			}
			for n := 0; n < len(sp); n++ {
				checkSpanBuf(t, []byte(sp[:n]), lim.tok, lim.depth)
			}
			for p := 0; p < len(sp); p++ {
				for _, e := range edits {
					checkSpanBuf(t, []byte(sp[:p]+e+sp[p+1:]+"]"), lim.tok, lim.depth)
					checkSpanBuf(t, []byte(sp[:p]+e+sp[p:]+"]"), lim.tok, lim.depth)
				}
			}
		}
	}
	many := `{"references":[` + strings.Repeat(`{"spanID":"1"},`, maxSpanRefs) + `{"spanID":"2"}]}`
	if checkSpanBuf(t, []byte(many+","), 0, 100) {
		t.Error("spanBuf reads a span with more than maxSpanRefs references")
	}
}

// FuzzSpanBuf: on any input, a span spanBuf reads is the one spanWalk
// reads, ending at the same byte.
func FuzzSpanBuf(f *testing.F) {
	for _, sp := range bufSpans {
		f.Add([]byte(sp+","), int64(0), 100)
	}
	f.Fuzz(func(t *testing.T, in []byte, maxTok int64, maxDepth int) {
		checkSpanBuf(t, in, maxTok, maxDepth)
	})
}

// TestTypeAtMatchesHint: where typeAt matches a tag's "type" member, the
// comma, the hint and StrAt read the same type and end at the same byte.
func TestTypeAtMatchesHint(t *testing.T) {
	var cases []string
	for _, typ := range []string{"string", "int64", "float64", "bool", "binary", "strin", "strings", "bin", "b", "", "s\\u0074ring", "int64 "} {
		for _, after := range []string{`,"value":1}`, `}`, ``, `"`} {
			cases = append(cases, `,"type":"`+typ+`"`+after, ` "type":"`+typ+`"`+after, `,"type" :"`+typ+`"`+after)
		}
	}
	for _, in := range cases {
		for _, tok := range []int64{0, 3, 5, 6, 100} {
			b := []byte(in)
			end, typ := typeAt(b, 0, tok)
			if end < 0 {
				continue
			}
			ok := len(b) > 0 && b[0] == ',' && tagHints.Match(b[1:], tType, tok) == tType
			var want string
			wantEnd := -1
			if ok {
				want, wantEnd = bufStr(b, 1+tagHints.Len(tType), tok)
			}
			if end != wantEnd || typ != want {
				t.Errorf("maxTok %d, %q: typeAt %d %q; the loop %d %q", tok, in, end, typ, wantEnd, want)
			}
		}
	}
	if end, typ := typeAt([]byte(`,"type":"float64","value":1}`), 0, 0); end != 17 || typ != "float64" {
		t.Errorf("typeAt declines float64: %d %q", end, typ)
	}
	if end, _ := typeAt([]byte(`,"type":"string"`), -1, 0); end != -1 {
		t.Error("typeAt reads at -1")
	}
}

// TestSameStrMatchesBufStr: where sameStr takes the string at b[p] for a
// plain v, bufStr reads v there and ends at the same byte.
func TestSameStrMatchesBufStr(t *testing.T) {
	vs := []string{"", "a", "dfa31798eedbf9048ebeaedb1b2b67d9", "abc"}
	ins := []string{`"abc"`, `"abc",`, `"abcd",`, `"ab"`, `""`, `"",`, `"dfa31798eedbf9048ebeaedb1b2b67d9"}`, `abc"`, `"abc`, `"a"bc"`, `"`, ``}
	for _, v := range vs {
		for _, in := range ins {
			for _, tok := range []int64{0, int64(max(len(v), 1))} {
				b := []byte(in)
				end := sameStr(b, 0, v)
				if end < 0 {
					continue
				}
				got, wantEnd := bufStr(b, 0, tok)
				if got != v || wantEnd != end {
					t.Errorf("%q, v %q: sameStr %d; bufStr %q %d", in, v, end, got, wantEnd)
				}
			}
		}
	}
}

// TestHintIndices: the index constants spanBuf, refsBuf and tagsBuf
// switch on name the keys of spanHints, refHints and tagHints.
func TestHintIndices(t *testing.T) {
	pad := strings.Repeat(" ", 16)
	for _, c := range []struct {
		hints interface{ At([]byte, int) bool }
		key   string
		j     int
	}{
		{spanHints, "traceID", hTraceID}, {spanHints, "spanID", hSpanID}, {spanHints, "flags", hFlags},
		{spanHints, "operationName", hOperationName}, {spanHints, "references", hReferences}, {spanHints, "startTime", hStartTime},
		{spanHints, "duration", hDuration}, {spanHints, "tags", hTags}, {spanHints, "logs", hLogs},
		{spanHints, "processID", hProcessID}, {spanHints, "warnings", hWarnings},
		{refHints, "refType", rRefType}, {refHints, "traceID", rTraceID}, {refHints, "spanID", rSpanID},
		{tagHints, "key", tKey}, {tagHints, "type", tType}, {tagHints, "value", tValue},
	} {
		if !c.hints.At([]byte(`"`+c.key+`":`+pad), c.j) {
			t.Errorf("hint %d is not %q", c.j, c.key)
		}
	}
}
