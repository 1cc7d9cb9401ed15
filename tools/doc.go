// Package tools pins the external programs that the integration tests run
// (a real Jaeger v2) in a module of its own, so that the product's go.mod
// stays lean. Build the pinned Jaeger with
//
//	cd tools && go build -o "$HOME/.cache/pipeline-analyze/jaeger-v1.76.0" github.com/jaegertracing/jaeger/cmd/jaeger
//
// scripts/live-services.sh does this (and caches the binary by version).
package tools
