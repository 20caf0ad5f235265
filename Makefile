# Hearth: make run | make test | make lint | make build | make bench
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: run test test-go lint build bench fuzz clean

run:
	$(GO) run -ldflags "$(LDFLAGS)" . serve

## test: the whole suite: vet, Go tests with the race detector.
test: lint test-go

test-go:
	$(GO) test -race -count=1 ./...

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/hearth .

## bench: side-by-side tables (retrieval, ...) and the Go micro-benchmarks.
bench:
	$(GO) run ./server/servertest/hearthbench -json bench.json
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 200x ./providers/ ./engine/chunk/ ./engine/parse/

clean:
	rm -rf bin
