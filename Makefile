# kexlab — see README.md.
GO       ?= go
FUZZTIME ?= 3s
OUT      ?= out

.PHONY: all build test vet fmt-check unit fuzz report bench vectors deps clean

all: build

deps:
	$(GO) mod download

build: deps
	$(GO) build -o bin/kexlab ./cmd/kexlab

# make test: everything CI checks. Installs what it needs itself.
test: deps fmt-check vet unit fuzz

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout 20m ./...

fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

vectors: build
	bin/kexlab vectors

# make report: until the comparison harness lands (issue 4) this runs the
# known-answer tests and the Go benchmarks of every primitive and scheme,
# writing Go benchfmt text to $(OUT)/bench.txt (benchstat reads it).
report: build
	@mkdir -p $(OUT)
	bin/kexlab vectors
	bin/kexlab schemes
	@echo "report: the comparison harness is not built yet (issue 4); running benchmarks instead -> $(OUT)/bench.txt"
	$(GO) test -run '^$$' -bench . -benchtime 100ms -count 3 ./internal/group/ ./pake/... | tee $(OUT)/bench.txt

bench:
	$(GO) test -run '^$$' -bench . -count 5 ./internal/group/ ./pake/...

clean:
	rm -rf bin $(OUT)
