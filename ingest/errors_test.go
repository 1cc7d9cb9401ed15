package ingest

import (
	"errors"
	"testing"
)

// TestInputErrorOneLine: an input error stays one line even when its cause
// quotes input with line breaks (found by FuzzReadFile).
func TestInputErrorOneLine(t *testing.T) {
	tests := []struct {
		err  *InputError
		want string
	}{
		{&InputError{File: "a.json", Offset: 0, Err: errors.New("found {, context ...|{}\n}|...")}, `a.json: byte 0: found {, context ...|{}\n}|...`},
		{&InputError{File: "a.json", Line: 2, Column: 3, Err: errors.New("x\r\ny\rz")}, `a.json:2:3: x\r\ny\rz`},
		{&InputError{File: "a.json", Offset: -1, Err: nil}, `a.json: <nil>`},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
