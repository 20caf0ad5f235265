package netguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Egress modes (HEARTH_OUTBOUND).
const (
	// ModeOpen lets Hearth connect anywhere (user-supplied URLs still
	// pass Policy); it is the default.
	ModeOpen = "open"
	// ModeAllowlist refuses every destination outside HEARTH_OUTBOUND_HOSTS.
	ModeAllowlist = "allowlist"
)

// Egress is the one dialer of every outbound connection Hearth makes:
// providers, embeddings, rerankers, MCP servers, crawls, image fetches and
// web search all dial through it (a test in this repository enumerates the
// packages that import net or net/http and fails on a client built around
// it). In allowlist mode it refuses a destination outside the list before
// any packet is sent, logs the refusal and records it; every attempt is
// recorded for GET /v1/admin/egress. A nil *Egress is open mode without a
// record.
type Egress struct {
	mode  string
	rules []rule
	rec   *Record
	log   *slog.Logger
}

// rule is one HEARTH_OUTBOUND_HOSTS entry: a host name (any port), a
// host:port, or a CIDR prefix (any port).
type rule struct {
	host   string // lower-case name or literal address; "" for a prefix
	port   string // "" for any port
	prefix netip.Prefix
}

// ParseAllow parses HEARTH_OUTBOUND_HOSTS: comma-separated host names,
// host:port pairs ([v6]:port for IPv6) and CIDR prefixes.
func ParseAllow(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if _, err := parseRule(f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func parseRule(f string) (rule, error) {
	if p, err := netip.ParsePrefix(f); err == nil {
		return rule{prefix: p.Masked()}, nil
	}
	if a, err := netip.ParseAddr(f); err == nil {
		return rule{prefix: netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())}, nil
	}
	host, port := f, ""
	if h, p, err := net.SplitHostPort(f); err == nil {
		if n, perr := strconv.Atoi(p); perr != nil || n < 1 || n > 65535 {
			return rule{}, fmt.Errorf("%q: port must be 1-65535", f)
		}
		host, port = h, p
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if a, err := netip.ParseAddr(host); err == nil {
		return rule{host: a.Unmap().String(), port: port}, nil
	}
	if host == "" || strings.ContainsAny(host, "/ :@[]") {
		return rule{}, fmt.Errorf("%q is not a host name, host:port or CIDR", f)
	}
	return rule{host: host, port: port}, nil
}

// NewEgress returns the dialer for mode ("" means open) and the allow
// entries (see ParseAllow). log receives refusals; nil means slog.Default.
func NewEgress(mode string, allow []string, log *slog.Logger) (*Egress, error) {
	switch mode {
	case "":
		mode = ModeOpen
	case ModeOpen, ModeAllowlist:
	default:
		return nil, fmt.Errorf("HEARTH_OUTBOUND %q: use open or allowlist", mode)
	}
	e := &Egress{mode: mode, rec: newRecord(), log: log}
	if e.log == nil {
		e.log = slog.Default()
	}
	for _, f := range allow {
		r, err := parseRule(f)
		if err != nil {
			return nil, fmt.Errorf("HEARTH_OUTBOUND_HOSTS: %w", err)
		}
		e.rules = append(e.rules, r)
	}
	return e, nil
}

// Mode is the mode in force.
func (e *Egress) Mode() string {
	if e == nil {
		return ModeOpen
	}
	return e.mode
}

// Allow lists the allow entries in force, as configured.
func (e *Egress) Allow() []string {
	if e == nil {
		return nil
	}
	var out []string
	for _, r := range e.rules {
		switch {
		case r.host != "" && r.port != "":
			out = append(out, net.JoinHostPort(r.host, r.port))
		case r.host != "":
			out = append(out, r.host)
		default:
			out = append(out, r.prefix.String())
		}
	}
	return out
}

// Record returns what was contacted and refused since start.
func (e *Egress) Record() []Entry {
	if e == nil {
		return nil
	}
	return e.rec.entries()
}

// Refusal is the error of a destination outside HEARTH_OUTBOUND_HOSTS. It
// names the host and port the caller asked for and the setting, and
// wraps ErrRefused.
type Refusal struct {
	Host, Port string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s: %s is not in HEARTH_OUTBOUND_HOSTS (HEARTH_OUTBOUND=allowlist)", ErrRefused.Error(), net.JoinHostPort(r.Host, r.Port))
}

// Unwrap makes a refusal match ErrRefused.
func (r *Refusal) Unwrap() error { return ErrRefused }

// byName reports whether host:port is allowed by a name rule, or by a
// prefix rule when host is a literal address.
func (e *Egress) byName(host, port string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	addr, aerr := netip.ParseAddr(h)
	isAddr := aerr == nil
	if isAddr {
		h = addr.Unmap().String()
	}
	for _, r := range e.rules {
		switch {
		case r.host != "":
			if r.host == h && (r.port == "" || r.port == port) {
				return true
			}
		case isAddr && r.prefix.Contains(addr.Unmap()):
			return true
		}
	}
	return false
}

// byAddr reports whether a resolved address is inside a prefix rule.
func (e *Egress) byAddr(ip netip.Addr) bool {
	for _, r := range e.rules {
		if r.host == "" && r.prefix.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// dial connects to address for feature. guard, when non-nil, also applies
// the address policy of user-supplied URLs to the address dialled.
func (e *Egress) dial(ctx context.Context, network, address, feature string, guard *Policy, timeout time.Duration) (net.Conn, error) {
	if f := featureOf(ctx); f != "" {
		feature = f
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		host, port = address, ""
	}
	allowlist := e != nil && e.mode == ModeAllowlist
	named := allowlist && e.byName(host, port)
	if allowlist && !named && !e.hasPrefixes() {
		return nil, e.refuse(network, host, port, feature)
	}
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	var egressRefused atomic.Bool
	if guard != nil || (allowlist && !named) {
		d.Control = func(_, resolved string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(resolved)
			if err != nil {
				return fmt.Errorf("%w: cannot parse %q", ErrRefused, resolved)
			}
			if allowlist && !named && !e.byAddr(ap.Addr()) {
				egressRefused.Store(true)
				return &Refusal{Host: host, Port: port}
			}
			if guard != nil {
				return guard.CheckAddr(ap.Addr())
			}
			return nil
		}
	}
	c, err := d.DialContext(ctx, network, address)
	if egressRefused.Load() && err != nil {
		return nil, e.refuse(network, host, port, feature)
	}
	e.note(host, port, feature, err == nil, false)
	return c, err
}

func (e *Egress) hasPrefixes() bool {
	for _, r := range e.rules {
		if r.host == "" {
			return true
		}
	}
	return false
}

// refuse records and logs a refusal and returns its error.
func (e *Egress) refuse(network, host, port, feature string) error {
	e.note(host, port, feature, false, true)
	e.log.Warn("egress refused", "host", host, "port", port, "feature", feature, "setting", "HEARTH_OUTBOUND_HOSTS")
	return &net.OpError{Op: "dial", Net: network, Addr: requested(net.JoinHostPort(host, port)), Err: &Refusal{Host: host, Port: port}}
}

func (e *Egress) note(host, port, feature string, ok, refused bool) {
	if e == nil {
		return
	}
	e.rec.add(host, port, feature, ok, refused)
}

// AsRefusal returns the egress refusal inside err, if any.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

type featureKey struct{}

// WithFeature labels the connections dialled under ctx with feature in
// the egress record (a provider's name, "mcp", "crawl").
func WithFeature(ctx context.Context, feature string) context.Context {
	return context.WithValue(ctx, featureKey{}, feature)
}

func featureOf(ctx context.Context) string {
	f, _ := ctx.Value(featureKey{}).(string)
	return f
}
