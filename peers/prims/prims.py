#!/usr/bin/env python3
"""make prims: kexlab's primitives beside native implementations.

Runs the three drivers (peers/prims/go, c, rust) as long-lived processes
that read "OP BATCH ARGS..." lines and answer "NS_PER_OP SHA256", and for
every case:

1. gives every side the same fixed inputs (derived from SHAKE-256 of a
   label, so every run and every machine computes the same thing) and
   checks that all sides return the same result hash, and the hash that
   Python computes itself where it can (pow for MODP, hashlib for PBKDF2);
   a case whose results differ is not timed;
2. sizes one batch per side to about PRIMS_BATCH_MS of CPU time;
3. runs PRIMS_WARMUP discarded rounds, then PRIMS_N rounds, each round one
   batch of every side, one after the other, the order rotated every round
   (A B, B A, A B, ...) so that no side always goes first; every batch's
   result hash is checked again;
4. reports, per ratio kexlab/peer, the median of the per-round ratios with
   its quartiles (Hyndman-Fan type 7, as R and bench/stats) and min-max.

Times are process CPU time per operation (getrusage RUSAGE_SELF, user +
system, around the batch loop only) in every driver.

Environment: PRIMS_N (21), PRIMS_WARMUP (1), PRIMS_BATCH_MS (100),
PRIMS_ROWS (comma-separated substrings of case names; empty: all).
Python standard library only.
"""

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import re
import subprocess
import sys

CLOCK = "process CPU time, getrusage(RUSAGE_SELF) user+system, per operation"


def det(label, n):
    """n fixed pseudo-random bytes named by label."""
    return hashlib.shake_256(b"kexlab prims v1 " + label.encode()).digest(n)


class DriverError(Exception):
    pass


class Driver:
    def __init__(self, name, path):
        self.name, self.path, self.proc = name, path, None
        self.missing = None
        if not path or not os.access(path, os.X_OK):
            self.missing = f"{name} driver {path!r} not built"
            return
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def ask(self, line):
        if self.proc is None:
            raise DriverError(self.missing)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().strip()
        if not reply:
            raise DriverError(f"{self.name} driver exited (rc {self.proc.poll()}) on {line[:60]!r}")
        if reply.startswith("error"):
            raise DriverError(f"{self.name} driver: {reply}")
        return reply

    def run(self, op, batch, args):
        ns, digest = self.ask(" ".join([op, str(batch)] + list(args))).split()
        return float(ns), digest

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


class Side:
    """One implementation of a case: a driver, its op and its arguments."""

    def __init__(self, name, impl, driver, op, args):
        self.name, self.impl, self.driver, self.op, self.args = name, impl, driver, op, args
        self.batch, self.times = 1, []

    def run(self, batch):
        return self.driver.run(self.op, batch, self.args)


class Case:
    def __init__(self, name, title, sides, ratios, expect=None, note=""):
        self.name, self.title, self.sides, self.expect, self.note = name, title, sides, expect, note
        self.ratios = ratios  # (row label, numerator side index, denominator side index)


