package live

import (
	"context"
	"errors"
	"fmt"
)

// fetchJaegerAPIs runs the trace fetch over the configured Jaeger APIs:
// gRPC (api_v2, then api_v3) when a gRPC endpoint is given, falling back
// to HTTP (api_v3, then v1) when it is refused; HTTP alone otherwise. It
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
	res, err := fetchJaeger(ctx, jopt, []backend{grpcV2{g}, grpcV3{g}, v3{c}, v1{c}}, origin)
	if err != nil {
		return c, nil, errors.New(c.Redact(err.Error()))
	}
	if res.API == "v3" || res.API == "v1" {
		mj.URL = c.URL()
	}
	return c, res, nil
}
