package live

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// TransportOptions configure the HTTP client of one endpoint. The zero value
// is usable: no auth, system CAs, 30 s per request, 2 retries.
type TransportOptions struct {
	BearerToken        string        // sent as "Authorization: Bearer ..." (never logged)
	BasicUser          string        // basic auth user (with BasicPassword)
	BasicPassword      string        // never logged
	CAFile             string        // PEM file of extra root CAs
	InsecureSkipVerify bool          // do not verify the server certificate
	Timeout            time.Duration // per request, 0 = 30 s
	Retries            int           // extra attempts after the first, < 0 = none
	Backoff            time.Duration // first retry delay, doubled each retry; 0 = 250 ms
	UserAgent          string        // default "pipeline-analyze"
}

// maxBody bounds one response (a Jaeger search of many traces can be large).
const maxBody = 512 << 20

// Client talks to one endpoint (a Jaeger or a Prometheus).
type Client struct {
	base *url.URL // without userinfo
	hc   *http.Client
	opt  TransportOptions
	// sleep waits between retries; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewClient returns a client for the base URL. Userinfo in the URL
// (https://user:pass@host) becomes basic auth and is removed from the URL so
// that it cannot leak into errors or files.
func NewClient(base string, opt TransportOptions) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url %q: want http(s)://host[:port][/prefix]", redactRaw(base))
	}
	if u.User != nil {
		if opt.BasicUser == "" && opt.BearerToken == "" {
			opt.BasicUser = u.User.Username()
			opt.BasicPassword, _ = u.User.Password()
		}
		u.User = nil
	}
	u.RawQuery, u.Fragment = "", ""
	if opt.Timeout <= 0 {
		opt.Timeout = 30 * time.Second
	}
	if opt.Backoff <= 0 {
		opt.Backoff = 250 * time.Millisecond
	}
	if opt.Retries < 0 {
		opt.Retries = 0
	}
	if opt.UserAgent == "" {
		opt.UserAgent = "pipeline-analyze"
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	if opt.CAFile != "" || opt.InsecureSkipVerify {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: opt.InsecureSkipVerify} //nolint:gosec // explicit user choice
		if opt.CAFile != "" {
			pem, err := os.ReadFile(opt.CAFile)
			if err != nil {
				return nil, fmt.Errorf("ca file: %w", err)
			}
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("ca file %s: no PEM certificate found", opt.CAFile)
			}
			cfg.RootCAs = pool
		}
		tr.TLSClientConfig = cfg
	}
	return &Client{base: u, hc: &http.Client{Transport: tr}, opt: opt, sleep: sleepCtx}, nil
}

// URL returns the base URL without credentials (safe to print and save).
func (c *Client) URL() string { return c.base.String() }

// StatusError is a non-2xx answer.
type StatusError struct {
	Code int
	URL  string // redacted
	Body string // the first bytes of the body
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("GET %s: HTTP %d", e.URL, e.Code)
	}
	return fmt.Sprintf("GET %s: HTTP %d: %s", e.URL, e.Code, e.Body)
}

// retryable reports whether an answer with this status may succeed later.
func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout || code == http.StatusInternalServerError
}

// Get fetches path (relative to the base URL) with the query q.
func (c *Client) Get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	return c.do(ctx, http.MethodGet, path, q)
}

// PostForm posts q form-encoded to path (Prometheus accepts query_range so,
// which keeps long PromQL out of URLs and logs).
func (c *Client) PostForm(ctx context.Context, path string, q url.Values) ([]byte, error) {
	return c.do(ctx, http.MethodPost, path, q)
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values) ([]byte, error) {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	var body string
	if method == http.MethodGet {
		u.RawQuery = q.Encode()
	} else {
		body = q.Encode()
	}
	shown := u.Path // errors name the path only, never the query (it may be long)
	var last error
	delay := c.opt.Backoff
	for attempt := 0; attempt <= c.opt.Retries; attempt++ {
		if attempt > 0 {
			if err := c.sleep(ctx, delay); err != nil {
				return nil, fmt.Errorf("%s %s: %w (after %v)", method, shown, err, last)
			}
			delay *= 2
		}
		data, code, err := c.once(ctx, method, u.String(), body)
		if err == nil && code/100 == 2 {
			return data, nil
		}
		if err != nil {
			last = fmt.Errorf("%s %s: %w", method, shown, scrub(err))
			if ctx.Err() != nil {
				return nil, last
			}
			continue
		}
		snippet := strings.TrimSpace(string(data[:min(len(data), 200)]))
		last = &StatusError{Code: code, URL: shown, Body: snippet}
		if !retryable(code) {
			return data, last
		}
	}
	if c.opt.Retries > 0 {
		return nil, fmt.Errorf("%w (gave up after %d attempts)", last, c.opt.Retries+1)
	}
	return nil, last
}

// once performs one attempt with its own timeout.
func (c *Client) once(ctx context.Context, method, u, body string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, 0, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.opt.UserAgent)
	switch {
	case c.opt.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+c.opt.BearerToken)
	case c.opt.BasicUser != "":
		req.SetBasicAuth(c.opt.BasicUser, c.opt.BasicPassword)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read body: %w", err)
	}
	if len(data) > maxBody {
		return nil, 0, fmt.Errorf("response larger than %d MiB", maxBody>>20)
	}
	return data, resp.StatusCode, nil
}

// scrub drops the URL from a *url.Error (its query may be long) and keeps
// the cause, which never contains credentials (they live in headers).
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		var ne net.Error
		if errors.As(ue.Err, &ne) && ne.Timeout() {
			return fmt.Errorf("timeout: %w", ue.Err)
		}
		return ue.Err
	}
	return err
}

// redactRaw removes userinfo from a URL string that failed to parse well.
func redactRaw(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	if i := strings.Index(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "xxxxx@" + s[i+1:]
		}
	}
	return s
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