def quantile(xs, p):
    s = sorted(xs)
    h = (len(s) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def fmt_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def build_cases(go, c, rust):
    cases = []
    # MODP: Group.Exp against OpenSSL and GMP, same p, x, e.
    for bits in (2048, 3072, 4096):
        try:
            gname, phex = go.ask(f"modp-p {bits}").split()
        except DriverError as e:
            cases.append(Case(f"modp-{bits}", str(e), [], []))
            continue
        p = int(phex, 16)
        size = len(phex) // 2
        x = int.from_bytes(det(f"modp{bits} x", size + 16), "big") % (p - 2) + 2
        top = 1 << (8 * size - 1)
        exps = {
            "e256": int.from_bytes(det(f"modp{bits} e256", 32), "big") | (1 << 255),
            "efull": int.from_bytes(det(f"modp{bits} efull", size + 16), "big") % (p - 1 - top) + top,
        }
        for ename, e in exps.items():
            elen = 32 if ename == "e256" else size
            xh, eh = x.to_bytes(size, "big").hex(), e.to_bytes(elen, "big").hex()
            expect = hashlib.sha256(pow(x, e, p).to_bytes(size, "big")).hexdigest()
            ebits = "256-bit" if ename == "e256" else f"{8 * elen}-bit"
            cases.append(Case(
                f"modp-{bits}-{ename}",
                f"MODP {bits} ({gname}), x^e mod p, {ebits} exponent",
                [
                    Side("kexlab", "modp.Group.Exp (filippo.io/bigmod)", go, "modp", [str(bits), xh, eh]),
                    Side("OpenSSL", "BN_mod_exp_mont_consttime, BN_MONT_CTX set once", c, "modp-openssl", [phex, xh, eh]),
                    Side("GMP", "mpz_powm_sec", c, "modp-gmp", [phex, xh, eh]),
                ],
                [(f"MODP-{bits} e{256 if ename == 'e256' else 8 * elen} Exp/OpenSSL", 0, 1),
                 (f"MODP-{bits} e{256 if ename == 'e256' else 8 * elen} Exp/GMP", 0, 2)],
                expect,
                f"prime {gname}; x and e fixed (SHAKE-256), e with its top bit set",
            ))
    # PBKDF2-HMAC-SHA256, 100,000 iterations, 32 bytes.
    pw, salt, it, dklen = b"kexlab prims password", det("pbkdf2 salt", 16), 100000, 32
    pargs = [str(it), str(dklen), pw.hex(), salt.hex()]
    cases.append(Case(
        "pbkdf2-sha256",
        f"PBKDF2-HMAC-SHA256, {it} iterations, {dklen}-byte output",
        [
            Side("kexlab", "kexlabPBKDF2", go, "pbkdf2", pargs),
            Side("Rust", "RustCrypto pbkdf2::pbkdf2_hmac::<Sha256>", rust, "pbkdf2", pargs),
            Side("OpenSSL", "PKCS5_PBKDF2_HMAC, EVP_sha256", c, "pbkdf2-openssl", pargs),
        ],
        [("PBKDF2-SHA256 100k kexlab/Rust", 0, 1), ("PBKDF2-SHA256 100k kexlab/OpenSSL", 0, 2)],
        hashlib.sha256(hashlib.pbkdf2_hmac("sha256", pw, salt, it, dklen)).hexdigest(),
    ))
    # P-256 k·G with precomputed tables.
    n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    k = (int.from_bytes(det("p256 k", 48), "big") % (n - 1) + 1).to_bytes(32, "big").hex()
    for suffix, what in (("", "result left projective (hash of the last one encoded after the clock)"),
                         ("-enc", "and its uncompressed encoding (to affine) in the loop")):
        cases.append(Case(
            f"p256-basemul{suffix}",
            f"P-256 k·G, fixed-base precomputed table{', encoded' if suffix else ''}",
            [
                Side("TableMult", "group.Point.TableMult(k, NewTable(G))", go, "p256-table" + suffix, [k]),
                Side("ScalarBaseMult", "group.Point.ScalarBaseMult (nistec)", go, "p256-base" + suffix, [k]),
                Side("OpenSSL", "EC_POINT_mul(G) on prime256v1 (nistz256 table)", c, "p256-openssl" + suffix, [k]),
            ],
            [(f"P-256 k·G{suffix} TableMult/OpenSSL", 0, 2),
             (f"P-256 k·G{suffix} TableMult/ScalarBaseMult", 0, 1),
             (f"P-256 k·G{suffix} ScalarBaseMult/OpenSSL", 1, 2)],
            None,
            what,
        ))
    # ML-KEM-512 keygen + encaps + decaps, FIPS 203 seeds d, z, m.
    cases.append(Case(
        "mlkem512",
        "ML-KEM-512 keygen(d‖z) + encaps(m) + decaps",
        [
            Side("kexlab", "circl kem/mlkem/mlkem512", go, "mlkem512", [det(s, 32).hex() for s in ("mlkem d", "mlkem z", "mlkem m")]),
            Side("Rust", "libcrux-ml-kem mlkem512 (portable/AVX2 by CPU)", rust, "mlkem512", [det(s, 32).hex() for s in ("mlkem d", "mlkem z", "mlkem m")]),
        ],
        [("ML-KEM-512 kg+enc+dec circl/libcrux", 0, 1)],
        None,
        "hash of pk ‖ ct ‖ ss; both sides check decaps = encaps",
    ))
    return cases


def check(case):
    """Runs every side once; returns the common result hash or raises."""
    got = {s.name: s.run(1)[1] for s in case.sides}
    want = case.expect or next(iter(got.values()))
    bad = {k: v for k, v in got.items() if v != want}
    if bad:
        raise DriverError(f"results differ: expected {want[:16]}…, got " +
                          ", ".join(f"{k} {v[:16]}…" for k, v in got.items()))
    return want


def calibrate(side, digest, target_ns):
    batch = 1
    while True:
        ns, d = side.run(batch)
        if d != digest:
            raise DriverError(f"{side.name}: result changed during calibration")
        total = ns * batch
        if total >= target_ns / 4 or batch >= 1 << 24:
            break
        batch *= 10 if total < target_ns / 100 else 2
    side.batch = max(1, round(target_ns / max(ns, 1.0)))


def measure(case, n, warmup, target_ns, log):
    digest = check(case)
    for s in case.sides:
        calibrate(s, digest, target_ns)
    log(f"   batches: " + ", ".join(f"{s.name} {s.batch}" for s in case.sides))
    k = len(case.sides)
    for r in range(warmup + n):
        order = [case.sides[(i + r) % k] for i in range(k)]
        for s in order:
            ns, d = s.run(s.batch)
            if d != digest:
                raise DriverError(f"{s.name}: result changed in round {r}")
            if r >= warmup:
                s.times.append(ns)
    return digest


def summarize(xs):
    return {
        "median": quantile(xs, 0.5), "q1": quantile(xs, 0.25), "q3": quantile(xs, 0.75),
        "min": min(xs), "max": max(xs),
    }


def cargo_versions(lock):
    out = {}
    try:
        text = open(lock).read()
    except OSError:
        return out
    for m in re.finditer(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"', text):
        if m.group(1) in ("pbkdf2", "sha2", "hmac", "libcrux-ml-kem"):
            out[m.group(1)] = m.group(2)
    return out


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--go", required=True)
    ap.add_argument("--c", required=True)
    ap.add_argument("--rust", required=True)
    ap.add_argument("--cargo-lock", default="")
    ap.add_argument("--out", required=True, help="JSON file to write")
    a = ap.parse_args()
    n = int(os.environ.get("PRIMS_N", "21"))
    warmup = int(os.environ.get("PRIMS_WARMUP", "1"))
    target_ns = float(os.environ.get("PRIMS_BATCH_MS", "100")) * 1e6
    only = [s for s in os.environ.get("PRIMS_ROWS", "").split(",") if s]
    if n < 2:
        sys.exit("prims: PRIMS_N must be at least 2")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    go, c, rust = Driver("go", a.go), Driver("c", a.c), Driver("rust", a.rust)
    versions = {"cargo": cargo_versions(a.cargo_lock)}
    for d in (go, c):
        try:
            versions[d.name] = json.loads(d.ask("versions"))
        except (DriverError, ValueError) as e:
            versions[d.name] = str(e)
    cases = [cs for cs in build_cases(go, c, rust) if not only or any(o in cs.name for o in only)]
    failed, done = [], []
    for cs in cases:
        log(f"== {cs.name}: {cs.title}")
        try:
            if not cs.sides:
                raise DriverError(cs.title)
            cs.digest = measure(cs, n, warmup, target_ns, log)
            done.append(cs)
        except DriverError as e:
            log(f"   FAILED: {e}")
            failed.append({"case": cs.name, "error": str(e)})
    for d in (go, c, rust):
        d.close()

    rows = []
    for cs in done:
        for label, i, j in cs.ratios:
            num, den = cs.sides[i], cs.sides[j]
            ratios = [x / y for x, y in zip(num.times, den.times)]
            rows.append({
                "row": label, "case": cs.name, "num": num.name, "den": den.name,
                "num_median_ns": quantile(num.times, 0.5), "den_median_ns": quantile(den.times, 0.5),
                "n": len(ratios), "ratio": summarize(ratios), "ratios": ratios,
            })

    # The table: kexlab (numerator) median, peer median, ratio median [Q1, Q3], min-max, n.
    w = max([len(r["row"]) for r in rows] + [3])
    print(f"\nkexlab primitives beside native implementations ({CLOCK}; "
          f"ratio = median over rounds of kexlab/peer, one batch of each side per round)")
    print(f"{'row':<{w}}  {'kexlab':>9}  {'peer':>9}  {'ratio [Q1, Q3]':<22} {'min–max':<13} {'n':>3}")
    for r in rows:
        q = r["ratio"]
        print(f"{r['row']:<{w}}  {fmt_ns(r['num_median_ns']):>9}  {fmt_ns(r['den_median_ns']):>9}  "
              f"{q['median']:<6.3f}[{q['q1']:.3f}, {q['q3']:.3f}]  {q['min']:.2f}–{q['max']:.2f}{'':<4} {r['n']:>3}")
    groups = sorted({re.sub(r"^MODP (\d+) \(([^)]+)\).*", r"\1 \2", cs.title) for cs in done if cs.name.startswith("modp-")})
    if groups:
        note = " (RFC 5054's 3072- and 4096-bit primes are RFC 3526's"
        note += "; modp has no RFC 3526 2048-bit group)" if "2048 RFC5054-2048" in groups else ")"
        print("MODP primes: " + ", ".join(groups) + note)

    def vs(d):
        return ", ".join(f"{k} {v}" for k, v in sorted(d.items())) if isinstance(d, dict) else str(d)
    gv = dict(versions["go"]) if isinstance(versions["go"], dict) else {}
    print(f"kexlab PBKDF2-HMAC-SHA256: {gv.pop('pbkdf2', '?')}")
    print(f"kexlab (Go): {vs(gv) or versions['go']}")
    print(f"C driver: {vs(versions['c'])}")
    print(f"Rust driver (Cargo.lock): {vs(versions['cargo'])}")
    for f in failed:
        print(f"FAILED {f['case']}: {f['error']}")

    doc = {
        "schema": "kexlab-prims/1",
        "time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "clock": CLOCK,
        "n": n, "warmup": warmup, "batch_ms": target_ns / 1e6,
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "versions": versions,
        "cases": [{
            "case": cs.name, "title": cs.title, "note": cs.note, "result_sha256": cs.digest,
            "sides": [{"name": s.name, "impl": s.impl, "op": s.op, "batch": s.batch,
                       "median_ns": quantile(s.times, 0.5), "ns_per_op": s.times} for s in cs.sides],
        } for cs in done],
        "rows": rows,
        "failed": failed,
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    log(f"prims: wrote {a.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
