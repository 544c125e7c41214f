//! Token and decision parsing never panics; tokens round-trip; resolving a token against a
//! start position never panics and, when it succeeds, agrees with the turn listing.
#![no_main]
use libfuzzer_sys::fuzz_target;
use matombo_core::{Decision, Position, Token};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    let _ = s.parse::<Decision>();
    if let Ok(t) = s.parse::<Token>() {
        assert_eq!(t.to_string(), s);
        for name in ["tsoro:8", "nsolo:8", "tsoro:6,heads=1,bonus=3"] {
            let p = Position::start(name.parse().unwrap());
            if let Ok(after) = p.play(&t) {
                assert!(p.turns().any(|(u, q)| u == t && q == after));
            }
        }
    }
});
