package live

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
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
	// MaxBody bounds one response, counted after decompression (a gzip
	// bomb stops there); 0 = DefaultMaxBody.
	MaxBody int64
	// Secrets are removed (as "[REDACTED]") from every text the client
	// returns: error messages, quoted server bodies, response data. The
	// credentials above are always among them.
	Secrets []string
	// OrgID, when set, is sent as X-Scope-OrgID (the tenant of Grafana
	// Tempo, Loki and Mimir) with every request.
	OrgID string
}

// DefaultMaxBody bounds one response unless TransportOptions.MaxBody says
// otherwise.
const DefaultMaxBody = 32 << 20

// DefaultTimeout is TransportOptions.Timeout's default: one request's
// deadline.
const DefaultTimeout = 30 * time.Second

// maxRetryAfter is the longest Retry-After the client waits for.
const maxRetryAfter = 30 * time.Second

// maxRedirects is how many redirects one request follows.
const maxRedirects = 5

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
		pass, hasPass := u.User.Password()
		switch {
		case opt.BasicUser == "" && opt.BearerToken == "":
			opt.BasicUser, opt.BasicPassword = u.User.Username(), pass
		case opt.BasicUser == "" && !hasPass && u.User.Username() != "":
			// Grafana Cloud: basic auth with the instance ID as the user
			// (in the URL) and the access token (--token-file/--token-env)
			// as the password.
			opt.BasicUser, opt.BasicPassword, opt.BearerToken = u.User.Username(), opt.BearerToken, ""
		}
		u.User = nil
	}
	u.RawQuery, u.Fragment = "", ""
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
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
	if opt.MaxBody <= 0 {
		opt.MaxBody = DefaultMaxBody
	}
	opt.Secrets = append(append([]string(nil), opt.Secrets...), SecretForms(opt.BearerToken)...)
	if opt.BasicPassword != "" {
		opt.Secrets = append(opt.Secrets, SecretForms(opt.BasicPassword)...)
		opt.Secrets = append(opt.Secrets, SecretForms(opt.BasicUser+":"+opt.BasicPassword)...)
	}
	sort.SliceStable(opt.Secrets, func(i, j int) bool { return len(opt.Secrets[i]) > len(opt.Secrets[j]) })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	if opt.CAFile != "" || opt.InsecureSkipVerify {
		cfg, err := tlsConfig(opt)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = cfg
	}
	c := &Client{base: u, opt: opt, sleep: sleepCtx}
	c.hc = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	return c, nil
}

// tlsConfig is the TLS configuration of opt: TLS 1.2 or later, the
// system's roots plus --ca-file's certificates (read bounded), and the
// user's explicit choice to skip verification.
func tlsConfig(opt TransportOptions) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: opt.InsecureSkipVerify} //nolint:gosec // explicit user choice
	if opt.CAFile == "" {
		return cfg, nil
	}
	pem, err := boundedfile.ReadFile(opt.CAFile, maxCABytes, "")
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
	return cfg, nil
}

// checkRedirect follows at most maxRedirects redirects, and strips the
// credentials from any hop whose scheme, host or port differs from the
// configured endpoint's (curl's CVE-2022-27776: a redirect to another port
// of the same host must not get the token). The Go client itself only
// compares host names.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects (last to %s)", maxRedirects, req.URL.Redacted())
	}
	if !sameOrigin(req.URL, c.base) {
		req.Header.Del("Authorization")
		req.Header.Del("Proxy-Authorization")
		req.Header.Del("Cookie")
	}
	return nil
}

// sameOrigin compares scheme, host and port (default ports made explicit).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// SecretForms are the forms of a secret that a server may echo: as is, in
// base64 (standard and URL alphabets, padded or not) and URL-escaped. A
// secret shorter than MinSecret has none: redacting it would blank out
// ordinary words.
func SecretForms(s string) []string {
	if len(s) < MinSecret {
		return nil
	}
	b := []byte(s)
	return []string{s, base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b), url.QueryEscape(s), url.PathEscape(s)}
}

// Redact removes every secret of the client's options from s.
func (c *Client) Redact(s string) string {
	for _, x := range c.opt.Secrets {
		if x != "" && strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, "[REDACTED]")
		}
	}
	return s
}

// MinSecret is the length below which a secret is not redacted.
const MinSecret = 4

// minDataSecret is the length below which a secret is not redacted from
// response data (where a short one could match ordinary JSON).
const minDataSecret = 8

// redactBytes is Redact for response data (copied only when it holds one).
func (c *Client) redactBytes(b []byte) []byte {
	for _, x := range c.opt.Secrets {
		if len(x) >= minDataSecret && bytes.Contains(b, []byte(x)) {
			b = bytes.ReplaceAll(b, []byte(x), []byte("[REDACTED]"))
		}
	}
	return b
}

// URL returns the base URL without credentials (safe to print and save).
func (c *Client) URL() string { return c.base.String() }

