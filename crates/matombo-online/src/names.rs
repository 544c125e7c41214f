//! Names and chat lines that cannot deceive (issue 42): every name and chat line is
//! normalised to NFC; bidirectional controls and every other format character (except the
//! joiners U+200C and U+200D, which Bengali needs) are refused, as are more than
//! [`MAX_COMBINING_RUN`] combining marks in a row; and two names whose confusable
//! skeletons (Unicode TS #39) agree count as the same name where names must differ (a
//! room's seats, the lobby's identities). Used by every place that accepts a name or a
//! chat line: the protocol's parsers and the HTTP routes.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization as _;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory as _};

/// Combining marks accepted in a row (stacked marks draw over the text around them).
pub const MAX_COMBINING_RUN: usize = 4;

/// The text in Unicode normalisation form C.
pub fn nfc(text: &str) -> String {
    text.nfc().collect()
}

/// Why `text` cannot be shown as a name or chat line, if it cannot: a sentence for the
/// error's reason.
pub fn refusal(text: &str) -> Option<&'static str> {
    let mut run = 0;
    for c in text.nfc() {
        if c != '\u{200C}' && c != '\u{200D}' && c.general_category() == GeneralCategory::Format {
            return Some("no bidirectional controls or other invisible format characters");
        }
        if is_combining_mark(c) {
            run += 1;
            if run > MAX_COMBINING_RUN {
                return Some("at most 4 combining marks in a row");
            }
        } else {
            run = 0;
        }
    }
    None
}

/// The name as compared for look-alikes: the confusable skeleton of its lower case.
pub fn skeleton(name: &str) -> String {
    let lower = nfc(name.trim()).to_lowercase();
    unicode_security::skeleton(&lower).collect()
}

/// Whether two names look alike (the same name, by case or by confusable letters). Empty
/// names look like nothing.
pub fn look_alike(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() || b.is_empty() {
        return false;
    }
    // Either skeleton: `I` and `l` are confusable, `i` and `l` are not.
    let raw = |s: &str| -> String { unicode_security::skeleton(&nfc(s)).collect() };
    skeleton(a) == skeleton(b) || raw(a) == raw(b)
}

/// The lobby identities' names seen by this server since it started, by skeleton: a
/// player may not take a name that looks like another player's.
#[derive(Default)]
pub(crate) struct Registry {
    /// Skeleton → player id; player id → his skeleton.
    inner: std::sync::Mutex<(std::collections::HashMap<String, String>, std::collections::HashMap<String, String>)>,
}

/// Names remembered at most (a full registry starts again: it is a guard, not a store).
const REGISTRY_MAX: usize = 200_000;

impl Registry {
    /// The id of another player whose name looks like `name`.
    pub(crate) fn taken_by_other(&self, player: &str, name: &str) -> Option<String> {
        let g = self.inner.lock().expect("names lock");
        g.0.get(&skeleton(name)).filter(|id| id.as_str() != player).cloned()
    }

    /// `player` is called `name` now.
    pub(crate) fn set(&self, player: &str, name: &str) {
        let mut g = self.inner.lock().expect("names lock");
        if g.0.len() >= REGISTRY_MAX {
            g.0.clear();
            g.1.clear();
        }
        if let Some(old) = g.1.remove(player) {
            if g.0.get(&old).is_some_and(|id| id == player) {
                g.0.remove(&old);
            }
        }
        let k = skeleton(name);
        // The first holder of a look-alike keeps it.
        if !k.is_empty() && !g.0.contains_key(&k) {
            g.0.insert(k.clone(), player.to_string());
            g.1.insert(player.to_string(), k);
        }
    }
}

/// Whether `name`, taken by a seat holder of `side`, looks like a name on the other side's
/// roster of the room (its seat's name, or a name its connected holders gave).
pub(crate) async fn clashes_in_room(h: &crate::handle::RoomHandle, side: matombo_core::Side, name: &str) -> bool {
    let other = side.opponent().index();
    let seat_name = h.room.lock().await.seats[other].name.clone();
    if look_alike(name, &seat_name) {
        return true;
    }
    let p = h.presence.lock().expect("presence lock");
    p.players[other].iter().any(|n| look_alike(name, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_controls_and_format_characters_are_refused_joiners_kept() {
        for bad in [
            "\u{202e}iadneT",
            "Ten\u{200b}dai",
            "a\u{200e}",
            "b\u{200f}",
            "\u{2066}x\u{2069}",
            "x\u{feff}",
            "x\u{061c}y",
            "\u{2060}",
        ] {
            assert!(refusal(bad).is_some(), "{bad:?}");
        }
        // Bengali needs the joiners.
        assert_eq!(refusal("ক্\u{200D}ষ"), None);
        assert_eq!(refusal("র\u{200C}্য"), None);
        assert_eq!(refusal("Tendai Moyo"), None);
    }

    #[test]
    fn more_than_four_combining_marks_in_a_row_are_refused() {
        assert_eq!(refusal("e\u{301}\u{302}\u{303}\u{304}"), None);
        assert!(refusal("x\u{301}\u{302}\u{303}\u{304}\u{305}").is_some());
        // NFC first: a precomposed letter with marks counts the marks only.
        assert_eq!(refusal("é\u{302}\u{303}\u{304}\u{305}"), None);
    }

    #[test]
    fn names_are_normalised_and_look_alikes_found() {
        assert_eq!(nfc("Te\u{301}ndai"), "Téndai");
        // Cyrillic а and е look like Latin a and e; case does not make a new name.
        assert!(look_alike("Tendai", "T\u{435}nd\u{430}i"));
        assert!(look_alike("Tendai", "tendai "));
        assert!(look_alike("Il", "lI"));
        assert!(look_alike("rn", "m"));
        assert!(!look_alike("Tendai", "Rudo"));
        assert!(!look_alike("", ""));
    }
}
