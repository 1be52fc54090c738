# kexlab — see README.md.
GO       ?= go
FUZZTIME ?= 3s
OUT      ?= out

.PHONY: all build test browser vet fmt-check unit fuzz report bench vectors deps clean

all: build

deps:
	$(GO) mod download

build: deps
	$(GO) build -o bin/kexlab ./cmd/kexlab

# make test: everything CI checks. Installs what it needs itself: the Go
# modules, and Debian's Chromium for the test that renders report.html.
test: deps browser fmt-check vet unit fuzz

browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (apt-get) for the report rendering test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	KEXLAB_REQUIRE_CHROMIUM=1 $(GO) test -count=1 -timeout 20m ./...

fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

vectors: build
	bin/kexlab vectors

# make report: the comparison of every registered scheme with the embedded
# defaults of `kexlab compare` (a time budget of 3 minutes for the samples;
# n per scheme sized from a calibration, between 10 and 200), writing
# $(OUT)/results.json, results.csv, bench.txt (benchstat) and report.html.
report: build
	bin/kexlab compare -out $(OUT)

bench:
	$(GO) test -run '^$$' -bench . -count 5 ./internal/group/ ./pake/...

clean:
	rm -rf bin $(OUT)
