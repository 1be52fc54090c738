//! kexlab peer driver for RustCrypto's `spake2` (SPAKE2 on Ed25519) and
//! `srp` (SRP-6a) crates.
//!
//! Each sample is one complete exchange, timed with std::time::Instant
//! (monotonic) from the creation of the first party to the last check.
//! Schemes are interleaved round-robin after a warm-up. The output is a
//! kexlab-results/1 file (bench.Results) that `kexlab report` reads.
//!
//! usage: kexlab-peer-rust OUT.json [N] [WARMUP]
//!        kexlab-peer-rust --serve   (kexlab-peer/1 on stdin/stdout for
//!        kexlab compare -peer; see kexlab's bench/peer: a hello line, then
//!        "sample I" -> "I WALL_NS THREAD_CPU_NS BYTES")

use std::fmt::Write as _;
use std::io::{BufRead, Write as _};
use std::time::Instant;

use rand_core::{OsRng, RngCore};
use sha2::Sha256;
use spake2::{Ed25519Group, Identity, Password, Spake2};
use srp::client::SrpClient;
use srp::groups::G_3072;
use srp::server::SrpServer;

const PASSWORD: &[u8] = b"password";
const CLIENT_ID: &[u8] = b"client";
const SERVER_ID: &[u8] = b"server";

/// One SPAKE2 exchange (A and B started, both finished); returns the bytes sent.
/// The crate has no key confirmation messages: the exchange is pA, pB.
fn spake2_once() -> usize {
    let (pw, a, b) = (
        Password::new(PASSWORD),
        Identity::new(CLIENT_ID),
        Identity::new(SERVER_ID),
    );
    let (sa, ma) = Spake2::<Ed25519Group>::start_a(&pw, &a, &b);
    let (sb, mb) = Spake2::<Ed25519Group>::start_b(&pw, &a, &b);
    let ka = sa.finish(&mb).expect("spake2 A finish");
    let kb = sb.finish(&ma).expect("spake2 B finish");
    assert!(ka == kb, "spake2 keys differ");
    ma.len() + mb.len()
}

/// A registered SRP user: the server's record (salt, verifier).
struct SrpRecord {
    salt: [u8; 16],
    verifier: Vec<u8>,
}

fn srp_register() -> SrpRecord {
    let mut salt = [0u8; 16];
    OsRng.fill_bytes(&mut salt);
    let verifier = SrpClient::<Sha256>::new(&G_3072).compute_verifier(CLIENT_ID, PASSWORD, &salt);
    SrpRecord { salt, verifier }
}

/// One SRP-6a login against rec: A; s, B; M1; M2, both sides verified.
/// x = SHA-256(s || SHA-256(I ":" P)) (RFC 5054; no password stretching).
fn srp_once(rec: &SrpRecord) -> usize {
    let client = SrpClient::<Sha256>::new(&G_3072);
    let server = SrpServer::<Sha256>::new(&G_3072);
    let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
    OsRng.fill_bytes(&mut a);
    OsRng.fill_bytes(&mut b);
    let a_pub = client.compute_public_ephemeral(&a);
    let b_pub = server.compute_public_ephemeral(&b, &rec.verifier);
    let cv = client
        .process_reply(&a, CLIENT_ID, PASSWORD, &rec.salt, &b_pub)
        .expect("srp client");
    let sv = server.process_reply(&b, &rec.verifier, &a_pub).expect("srp server");
    sv.verify_client(cv.proof()).expect("srp M1");
    cv.verify_server(sv.proof()).expect("srp M2");
    assert!(cv.key() == sv.key(), "srp keys differ");
    a_pub.len() + rec.salt.len() + b_pub.len() + cv.proof().len() + sv.proof().len()
}

struct Scheme {
    name: &'static str,
    suite: &'static str,
    spec: &'static str,
    augmented: bool,
    confirm: bool,
    samples: Vec<(u128, usize)>,
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID); 0 when
/// it cannot be read.
fn thread_cpu() -> i128 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec the call writes into.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128
}

