// Package netguard is the one guard for outbound calls to user-supplied URLs
// (MCP servers, crawled pages, image URLs the server fetches). It refuses
// private, loopback, link-local and other non-public addresses unless the
// operator allows them. The check runs on the address actually dialled, after
// DNS resolution, so a hostname that resolves (or re-resolves) to a private
// address is refused too.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"
)

// Policy says which destinations are allowed.
type Policy struct {
	// AllowPrivate allows private (RFC 1918, ULA), loopback and link-local
	// destinations: intranet crawling and local MCP servers.
	AllowPrivate bool
	// AllowLoopback allows only loopback on top of public addresses (tests).
	AllowLoopback bool
	// Allow lists extra allowed prefixes (for example one intranet subnet).
	Allow []netip.Prefix
	// Egress is the dialer every connection goes through (nil: open mode,
	// nothing recorded); Feature labels its connections in the record.
	Egress  *Egress
	Feature string
}

// ErrRefused is wrapped by every refusal.
var ErrRefused = errors.New("destination refused by the outbound address policy")

// CheckAddr reports whether dialling ip is allowed. An IPv6 address that
// embeds an IPv4 one (NAT64, IPv4-compatible, 6to4, Teredo, SIIT) is
// judged by the IPv4 address it leads to. The refusal names no address:
// the caller sees "not a public address", never what a name resolved to.
func (p Policy) CheckAddr(ip netip.Addr) error {
	ip = ip.Unmap()
	for _, pre := range p.Allow {
		if pre.Contains(ip) {
			return nil
		}
	}
	if v4s, ok := embeddedIPv4(ip); ok {
		for _, v4 := range v4s {
			if err := p.CheckAddr(v4); err != nil {
				return err
			}
		}
		return nil
	}
	if ip.IsLoopback() && (p.AllowLoopback || p.AllowPrivate) {
		return nil
	}
	if p.AllowPrivate && (ip.IsPrivate() || ip.IsLinkLocalUnicast() || siteLocal.Contains(ip)) {
		return nil
	}
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || siteLocal.Contains(ip) || isSpecial(ip) {
		return errNotPublic
	}
	return nil
}

// errNotPublic is the refusal of a non-public destination.
var errNotPublic = fmt.Errorf("%w: not a public address (the operator can allow private destinations with HEARTH_OUTBOUND_ALLOW_PRIVATE or HEARTH_OUTBOUND_ALLOW)", ErrRefused)

// siteLocal is the deprecated IPv6 site-local range (RFC 3879), private in
// practice; netip does not count it as private.
var siteLocal = netip.MustParsePrefix("fec0::/10")

var special = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("169.254.0.0/16"), // link-local (cloud metadata)
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("255.255.255.255/32"),
}

func isSpecial(ip netip.Addr) bool {
	for _, p := range special {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// CheckURL validates a user-supplied URL: http(s) only, with a host. The
// address check itself happens when dialling.
func CheckURL(field, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: %q is not an absolute http(s) URL", field, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s: URLs with credentials are not allowed", field)
	}
	return u, nil
}

// Transport returns an HTTP transport that only dials allowed addresses,
// through the egress dialer (Egress) under the feature name Feature.
// Proxies from the environment are not used: they would bypass the check.
func (p Policy) Transport() *http.Transport {
	guard := p
	feature := p.Feature
	if feature == "" {
		feature = "outbound"
	}
	return &http.Transport{
		DialContext: func(ctx context.Context, n, a string) (net.Conn, error) {
			c, err := p.Egress.dial(ctx, n, a, feature, &guard, 10*time.Second)
			return c, dialError(n, a, err)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}
}

// Transport returns the pooled transport of calls to configured upstreams
// (providers, embeddings, image hosts, web search and crawl services),
// dialled through e under feature (a request context's WithFeature label
// wins). No address policy applies: a provider may be a local model
// server. Proxies from the environment are used in open mode only; in
// allowlist mode every connection is judged by its real destination.
func (e *Egress) Transport(feature string) *http.Transport {
	t := &http.Transport{
		DialContext: func(ctx context.Context, n, a string) (net.Conn, error) {
			return e.dial(ctx, n, a, feature, nil, 10*time.Second)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if e.Mode() == ModeOpen {
		t.Proxy = http.ProxyFromEnvironment
	}
	return t
}

// Client returns an HTTP client over Transport that follows at most
// maxRedirects redirects (each re-checked when dialled) and gives up after
// timeout overall.
func (p Policy) Client(timeout time.Duration, maxRedirects int) *http.Client {
	return &http.Client{
		Transport: p.Transport(),
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s URL refused", req.URL.Scheme)
			}
			return nil
		},
	}
}
