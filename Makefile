# kexlab — see README.md.
GO       ?= go
FUZZTIME ?= 3s
OUT      ?= out

.PHONY: all build test browser hsm vet fmt-check unit fuzz report bench vectors deps clean

all: build

deps:
	$(GO) mod download

build: deps
	$(GO) build -o bin/kexlab ./cmd/kexlab

# make test: everything CI checks. Installs what it needs itself: the Go
# modules, Debian's Chromium for the test that renders report.html,
# SoftHSM2 and swtpm, the real key sources the wg/keysource tests start,
# the SRP peers (pysrp from PyPI, RustCrypto srp from crates.io) that
# pake/srp's interoperability tests run against, and schemathesis (PyPI)
# for the check of the service against its OpenAPI document, the
# TypeScript client's packages (npm ci in clients/ts), and the
# microcontroller toolchains and simulators of wifi/mcu (gcc-avr, avr-libc,
# simavr, gcc-arm-none-eabi, newlib, qemu-system-arm: make wifi-mcu-deps),
# with which unit runs the short simulator tests (KEXLAB_REQUIRE_MCU=1: a
# KAT subset and every measurement on the ATmega128 and the Cortex-M3, and
# kexlab wifi mcu -short on the ATmega128; about 50 s).
test: deps browser hsm wifi-mcu-deps srp-peers postgres haproxy fmt-check vet unit fuzz openapi-check jvm-test ts-test arm64-test

# The TypeScript client (clients/ts): npm ci from the committed lockfile;
# the committed page bundle (server/web/assets) must be what esbuild builds
# from the sources; tsc, then Node's test runner: the vectors of every
# scheme, the client against a real kexlab serve (bin/kexlab) and the
# sign-in page in Debian's Chromium (playwright-core), whose screenshots,
# latency phases (phases.json, report.html) and bundle sizes (sizes.json)
# land in $(OUT)/browser.
.PHONY: ts-test web web-check
ts-test: build browser
	cd clients/ts && npm ci --no-audit --no-fund
	$(MAKE) --no-print-directory web-check
	mkdir -p $(OUT)/browser
	cd clients/ts && KEXLAB_BIN=$(CURDIR)/bin/kexlab KEXLAB_BROWSER_OUT=$(abspath $(OUT))/browser npm test
	cd clients/ts && node web/build.mjs --sizes > $(abspath $(OUT))/browser/sizes.json

# make web: rebuild the sign-in page's bundle after changing clients/ts
# (then make build embeds it).
web:
	cd clients/ts && npm ci --no-audit --no-fund && node web/build.mjs

web-check:
	@tmp=$$(mktemp -d) && cd clients/ts && node web/build.mjs $$tmp && \
	if ! diff -r $$tmp $(CURDIR)/server/web/assets >/dev/null; then \
	  echo "server/web/assets is not what clients/ts builds: run make web and commit"; diff -rq $$tmp $(CURDIR)/server/web/assets; rm -rf $$tmp; exit 1; fi; \
	rm -rf $$tmp

