//! Record parsing never panics; a record that parses writes back to a record that parses
//! to the same game and annotations.
#![no_main]
use libfuzzer_sys::fuzz_target;
use matombo_core::Record;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Ok(r) = s.parse::<Record>() {
        let text = r.to_string();
        let again: Record = text.parse().unwrap();
        assert_eq!(again.game.moves(), r.game.moves());
        assert_eq!(again.game.position(), r.game.position());
        assert_eq!(again.comments, r.comments);
        assert_eq!(again.annotations, r.annotations);
    }
});
