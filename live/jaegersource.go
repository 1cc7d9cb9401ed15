package live

import (
	"context"
	"errors"
	"fmt"
)

// fetchJaegerAPIs runs the trace fetch over the configured Jaeger APIs:
// gRPC (api_v3, then api_v2, or the one opt.JaegerGRPCAPI names) when a
// gRPC endpoint is given, falling back to HTTP (api_v3, then v1) when it is
// refused; HTTP alone otherwise. It
// returns the HTTP client (whose Redact removes the credentials from any
// text) and sets mj.URL to the endpoint the traces came from. Errors are
// redacted.
func fetchJaegerAPIs(ctx context.Context, opt Options, jopt JaegerOptions, mj *ManifestJaeger) (*Client, *JaegerResult, error) {
	grpcEP := opt.JaegerGRPC
	if grpcEP == "" && IsGRPCURL(opt.JaegerURL) {
		grpcEP = opt.JaegerURL
	}
	if grpcEP == "" {
		c, err := NewClient(opt.JaegerURL, opt.Transport)
		if err != nil {
			return nil, nil, err
		}
		mj.URL = c.URL()
		res, err := FetchJaeger(ctx, c, jopt)
		if err != nil {
			return c, nil, errors.New(c.Redact(err.Error()))
		}
		return c, res, nil
	}
	target, useTLS, httpURL, err := JaegerGRPCTarget(grpcEP)
	if err != nil {
		return nil, nil, err
	}
	if opt.JaegerURL != "" && !IsGRPCURL(opt.JaegerURL) {
		httpURL = opt.JaegerURL
	}
	c, err := NewClient(httpURL, opt.Transport)
	if err != nil {
		return nil, nil, fmt.Errorf("jaeger HTTP fallback: %w", err)
	}
	g, err := dialJaegerGRPC(target, useTLS, opt.Transport, c.Redact)
	if err != nil {
		return c, nil, errors.New(c.Redact(err.Error()))
	}
	defer g.conn.Close()
	origin := grpcOrigin(target, useTLS)
	mj.URL = origin
	var chain []backend
	switch opt.JaegerGRPCAPI {
	case "v2":
		chain = []backend{grpcV2{g}, v3{c}, v1{c}}
	case "v3":
		chain = []backend{grpcV3{g}, v3{c}, v1{c}}
	default: // api_v3 first: on Jaeger v2 it streams the stored OTLP as is (measured 5-25x faster than api_v2, docs/performance.md)
		chain = []backend{grpcV3{g}, grpcV2{g}, v3{c}, v1{c}}
	}
	res, err := fetchJaeger(ctx, jopt, chain, origin)
	if err != nil {
		return c, nil, errors.New(c.Redact(err.Error()))
	}
	if res.API == "v3" || res.API == "v1" {
		mj.URL = c.URL()
	}
	return c, res, nil
}