/// kexlab-peer/1: the hello line, then one exchange per "sample I".
fn serve() {
    let rec = srp_register();
    let hello = "{\"protocol\":\"kexlab-peer/1\",\"label\":\"peer-rust\",\"source\":\"kexlab peers/rust (rustc, --release)\",\"schemes\":[\
{\"name\":\"peer rust spake2 0.4.0 (Ed25519)\",\"suite\":\"SPAKE2 Ed25519 SHA-256 HKDF, no key confirmation\",\
\"spec\":\"crates.io spake2 0.4.0 (RustCrypto PAKEs)\",\"augmented\":false,\"key_confirmation\":false,\
\"kexlab\":\"spake2-hkdf\",\"op\":\"full\",\"differs\":\"Ed25519 vs P-256; no key confirmation (2 messages vs 3)\"},\
{\"name\":\"peer rust srp 0.6.0 (3072 SHA-256)\",\"suite\":\"SRP-6a RFC 5054 3072-bit group, SHA-256, x = H(s|H(I:P))\",\
\"spec\":\"crates.io srp 0.6.0 (RustCrypto PAKEs)\",\"augmented\":true,\"key_confirmation\":true,\
\"kexlab\":\"srp\",\"op\":\"full\",\"differs\":\"same group, hash and x; the crate's big numbers (num-bigint, not constant time)\"}]}";
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "{hello}").unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap_or_default();
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() || f[0] == "quit" {
            break;
        }
        let i: usize = match f.get(1).and_then(|s| s.parse().ok()) {
            Some(i) if i < 2 => i,
            _ => {
                writeln!(out, "error 0 bad request").unwrap();
                out.flush().unwrap();
                continue;
            }
        };
        let (c, t) = (thread_cpu(), Instant::now());
        let bytes = if i == 0 { spake2_once() } else { srp_once(&rec) };
        let (ns, cpu) = (t.elapsed().as_nanos().max(1), (thread_cpu() - c).max(0));
        writeln!(out, "{i} {ns} {cpu} {bytes}").unwrap();
        out.flush().unwrap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        serve();
        return;
    }
    let out = args.get(1).expect("usage: kexlab-peer-rust OUT.json [N] [WARMUP]");
    let n: usize = args.get(2).map_or(100, |s| s.parse().expect("N"));
    let warmup: usize = args.get(3).map_or(10, |s| s.parse().expect("WARMUP"));

    let rec = srp_register();
    let mut schemes = [
        Scheme {
            name: "peer rust spake2 0.4.0 (Ed25519)",
            suite: "SPAKE2 Ed25519 SHA-256 HKDF (warner/python-spake2 compatible), no key confirmation",
            spec: "crates.io spake2 0.4.0 (RustCrypto PAKEs)",
            augmented: false,
            confirm: false,
            samples: Vec::new(),
        },
        Scheme {
            name: "peer rust srp 0.6.0 (3072 SHA-256)",
            suite: "SRP-6a RFC 5054 3072-bit group, SHA-256, x = H(s|H(I:P)) (no stretching)",
            spec: "crates.io srp 0.6.0 (RustCrypto PAKEs)",
            augmented: true,
            confirm: true,
            samples: Vec::new(),
        },
    ];
    let run = |i: usize, rec: &SrpRecord| -> usize {
        if i == 0 {
            spake2_once()
        } else {
            srp_once(rec)
        }
    };
    for _ in 0..warmup {
        for i in 0..schemes.len() {
            run(i, &rec);
        }
    }
    for _ in 0..n {
        for i in 0..schemes.len() {
            let t = Instant::now();
            let bytes = run(i, &rec);
            let ns = t.elapsed().as_nanos();
            schemes[i].samples.push((ns, bytes));
        }
    }

    let cores = std::thread::available_parallelism().map_or(0, |c| c.get());
    let mut j = String::new();
    write!(
        j,
        "{{\"format\":\"kexlab-results/1\",\"label\":\"peer-rust\",\"source\":\"kexlab peers/rust (rustc, --release)\",\
\"machine\":{{\"cores\":{cores},\"gomaxprocs\":0,\"os\":\"{}\",\"arch\":\"{}\",\"time\":\"{}\"}},\
\"settings\":{{\"n\":{n},\"min_n\":{n},\"warmup\":{warmup},\"budget_ns\":0,\"seed\":0}},\
\"energy\":{{\"measured\":false,\"reason\":\"not measured by the peer driver\"}},\"schemes\":[",
        std::env::consts::OS,
        std::env::consts::ARCH,
        esc(&std::env::var("PEERS_TIME").unwrap_or_default()),
    )
    .unwrap();
    for (i, s) in schemes.iter().enumerate() {
        let size = s.samples.first().map_or(0, |x| x.1);
        write!(
            j,
            "{}{{\"name\":\"{}\",\"suite\":\"{}\",\"spec\":\"{}\",\"augmented\":{},\"key_confirmation\":{},\"size\":{size},\"study_size\":{size},\"planned\":{n},\"n\":{}}}",
            if i > 0 { "," } else { "" },
            esc(s.name),
            esc(s.suite),
            esc(s.spec),
            s.augmented,
            s.confirm,
            s.samples.len()
        )
        .unwrap();
    }
    j.push_str("],\"samples\":[");
    let mut seq = 0;
    for k in 0..n {
        for s in &schemes {
            let (ns, bytes) = s.samples[k];
            write!(
                j,
                "{}{{\"scheme\":\"{}\",\"op\":\"full\",\"seq\":{seq},\"iter\":{k},\"wall_ns\":{ns},\"allocs\":0,\"alloc_bytes\":0,\"wire_bytes\":{bytes}}}",
                if seq > 0 { "," } else { "" },
                esc(s.name)
            )
            .unwrap();
            seq += 1;
        }
    }
    j.push_str("]}\n");
    std::fs::write(out, j).expect("write output");
    for s in &schemes {
        let mut v: Vec<u128> = s.samples.iter().map(|x| x.0).collect();
        v.sort_unstable();
        eprintln!("{}: median {} ns over {}", s.name, v[v.len() / 2], v.len());
    }
}
