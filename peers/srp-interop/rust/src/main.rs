//! SRP-6a peer for kexlab's interoperability tests: the RustCrypto `srp`
//! crate (pinned in Cargo.toml) with its default settings: `Client::new()`
//! and `Server::new()`, `process_reply` (RFC 5054: H(PAD(g)) in M1, u and k
//! padded, A, B and S as the crate encodes them).
//!
//! One JSON request per line on stdin, one JSON answer per line on stdout;
//! byte strings are hex. The protocol is in pake/srp/interop_test.go.
//! Nothing here computes SRP itself: every value comes from the crate.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};
use sha1::Sha1;
use sha2::Sha256;
use srp::groups::{G2048, G3072};
use srp::{Client, Group, Server};

type Lines<'a> = &'a mut dyn Iterator<Item = io::Result<String>>;

fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    while let Some(Ok(line)) = lines.next() {
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(req) => session(&req, &mut lines),
            Err(e) => Err(format!("bad request: {e}")),
        };
        if let Err(e) = answer {
            reply(json!({ "error": e }));
        }
    }
}

fn reply(v: Value) {
    let mut out = io::stdout().lock();
    writeln!(out, "{v}").expect("stdout");
    out.flush().expect("stdout");
}

fn receive(lines: Lines<'_>) -> Result<Value, String> {
    let line = lines
        .next()
        .ok_or("end of input")?
        .map_err(|e| e.to_string())?;
    serde_json::from_str(&line).map_err(|e| e.to_string())
}

/// The hex field `name` of `v`, or None if it is absent or null.
fn field(v: &Value, name: &str) -> Result<Option<Vec<u8>>, String> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => hex::decode(s).map(Some).map_err(|e| format!("{name}: {e}")),
        Some(_) => Err(format!("{name}: not a string")),
    }
}

fn need(v: &Value, name: &str) -> Result<Vec<u8>, String> {
    field(v, name)?.ok_or(format!("{name} missing"))
}

/// A forced ephemeral secret, or 48 random bytes (srp::EphemeralSecret).
fn ephemeral(v: &Value, name: &str) -> Result<Vec<u8>, String> {
    match field(v, name)? {
        Some(e) => Ok(e),
        None => {
            let mut e = vec![0u8; 48];
            getrandom::fill(&mut e).map_err(|e| e.to_string())?;
            Ok(e)
        }
    }
}

fn session(req: &Value, lines: Lines<'_>) -> Result<(), String> {
    let bits = req["bits"].as_u64().ok_or("bits missing")?;
    let hash = req["hash"].as_str().ok_or("hash missing")?;
    match (bits, hash) {
        (2048, "sha1") => run::<G2048, Sha1>(req, lines),
        (2048, "sha256") => run::<G2048, Sha256>(req, lines),
        (3072, "sha1") => run::<G3072, Sha1>(req, lines),
        (3072, "sha256") => run::<G3072, Sha256>(req, lines),
        _ => Err(format!("no suite {bits} {hash}")),
    }
}

fn run<G: Group, D: sha2::Digest>(req: &Value, lines: Lines<'_>) -> Result<(), String> {
    let (i, s) = (need(req, "I")?, field(req, "s")?);
    match req["op"].as_str().ok_or("op missing")? {
        "verifier" => {
            let s = s.ok_or("the crate takes the salt from its caller: s missing")?;
            let v = Client::<G, D>::new().compute_verifier(&i, &need(req, "P")?, &s);
            reply(json!({ "s": hex::encode(&s), "v": hex::encode(v) }));
        }
        "client" => {
            let client = Client::<G, D>::new();
            let a = ephemeral(req, "a")?;
            reply(json!({ "A": hex::encode(client.compute_public_ephemeral(&a)) }));
            let m = receive(lines)?;
            let verifier = client
                .process_reply(&a, &i, &need(req, "P")?, &need(&m, "s")?, &need(&m, "B")?)
                .map_err(|e| format!("process_reply: {e}"))?;
            reply(json!({ "M1": hex::encode(verifier.proof()) }));
            let m = receive(lines)?;
            match verifier.verify_server(&need(&m, "M2")?) {
                Ok(k) => reply(json!({ "ok": true, "K": hex::encode(k), "S": hex::encode(verifier.key()) })),
                Err(_) => reply(json!({ "ok": false })),
            }
        }
        "server" => {
            let server = Server::<G, D>::new();
            let (b, v, a_pub) = (ephemeral(req, "b")?, need(req, "v")?, need(req, "A")?);
            let s = s.ok_or("s missing")?;
            let b_pub = server.compute_public_ephemeral(&b, &v);
            let verifier = server
                .process_reply(&i, &s, &b, &v, &a_pub)
                .map_err(|e| format!("process_reply: {e}"))?;
            reply(json!({ "B": hex::encode(b_pub) }));
            let m = receive(lines)?;
            match verifier.verify_client(&need(&m, "M1")?) {
                Ok(k) => reply(json!({ "M2": hex::encode(verifier.proof()), "K": hex::encode(k), "S": hex::encode(verifier.key()) })),
                Err(_) => reply(json!({ "error": "M1 refused" })),
            }
        }
        op => return Err(format!("unknown op {op:?}")),
    }
    Ok(())
}