// StatusError is a non-2xx answer.
type StatusError struct {
	Method string // GET or POST ("" = GET)
	Code   int
	URL    string // redacted
	Body   string // the first bytes of the body, secrets redacted
}

func (e *StatusError) Error() string {
	m := e.Method
	if m == "" {
		m = http.MethodGet
	}
	if e.Body == "" {
		return fmt.Sprintf("%s %s: HTTP %d", m, e.URL, e.Code)
	}
	return fmt.Sprintf("%s %s: HTTP %d: %s", m, e.URL, e.Code, e.Body)
}

// retryable reports whether an answer with this status may succeed later.
func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout || code == http.StatusInternalServerError
}

// Get fetches path (relative to the base URL) with the query q.
func (c *Client) Get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	data, _, err := c.do(ctx, http.MethodGet, path, q, "application/json")
	return data, err
}

// GetAs fetches path asking for the media types in accept, and returns the
// answer's Content-Type with it (Tempo answers protobuf or JSON).
func (c *Client) GetAs(ctx context.Context, path string, q url.Values, accept string) ([]byte, string, error) {
	return c.do(ctx, http.MethodGet, path, q, accept)
}

// PostForm posts q form-encoded to path (Prometheus accepts query_range so,
// which keeps long PromQL out of URLs and logs).
func (c *Client) PostForm(ctx context.Context, path string, q url.Values) ([]byte, error) {
	data, _, err := c.do(ctx, http.MethodPost, path, q, "application/json")
	return data, err
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, accept string) ([]byte, string, error) {
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
				return nil, "", fmt.Errorf("%s %s: %w (after %v)", method, shown, err, last)
			}
			delay *= 2
		}
		data, code, hdr, err := c.once(ctx, method, u.String(), body, accept)
		if err == nil && code/100 == 2 {
			return c.redactBytes(data), hdr.Get("Content-Type"), nil
		}
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, "", fmt.Errorf("%s %s: stopped at the fetch deadline", method, shown)
			}
			last = fmt.Errorf("%s %s: %s", method, shown, c.Redact(scrub(err).Error()))
			if ctx.Err() != nil {
				return nil, "", last
			}
			continue
		}
		snippet := c.Redact(strings.TrimSpace(strings.ToValidUTF8(string(data[:min(len(data), 200)]), "?")))
		last = &StatusError{Method: method, Code: code, URL: shown, Body: snippet}
		if !retryable(code) {
			return c.redactBytes(data), "", last
		}
		if ra, ok := retryAfter(hdr.Get("Retry-After"), time.Now()); ok && attempt < c.opt.Retries {
			if dl, has := ctx.Deadline(); has && time.Until(dl) < ra {
				return nil, "", fmt.Errorf("%w (Retry-After %v is past the fetch deadline)", last, ra)
			}
			delay = max(min(ra, maxRetryAfter), delay)
		}
	}
	if c.opt.Retries > 0 {
		return nil, "", fmt.Errorf("%w (gave up after %d attempts)", last, c.opt.Retries+1)
	}
	return nil, "", last
}

// readBounded reads r to its end or to max bytes, whichever is first. Unlike
// io.ReadAll of an io.LimitReader it never holds more than max bytes of
// capacity (ReadAll doubles its buffer, to 2×max at the last byte).
func readBounded(r io.Reader, max int64) ([]byte, error) {
	buf := make([]byte, 0, min(max, 64<<10))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= max {
				return buf, nil
			}
			nb := make([]byte, len(buf), min(max, int64(cap(buf))*2))
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Duration(min(n, 86400)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// once performs one attempt with its own timeout. The body is read up to
// opt.MaxBody bytes after decompression.
func (c *Client) once(ctx context.Context, method, u, body, accept string) ([]byte, int, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, 0, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", c.opt.UserAgent)
	if c.opt.OrgID != "" {
		req.Header.Set("X-Scope-OrgID", c.opt.OrgID)
	}
	switch {
	case c.opt.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+c.opt.BearerToken)
	case c.opt.BasicUser != "":
		req.SetBasicAuth(c.opt.BasicUser, c.opt.BasicPassword)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, nil, err
	}
	defer resp.Body.Close()
	size := c.opt.MaxBody
	if resp.StatusCode/100 != 2 {
		size = min(size, 64<<10) // an error page: its first bytes say enough
	}
	data, err := readBounded(resp.Body, size+1)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("timeout after %v reading the body (%d bytes arrived): %w", c.opt.Timeout, len(data), err)
		}
		return nil, 0, nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(data)) > size {
		if resp.StatusCode/100 != 2 {
			return data[:size], resp.StatusCode, resp.Header, nil
		}
		return nil, 0, nil, fmt.Errorf("response larger than %d MiB (after decompression; --max-response-size)", c.opt.MaxBody>>20)
	}
	return data, resp.StatusCode, resp.Header, nil
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
