#!/usr/bin/env python3
"""kexlab peer driver for two PyPI packages (pinned in requirements.txt):

- spake2 (warner's python-spake2): SPAKE2 on Ed25519 (its default group),
  pure Python, no key confirmation messages (pA, pB; keys compared);
- srp (pysrp): SRP-6a with SHA-256 on the RFC 5054 3072-bit group (passed
  as NG_CUSTOM: pysrp has no built-in 3072-bit group), rfc5054_enable()
  for the RFC 5054 k and padding; x = H(s | H(I ":" P)), no stretching.
  pysrp uses its ctypes/OpenSSL backend (_ctsrp) when libssl loads,
  otherwise its pure-Python one; the row names the backend used.

Each sample is one complete exchange timed with time.perf_counter_ns; SRP's
registration (salt, verifier) is done once beforehand, as kexlab times it
separately. After a warm-up the two are sampled round-robin. Writes a
kexlab-results/1 file (bench.Results) that `kexlab report` reads.

usage: peers.py OUT.json [N] [WARMUP]
       peers.py --serve   (kexlab-peer/1 on stdin/stdout: kexlab compare -peer;
                           see bench/peer: a hello line, then "sample I" ->
                           "I WALL_NS THREAD_CPU_NS BYTES")
"""

import json
import os
import platform
import sys
import time
from importlib.metadata import version

import spake2
import srp

# RFC 5054 Appendix A, "3072-bit Group" (the prime of RFC 3526 group 15), g = 5.
N3072 = (
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
    "020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
    "4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05"
    "98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB"
    "9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718"
    "3995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33"
    "A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
    "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864"
    "D87602733EC86A64521F2B18177B200CBBE117577A615D6C770988C0BAD946E2"
    "08E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF"
)
G = b"05"  # bytes: pysrp's ctypes backend passes n_hex, g_hex to BN_hex2bn
PASSWORD, CLIENT, SERVER = b"password", b"client", b"server"
SRP = dict(hash_alg=srp.SHA256, ng_type=srp.NG_CUSTOM, n_hex=N3072.encode(), g_hex=G)


def spake2_once():
    a = spake2.SPAKE2_A(PASSWORD, idA=CLIENT, idB=SERVER)
    b = spake2.SPAKE2_B(PASSWORD, idA=CLIENT, idB=SERVER)
    ma, mb = a.start(), b.start()
    if a.finish(mb) != b.finish(ma):
        raise RuntimeError("spake2 keys differ")
    return len(ma) + len(mb)


def srp_register():
    return srp.create_salted_verification_key(CLIENT, PASSWORD, salt_len=16, **SRP)


def srp_once(salt, verifier):
    user = srp.User(CLIENT, PASSWORD, **SRP)
    uname, A = user.start_authentication()
    server = srp.Verifier(uname, salt, verifier, A, **SRP)
    s, B = server.get_challenge()
    if B is None:
        raise RuntimeError("srp: server rejected A")
    M = user.process_challenge(s, B)
    HAMK = server.verify_session(M)
    if HAMK is None:
        raise RuntimeError("srp: M1 rejected")
    user.verify_session(HAMK)
    if not (user.authenticated() and server.authenticated()):
        raise RuntimeError("srp: M2 rejected")
    if user.get_session_key() != server.get_session_key():
        raise RuntimeError("srp keys differ")
    return len(A) + len(s) + len(B) + len(M) + len(HAMK)


