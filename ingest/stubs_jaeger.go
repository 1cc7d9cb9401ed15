package ingest

import (
	"errors"
	"io"
)

// placeholder until the Jaeger/OTLP readers land.
func decodeJaeger(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("jaeger: not implemented")
}
func decodeOTLP(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("otlp: not implemented")
}
