//! make prims: the Rust side of kexlab's primitive comparison
//! (peers/prims/run.sh, peers/prims/prims.py).
//!
//! Reads one command a line from stdin, `OP BATCH ARGS...` (arguments in
//! hex), runs OP BATCH times on those fixed inputs and prints one line:
//! the process CPU time per operation in nanoseconds (getrusage
//! RUSAGE_SELF, user + system, around the loop only) and the SHA-256 of the
//! last result, which the script compares with the other drivers' before
//! it times anything.
//!
//!   pbkdf2 BATCH ITER DKLEN PASSWORD SALT   RustCrypto pbkdf2, HMAC-SHA-256
//!   mlkem512 BATCH D Z M                     libcrux-ml-kem: keygen(d‖z),
//!                                            encaps(pk, m), decaps(sk, ct);
//!                                            hash of pk ‖ ct ‖ ss

use std::hint::black_box;
use std::io::{self, BufRead, Write};

use libcrux_ml_kem::mlkem512;
use sha2::{Digest, Sha256};

fn cpu_ns() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    assert_eq!(rc, 0, "getrusage");
    let t = |tv: libc::timeval| tv.tv_sec as f64 * 1e9 + tv.tv_usec as f64 * 1e3;
    t(ru.ru_utime) + t(ru.ru_stime)
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd hex length {}", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn arr<const N: usize>(s: &str) -> Result<[u8; N], String> {
    unhex(s)?
        .try_into()
        .map_err(|v: Vec<u8>| format!("want {N} bytes, have {}", v.len()))
}

/// Runs f batch times and returns (CPU ns per op, SHA-256 of the last result).
fn timed<F: FnMut() -> Vec<u8>>(batch: u64, mut f: F) -> (f64, String) {
    let mut last = Vec::new();
    let t0 = cpu_ns();
    for _ in 0..batch {
        last = black_box(f());
    }
    let t1 = cpu_ns();
    ((t1 - t0) / batch as f64, hex(&Sha256::digest(&last)))
}

fn command(line: &str) -> Result<String, String> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() < 2 {
        return Err(format!("bad command {line:?}"));
    }
    let batch: u64 = f[1].parse().map_err(|e| format!("batch: {e}"))?;
    if batch == 0 {
        return Err("batch 0".into());
    }
    let (ns, sum) = match (f[0], &f[2..]) {
        ("pbkdf2", [iter, dklen, pw, salt]) => {
            let iter: u32 = iter.parse().map_err(|e| format!("iter: {e}"))?;
            let dklen: usize = dklen.parse().map_err(|e| format!("dklen: {e}"))?;
            let (pw, salt) = (unhex(pw)?, unhex(salt)?);
            timed(batch, || {
                let mut out = vec![0u8; dklen];
                pbkdf2::pbkdf2_hmac::<Sha256>(black_box(&pw), &salt, iter, &mut out);
                out
            })
        }
        ("mlkem512", [d, z, m]) => {
            let (d, z, m) = (arr::<32>(d)?, arr::<32>(z)?, arr::<32>(m)?);
            let mut seed = [0u8; 64];
            seed[..32].copy_from_slice(&d);
            seed[32..].copy_from_slice(&z);
            timed(batch, || {
                let kp = mlkem512::generate_key_pair(black_box(seed));
                let (ct, ss) = mlkem512::encapsulate(kp.public_key(), black_box(m));
                let ss2 = mlkem512::decapsulate(kp.private_key(), &ct);
                assert!(ss == ss2, "ML-KEM shared secrets differ");
                let mut out = Vec::with_capacity(800 + 768 + 32);
                out.extend_from_slice(kp.public_key().as_slice());
                out.extend_from_slice(ct.as_slice());
                out.extend_from_slice(&ss);
                out
            })
        }
        _ => return Err(format!("unknown op or arguments {line:?}")),
    };
    Ok(format!("{ns:.1} {sum}"))
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        if line.trim().is_empty() {
            continue;
        }
        match command(&line) {
            Ok(s) => writeln!(out, "{s}").unwrap(),
            Err(e) => writeln!(out, "error {e}").unwrap(),
        }
        out.flush().unwrap();
    }
}