def rfc3339(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def describe():
    """The schemes (name, suite, spec, kexlab counterpart, run), SRP registered."""
    srp.rfc5054_enable()
    backend = srp._mod.__name__.rsplit(".", 1)[-1]
    backend = {"_ctsrp": "OpenSSL BN via ctypes", "_pysrp": "pure Python"}.get(backend, backend)
    salt, verifier = srp_register()
    py = "CPython %s" % platform.python_version()
    schemes = [
        dict(name="peer py spake2 %s (Ed25519)" % version("spake2"),
             suite="SPAKE2 Ed25519 SHA-256 HKDF (python-spake2 default group), pure Python, no key confirmation",
             spec="PyPI spake2 %s (warner/python-spake2), %s" % (version("spake2"), py),
             augmented=False, key_confirmation=False, run=spake2_once,
             kexlab="spake2-hkdf", op="full",
             differs="Ed25519 vs P-256; no key confirmation (2 messages vs 3); pure Python"),
        dict(name="peer py srp %s (3072 SHA-256)" % version("srp"),
             suite="SRP-6a RFC 5054 3072-bit group (NG_CUSTOM), SHA-256, x = H(s|H(I:P)) (no stretching), big numbers: %s" % backend,
             spec="PyPI srp %s (pysrp), %s" % (version("srp"), py),
             augmented=True, key_confirmation=True, run=lambda: srp_once(salt, verifier),
             kexlab="srp", op="full",
             differs="same group, hash and x; big numbers: %s; kexlab's sample also creates both parties from the record" % backend),
    ]
    return py, backend, schemes


def serve():
    py, backend, schemes = describe()
    hello = dict(protocol="kexlab-peer/1", label="peer-python",
                 source="kexlab peers/python (%s; pysrp backend: %s)" % (py, backend),
                 schemes=[{k: s[k] for k in ("name", "suite", "spec", "augmented", "key_confirmation", "kexlab", "op", "differs")}
                          for s in schemes])
    out = sys.stdout
    out.write(json.dumps(hello) + "\n")
    out.flush()
    for line in sys.stdin:
        f = line.split()
        if not f or f[0] == "quit":
            break
        try:
            i = int(f[1])
            run = schemes[i]["run"]
        except (IndexError, ValueError):
            out.write("error %s bad request\n" % (f[1] if len(f) > 1 else "0"))
            out.flush()
            continue
        try:
            c, t = time.thread_time_ns(), time.perf_counter_ns()
            wire = run()
            ns, cpu = time.perf_counter_ns() - t, time.thread_time_ns() - c
            out.write("%d %d %d %d\n" % (i, max(ns, 1), cpu, wire))
        except Exception as e:  # reported to kexlab, which stops sampling it
            out.write("error %d %s\n" % (i, str(e).replace("\n", " ")))
        out.flush()


def main():
    if sys.argv[1:2] == ["--serve"]:
        serve()
        return
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    warmup = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    py, backend, schemes = describe()
    started = time.time()
    for _ in range(warmup):
        for s in schemes:
            s["run"]()
    samples = []
    for i in range(n):
        for s in schemes:
            t = time.perf_counter_ns()
            wire = s["run"]()
            ns = time.perf_counter_ns() - t
            s["wire"] = wire
            samples.append(dict(scheme=s["name"], op="full", seq=len(samples), iter=i,
                                wall_ns=ns, allocs=0, alloc_bytes=0, wire_bytes=wire))
    res = dict(
        format="kexlab-results/1", label="peer-python", source="kexlab peers/python (%s; pysrp backend: %s)" % (py, backend),
        machine=dict(cores=os.cpu_count() or 0, gomaxprocs=0, os=sys.platform,
                     arch=platform.machine(), time=rfc3339(started)),
        settings=dict(n=n, min_n=n, warmup=warmup, budget_ns=0, seed=0),
        energy=dict(measured=False, reason="not measured by the peer driver"),
        schemes=[dict(name=s["name"], suite=s["suite"], spec=s["spec"], augmented=s["augmented"],
                      key_confirmation=s["key_confirmation"], size=s.get("wire", 0),
                      study_size=s.get("wire", 0), planned=n, n=n) for s in schemes],
        samples=samples, started=rfc3339(started), finished=rfc3339(time.time()),
    )
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    for s in schemes:
        v = sorted(x["wall_ns"] for x in samples if x["scheme"] == s["name"])
        print("%s: median %d ns over %d" % (s["name"], v[len(v) // 2], len(v)), file=sys.stderr)


if __name__ == "__main__":
    main()