# The arithmetic with an amd64 assembly path, on its portable path as
# constrained devices run it: cross-compiled for arm64 and run under
# qemu-user (Debian's qemu-user-static), -short.
ARM64_PKGS = internal/group/modp internal/pbkdf2 internal/p256scalar internal/p256field
.PHONY: arm64-test
arm64-test:
	@command -v qemu-aarch64-static >/dev/null 2>&1 || { \
	  echo "installing qemu-user-static (apt-get) for the arm64 arithmetic tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null; }
	@set -e; tmp=$$(mktemp -d); for p in $(ARM64_PKGS); do \
	  GOARCH=arm64 $(GO) test -c -o $$tmp/t ./$$p; \
	  echo "arm64 (qemu) $$p"; (cd $$p && qemu-aarch64-static $$tmp/t -test.short); \
	done; rm -rf $$tmp

# Debian's HAProxy, the load balancer of the scale-out test
# (cmd/kexlab/scaleout_test.go): two kexlab serve on one PostgreSQL behind
# it. make test runs the short version; make loadtest the long one, with
# the throughput of one and two instances in its log.
.PHONY: haproxy loadtest
haproxy:
	@command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || { \
	  echo "installing haproxy (apt-get) for the scale-out test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; }

loadtest: postgres haproxy
	KEXLAB_LOADTEST=1 KEXLAB_REQUIRE_HAPROXY=1 KEXLAB_REQUIRE_POSTGRES=1 \
	$(GO) test -count=1 -run TestScaleOutBehindHAProxy -v -timeout 20m ./cmd/kexlab/

# The service study (Heterogeneous-PAKE's experiments; about 9 minutes on
# 2 cores): out/load-study/study.json and report.html.
.PHONY: loadstudy
loadstudy: build
	bin/kexlab load-study -o out/load-study/study.json

.PHONY: srp-peers
srp-peers:
	scripts/srp-peers.sh

hsm:
	scripts/wg-test-deps.sh

# The PostgreSQL server binaries the store's tests start a throwaway
# cluster with (server/store/postgres/pgtest).
.PHONY: postgres
postgres:
	scripts/postgres-test.sh

# The service against its OpenAPI document (server/openapi.json): a real
# kexlab serve on loopback, flows and validate.py for what only a real
# client reaches, then schemathesis (PyPI, pinned in
# server/openapi-check/requirements.txt, in server/openapi-check/.venv),
# at most 50 cases per operation and 10 minutes in all.
.PHONY: openapi-check
openapi-check:
	scripts/openapi-check.sh

browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (apt-get) for the report rendering test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The daemon's test between network namespaces needs root; as root it must
# run (a failure if it cannot), otherwise it is skipped with the reason.
REQUIRE_NETNS := $(shell [ "$$(id -u)" = 0 ] && echo 1)

unit:
	KEXLAB_REQUIRE_CHROMIUM=1 KEXLAB_REQUIRE_HSM=1 KEXLAB_REQUIRE_POSTGRES=1 KEXLAB_REQUIRE_HAPROXY=1 KEXLAB_REQUIRE_NETNS=$(REQUIRE_NETNS) \
	KEXLAB_REQUIRE_MCU=1 \
	KEXLAB_REQUIRE_SRP_PEERS=1 KEXLAB_SRP_PEERS=$(CURDIR)/peers/srp-interop/bin KEXLAB_REPORT_SHOTS=$(abspath $(OUT))/report-shots \
	$(GO) test -count=1 -timeout 20m ./...

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

# make wifi: the talk's table (every KDF/MIC on several links, after SAE)
# and the instruction counts of the KDF and MIC shapes (valgrind callgrind).
.PHONY: wifi callgrind
wifi: build
	@mkdir -p $(OUT)
	bin/kexlab wifi table -json $(OUT)/wifi.json -results $(OUT)/wifi-results.json

# make wifi-mcu (issue 21; the full run is not part of make test): ACE,
# SPIX, WAGE and Ascon in C (wifi/mcu/c) on the talk's microcontrollers at
# 16 MHz, in simulation: an ATmega128 on simavr (exact cycles from Timer1)
# and a Cortex-M3 on QEMU's lm3s6965evb (an exact executed-instruction
# trace, cycles from the Cortex-M3 instruction timings). kexlab wifi mcu:
# every KAT of ../shared/vectors, then per platform a table (flash, SRAM,
# setup, permutation, cycles/byte, KDF, MICs, AE, hash) and
# $(OUT)/wifi-mcu/<platform>.json; then from those files the talk's tables
# (wifi table: T_KDF, T_MIC of the talk's shape and T_auth on its SDR link;
# wifi protect: permutation, AE of 128 octets, ACE-Hash, the protected
# frame on 54 Mbit/s) per platform.
# Installs gcc-avr, avr-libc, simavr, gcc-arm-none-eabi, newlib and
# qemu-system-arm with apt-get when missing (scripts/wifi-mcu-deps.sh).
# About 4 minutes on 2 cores (the full KATs of WAGE and ACE-H-256 on the
# 8-bit core take most of it). make wifi-mcu-test: the short version (a
# KAT subset on both simulators, the C on the host against every KAT and
# the Go reference), about 40 s.
.PHONY: wifi-mcu wifi-mcu-test wifi-mcu-deps
wifi-mcu-deps:
	scripts/wifi-mcu-deps.sh

wifi-mcu: wifi-mcu-deps build
	bin/kexlab wifi mcu -o $(OUT)/wifi-mcu
	bin/kexlab wifi table -platform atmega128 -mcu-results $(OUT)/wifi-mcu/atmega128.json -mic talk -link sdr-16.82k
	bin/kexlab wifi table -platform cortex-m3 -mcu-results $(OUT)/wifi-mcu/cortex-m3.json -mic talk -link sdr-16.82k
	bin/kexlab wifi protect -platform atmega128 -mcu-results $(OUT)/wifi-mcu/atmega128.json
	bin/kexlab wifi protect -platform cortex-m3 -mcu-results $(OUT)/wifi-mcu/cortex-m3.json

wifi-mcu-test: wifi-mcu-deps
	KEXLAB_REQUIRE_MCU=1 $(GO) test -count=1 -timeout 15m ./wifi/mcu/

callgrind: build
	@command -v valgrind >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
	scripts/callgrind.sh

clean:
	rm -rf bin $(OUT)

# make peers (not part of make test): builds the drivers of independent
# implementations of schemes kexlab implements (crates.io, PyPI, the Go
# module proxy; drivers in peers/, no peer source in this repository) and
# measures them in one kexlab compare run beside every kexlab scheme, in
# the same interleaved order (kexlab compare -peer, protocol kexlab-peer/1):
# $(OUT)/peers/results.json and report.html, which tests kexlab against
# each peer of the same scheme; copied to $(OUT)/report-peers.html.
# PEERS_BUDGET (default 3m) and PEERS_N (most samples per scheme). Needs
# cargo, python3 and go.
PEERS_N      ?= 100
PEERS_BUDGET ?= 3m

.PHONY: peers
peers: build
	OUT=$(OUT) PEERS_N=$(PEERS_N) PEERS_BUDGET=$(PEERS_BUDGET) peers/run.sh
	cp $(OUT)/peers/report.html $(OUT)/report-peers.html

# make prims (issue 15; not part of make test): kexlab's primitives beside
# native implementations on this machine (peers/prims/run.sh): MODP Exp
# against OpenSSL's BN_mod_exp_mont_consttime and GMP's mpz_powm_sec
# (Debian's libssl-dev, libgmp-dev, installed by apt-get when missing),
# PBKDF2-HMAC-SHA256 against RustCrypto pbkdf2 (crates.io, cargo --locked)
# and OpenSSL, P-256 TableMult against OpenSSL EC_POINT_mul and nistec
# ScalarBaseMult, ML-KEM-512 against libcrux-ml-kem. Results are checked
# identical first; PRIMS_N interleaved rounds of process CPU time; prints
# every ratio kexlab/peer (median [Q1, Q3], min-max, n) and writes
# $(OUT)/prims.json. About 2 minutes with PRIMS_N=21; PRIMS_N=3 to try it.
PRIMS_N ?= 21

.PHONY: prims
prims:
	OUT=$(OUT) PRIMS_N=$(PRIMS_N) GO=$(GO) peers/prims/run.sh

# make providers (issues 6, 19): the JCE provider study (jvm/) into
# $(OUT)/providers/ — jmh.json (JMH's JSON format: every case, 5 forks of
# kexlab's own harness, n >= 15 per case, the order shuffled per round; the
# cases not measured with the reason), defaults.txt/json (default
# transformations found by observation) — then its comparison tables
# through kexlab report (report-providers.html/txt). The whole study fits
# its budget (Study -budget, 1080 s by default: about 20 minutes on 2
# cores with the build); PROVIDERS_FLAGS passes flags to Study (e.g.
# -quick, -filter REGEX, -n 30). make test runs only the JUnit tests.
MVN             ?= mvn
PROVIDERS_FLAGS ?=

.PHONY: providers jvm-test
providers: build
	$(MVN) -q -B -f jvm/pom.xml -DskipTests package
	java -cp "jvm/target/classes:$$(cat jvm/target/classpath.txt)" org.kexlab.jce.Study -out $(OUT)/providers $(PROVIDERS_FLAGS)
	bin/kexlab report -o $(OUT)/providers/report.html $(OUT)/providers/jmh.json

jvm-test:
	$(MVN) -q -B -f jvm/pom.xml test
