package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outboundExempt are the files allowed to build network clients of their
// own, and why. Everything else that dials goes through the egress dialer
// of providers/netguard (docs/air-gapped.md).
var outboundExempt = map[string]string{
	"providers/netguard/netguard.go":                 "the shared dialer's transports",
	"providers/netguard/egress.go":                   "the shared dialer",
	"server/app/cli/backup.go":                       "hearth backup: the operator's CLI fetching a backup from its own server, not the server's egress",
	"server/app/cli/eval.go":                         "hearth eval: the operator's CLI calling a running Hearth's retrieve endpoint, not the server's egress",
	"server/app/cli/budgets.go":                      "hearth budgets: the operator's CLI calling a running Hearth's budget endpoints, not the server's egress",
	"server/app/cli/memory.go":                       "hearth memory export/import: the operator's CLI calling a running Hearth's pack endpoints, not the server's egress",
	"server/servertest/servertest.go":                "test harness: a client of the server under test",
	"server/servertest/loadtest/client.go":           "load test client of the server under test",
	"server/servertest/hearthbench/gateway.go":       "benchmark client of the server under test",
	"server/servertest/hearthbench/cluster.go":       "benchmark client of the servers under test",
	"server/servertest/hearthbench/fairness.go":      "benchmark clients of the server under test",
	"server/servertest/hearthbench/fairness_raw.go":  "raw benchmark clients of the server under test",
	"server/servertest/hearthbench/cluster_procs.go": "benchmark client of the hearth serve processes under test",
}

// outboundPatterns are the ways Go code opens a connection or builds a
// client that would not go through the shared dialer.
var outboundPatterns = []*regexp.Regexp{
	regexp.MustCompile(`http\.Default(Client|Transport)\b`),
	regexp.MustCompile(`http\.(Get|Post|Head|PostForm)\(`),
	regexp.MustCompile(`net\.(Dial|DialTimeout|DialTCP|DialUDP|DialIP|DialUnix)\(`),
	regexp.MustCompile(`(net\.Dialer|http\.Transport)\{|new\((net\.Dialer|http\.Transport|http\.Client)\)`),
	regexp.MustCompile(`tls\.(Dial|DialWithDialer)\(`),
	regexp.MustCompile(`\bDialContext:|\bDialTLSContext:|\bDial:`),
}

// clientLiteral finds http.Client literals; one without a Transport
// field uses http.DefaultTransport, around the shared dialer.
var clientLiteral = regexp.MustCompile(`http\.Client\{`)

// scanOutbound returns the outbound client constructions in src.
func scanOutbound(src string) []string {
	var found []string
	for _, p := range outboundPatterns {
		found = append(found, p.FindAllString(src, -1)...)
	}
	for _, loc := range clientLiteral.FindAllStringIndex(src, -1) {
		depth, end := 0, len(src)
		for i := loc[1] - 1; i < len(src); i++ {
			if src[i] == '{' {
				depth++
			} else if src[i] == '}' {
				if depth--; depth == 0 {
					end = i
					break
				}
			}
		}
		if !strings.Contains(src[loc[0]:end], "Transport:") {
			found = append(found, "http.Client{ without a Transport")
		}
	}
	return found
}

// TestOutboundUsesSharedDialer enumerates the packages of this module that
// import net, net/http or crypto/tls and fails on an outbound client that
// is not built from the shared egress dialer, so a new one cannot slip
// past HEARTH_OUTBOUND=allowlist.
func TestOutboundUsesSharedDialer(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.Dir}}|{{join .GoFiles " "}}|{{join .Imports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	root, _ := os.Getwd()
	scanned := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) != 3 || !importsNetwork(strings.Fields(parts[2])) {
			continue
		}
		for _, f := range strings.Fields(parts[1]) {
			path := filepath.Join(parts[0], f)
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if _, ok := outboundExempt[rel]; ok {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			scanned++
			for _, f := range scanOutbound(string(src)) {
				t.Errorf("%s: %s: outbound clients must use the egress dialer (netguard.Egress.Transport or netguard.Policy.Transport)", rel, f)
			}
		}
	}
	if scanned < 10 {
		t.Fatalf("only %d files scanned: the enumeration is broken", scanned)
	}
}

func importsNetwork(imports []string) bool {
	for _, i := range imports {
		if i == "net" || i == "net/http" || i == "crypto/tls" {
			return true
		}
	}
	return false
}

// TestScanOutbound: the scanner catches each way around the dialer.
func TestScanOutbound(t *testing.T) {
	for src, want := range map[string]int{
		`c := &http.Client{Timeout: time.Second}`:                  1,
		`c := &http.Client{Transport: eg.Transport("x")}`:          0,
		`resp, err := http.Get(u)`:                                 1,
		`http.DefaultClient.Do(req)`:                               1,
		`conn, err := net.Dial("tcp", a)`:                          1,
		`d := &net.Dialer{Timeout: time.Second}`:                   1,
		`t := &http.Transport{DialContext: d.DialContext}`:         2,
		`c, err := tls.Dial("tcp", a, nil)`:                        1,
		`t := new(http.Transport)`:                                 1,
		`req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)`: 0,
	} {
		if got := scanOutbound(src); len(got) != want {
			t.Errorf("%s: found %v, want %d", src, got, want)
		}
	}
}
