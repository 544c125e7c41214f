//! Position and ruleset parsing never panics; what parses prints back to itself.
#![no_main]
use libfuzzer_sys::fuzz_target;
use matombo_core::{Position, Ruleset};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Ok(r) = s.parse::<Ruleset>() {
        assert_eq!(r.to_string().parse::<Ruleset>().unwrap(), r);
    }
    if let Ok(p) = s.parse::<Position>() {
        let again: Position = p.to_string().parse().unwrap();
        assert_eq!(again, p);
        assert_eq!(p.hash(), p.full_hash());
        assert!(p.total_stones() <= p.ruleset().total_stones());
        // Everything a parsed position can do must work without panicking.
        let _ = p.turns().take(50).count();
        let _ = p.count_turns();
    }
});
