#!/usr/bin/env python3
"""SRP-6a peer for kexlab's interoperability tests: pysrp (PyPI "srp",
pinned in requirements.txt) in its RFC 5054 mode (rfc5054_enable()).

Usage: srp_peer.py ctypes|python

"ctypes" is pysrp's default backend (OpenSSL bignums through ctypes; the
driver fails if it cannot load), "python" its pure-Python one. The driver
reads one JSON request per line on stdin and answers one JSON line on
stdout; byte strings are hex. The protocol is in pake/srp/interop_test.go.
Nothing here computes SRP itself: every value comes from pysrp.
"""
import importlib
import json
import sys

HASHES = {"sha1": "SHA1", "sha256": "SHA256"}


def main():
    backend = sys.argv[1] if len(sys.argv) > 1 else ""
    name = {"ctypes": "srp._ctsrp", "python": "srp._pysrp"}.get(backend)
    if name is None:
        sys.exit("usage: srp_peer.py ctypes|python")
    mod = importlib.import_module(name)
    mod.rfc5054_enable()
    lines = iter(sys.stdin.readline, "")
    for line in lines:
        req = json.loads(line)
        try:
            session(mod, req, lines)
        except Exception as e:  # report, keep serving
            reply({"error": "%s: %s" % (type(e).__name__, e)})


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def receive(lines):
    return json.loads(next(lines))


def h(s):
    return bytes.fromhex(s) if s else None


def forced(mod, s):
    """A forced exponent (a or b) as the backend takes it: the OpenSSL
    backend wants 32 bytes; the pure-Python one checks for 256 bytes (its
    check counts bytes where it means bits), so it gets the same integer
    left-padded to 256 bytes."""
    e = h(s)
    if e is not None and mod.__name__ == "srp._pysrp":
        e = e.rjust(256, b"\0")
    return e


def group(mod, req):
    """Hash and group arguments: pysrp's own NG_2048, or N and g as
    NG_CUSTOM (pysrp has no 3072-bit group built in)."""
    kw = {"hash_alg": getattr(mod, HASHES[req["hash"]])}
    if req["bits"] == 2048:
        kw["ng_type"] = mod.NG_2048
    else:
        # bytes: the OpenSSL backend hands them to BN_hex2bn through ctypes.
        kw.update(ng_type=mod.NG_CUSTOM, n_hex=req["N"].encode(), g_hex=req["g"].encode())
    return kw


def session(mod, req, lines):
    op, kw = req["op"], group(mod, req)
    if op == "verifier":
        if req.get("s"):
            # pysrp makes its own salt; with a given salt, compute v the way
            # its create_salted_verification_key does.
            raise ValueError("pysrp draws its own salt")
        s, v = mod.create_salted_verification_key(h(req["I"]), h(req["P"]), salt_len=16, **kw)
        reply({"s": s.hex(), "v": v.hex()})
    elif op == "client":
        usr = mod.User(h(req["I"]), h(req["P"]), bytes_a=forced(mod, req.get("a")), **kw)
        _, A = usr.start_authentication()
        reply({"A": A.hex()})
        m = receive(lines)
        M1 = usr.process_challenge(h(m["s"]), h(m["B"]))
        if M1 is None:
            reply({"error": "process_challenge refused s, B"})
            return
        reply({"M1": M1.hex()})
        m = receive(lines)
        usr.verify_session(h(m["M2"]))
        reply({"ok": usr.authenticated(), "K": usr.get_session_key().hex() if usr.authenticated() else ""})
    elif op == "server":
        svr = mod.Verifier(h(req["I"]), h(req["s"]), h(req["v"]), h(req["A"]), bytes_b=forced(mod, req.get("b")), **kw)
        s, B = svr.get_challenge()
        if B is None:
            reply({"error": "get_challenge refused A"})
            return
        reply({"B": B.hex()})
        m = receive(lines)
        M2 = svr.verify_session(h(m["M1"]))
        if M2 is None:
            reply({"error": "M1 refused"})
            return
        reply({"M2": M2.hex(), "K": svr.get_session_key().hex()})
    else:
        raise ValueError("unknown op %r" % op)


if __name__ == "__main__":
    main()
