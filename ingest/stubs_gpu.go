package ingest

import (
	"errors"
	"io"
)

// placeholder until the GPU readers land.
func decodeNvidiaSmiCSV(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("nvidia-smi csv: not implemented")
}
func decodeNvidiaSmiDmon(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("nvidia-smi dmon: not implemented")
}
func decodeNVMLRecording(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("nvml recording: not implemented")
}
func decodeKineto(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("kineto: not implemented")
}
func decodeNsightSQLite(name, path string, lim Limits) (*Bundle, error) {
	return nil, errors.New("nsight sqlite: not implemented")
}
