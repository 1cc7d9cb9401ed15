package ingest

import (
	"errors"
	"io"
)

// placeholder until the Prometheus/Alertmanager/k8s/dependency readers land.
func decodeDependencies(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("dependencies: not implemented")
}
func decodePromQueryRange(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("prometheus: not implemented")
}
func decodeAlertmanager(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("alertmanager: not implemented")
}
func decodeK8sEvents(name string, r io.Reader, lim Limits) (*Bundle, error) {
	return nil, errors.New("k8s events: not implemented")
}
