package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/pe"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestMakeReleaseCrossCompiles runs `make release` for linux/arm64 and
// windows/amd64 into a temporary DIST and checks what it wrote: one static
// binary per platform for the right machine, carrying the version, and a
// SHA256SUMS that matches them. Cross-compilation (a cgo dependency, a
// file missing its build tag) cannot break without this test failing.
// A cold build cache makes it slow, so -short skips it outside CI.
func TestMakeReleaseCrossCompiles(t *testing.T) {
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("-short: skipping two cross-compilations (CI always runs them)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but make is missing: %v", err)
		}
		t.Skipf("make is not installed: %v", err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	const version = "v0.0.0-releasetest"
	cmd := exec.Command("make", "-s", "release", "PLATFORMS=linux/arm64 windows/amd64", "DIST="+dist, "VERSION="+version)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}

	linux := "hearth-" + version + "-linux-arm64"
	windows := "hearth-" + version + "-windows-amd64.exe"
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if want := []string{"SHA256SUMS", linux, windows}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("dist holds %v; want %v", names, want)
	}

	checkELF(t, filepath.Join(dist, linux))
	checkPE(t, filepath.Join(dist, windows))
	for _, n := range []string{linux, windows} {
		b, err := os.ReadFile(filepath.Join(dist, n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(version)) {
			t.Errorf("%s does not carry the version %q (-ldflags -X main.version)", n, version)
		}
	}
	checkSums(t, dist, []string{linux, windows})
}

// TestReleasePlatforms checks that the default PLATFORMS of make release
// list every platform the docs/operations.md#release-builds section promises.
func TestReleasePlatforms(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PLATFORMS \?= (.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile has no PLATFORMS ?= line")
	}
	got := strings.Fields(string(m[1]))
	want := []string{"linux/amd64", "linux/arm64", "linux/arm/v7", "darwin/arm64", "darwin/amd64", "windows/amd64"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("PLATFORMS = %v; want %v", got, want)
	}
	guide, err := os.ReadFile("docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range want {
		if !bytes.Contains(guide, []byte("`"+p+"`")) {
			t.Errorf("docs/operations.md (Release builds) does not name the release platform `%s`", p)
		}
	}
}

func checkELF(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s is not an ELF binary: %v", path, err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 || f.Class != elf.ELFCLASS64 {
		t.Errorf("%s: machine %v %v; want EM_AARCH64 ELFCLASS64", path, f.Machine, f.Class)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a dynamic loader (PT_INTERP): not a static binary", path)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s links %v dynamically", path, libs)
	}
}

func checkPE(t *testing.T, path string) {
	t.Helper()
	f, err := pe.Open(path)
	if err != nil {
		t.Fatalf("%s is not a PE binary: %v", path, err)
	}
	defer f.Close()
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("%s: machine %#x; want IMAGE_FILE_MACHINE_AMD64", path, f.Machine)
	}
}

func checkSums(t *testing.T, dist string, names []string) {
	t.Helper()
	sums, err := os.Open(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	listed := map[string]string{}
	sc := bufio.NewScanner(sums)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			t.Fatalf("SHA256SUMS line %q: want `<hex>  <name>`", sc.Text())
		}
		listed[strings.TrimPrefix(f[1], "*")] = f[0]
	}
	if len(listed) != len(names) {
		t.Errorf("SHA256SUMS lists %d files; want %d", len(listed), len(names))
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dist, n))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := listed[n]; got != hex.EncodeToString(sum[:]) {
			t.Errorf("SHA256SUMS gives %s = %q; the file hashes to %x", n, got, sum)
		}
	}
}

// TestDeployDocsMatchConfig keeps docs/Dockerfile and docs/hearth.service
// in step with the code: every HEARTH_* name they set is a real setting,
// and the Dockerfile builds with the Go version go.mod requires.
func TestDeployDocsMatchConfig(t *testing.T) {
	known := map[string]bool{}
	cfg := defaultConfig()
	for _, v := range cfg.vars() {
		known[v.env] = true
	}
	env := regexp.MustCompile(`\bHEARTH_[A-Z_]+\b`)
	for _, f := range []string{"docs/Dockerfile", "docs/hearth.service"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		names := env.FindAllString(string(b), -1)
		if len(names) == 0 {
			t.Errorf("%s sets no HEARTH_* setting (at least HEARTH_DATA)", f)
		}
		for _, n := range names {
			if !known[n] {
				t.Errorf("%s names %s, which is not a setting in config.go", f, n)
			}
		}
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	gv := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	docker, _ := os.ReadFile("docs/Dockerfile")
	if gv == nil || !bytes.Contains(docker, []byte("FROM golang:"+string(gv[1])+" ")) {
		t.Errorf("docs/Dockerfile does not build with golang:%s (go.mod)", gv[1])
	}
	for _, want := range []string{"CGO_ENABLED=0", "VOLUME", "HEARTH_DATA=/data"} {
		if !bytes.Contains(docker, []byte(want)) {
			t.Errorf("docs/Dockerfile lacks %s", want)
		}
	}
}
