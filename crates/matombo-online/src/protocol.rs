//! The WebSocket message format: client messages parsed strictly (size, shape, field
//! lengths) and server messages written as JSON text.
//!
//! The lobby's messages ([`LobbyMsg`], [`parse_lobby`]) and the room's chat, mute,
//! rematch and abort are documented in docs/api.md ("Players, ratings and the lobby").
//!
//! Client → server (one JSON object per text message):
//! - `{"type":"hello","token":"<seat token>","name":"Rudo"}` — first message; both
//!   fields optional (no token: watch only).
//! - `{"type":"turn","ply":3,"move":"B2+"}` — play ply 3 (the number of turns played
//!   before it); a turn sent twice is applied once.
//! - `{"type":"resign"}`, `{"type":"sync"}` (ask for the full state), `{"type":"ping"}`.
//! - Team games: `{"type":"chat","text":"…","channel":"team"}`, `{"type":"mark","holes":[…]}`,
//!   `{"type":"propose","move":"B2+"}`, `{"type":"vote","ply":0,"move":"B2+"}`,
//!   `{"type":"captain","member":"…"}`, `{"type":"remove","member":"…"}`.
//!
//! Server → client: `state` (full state), `turn` (a turn was played and stored),
//! `end`, `presence`, `ack` (duplicate turn), `pong`, `error` (the error body of
//! docs/api.md, `error` (a code) and `message`, with the `ply`),
//! `closed` (`reason`: `unclaimed` or `abandoned`, `message`: the game was closed unfinished
//! and takes no more turns).

use matombo_api::ErrorCode;
use serde::Deserialize;

/// Largest client message accepted, in bytes.
pub const MAX_MESSAGE: usize = 4096;
/// Longest seat token accepted.
pub const MAX_TOKEN: usize = 64;
/// Longest display name accepted (characters).
pub const MAX_NAME: usize = 40;
/// Longest turn text accepted.
pub const MAX_MOVE: usize = 1024;

/// A message from a client.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// Introduces the connection, with a seat token to play.
    Hello {
        /// The seat token (absent: spectator).
        #[serde(default)]
        token: Option<String>,
        /// A display name.
        #[serde(default)]
        name: Option<String>,
    },
    /// Plays a turn.
    Turn {
        /// Turns played before this one.
        ply: u32,
        /// The turn in notation.
        #[serde(rename = "move")]
        turn: String,
    },
    /// Resigns the game for the connection's side.
    Resign {},
    /// Asks for the full state.
    Sync {},
    /// Keep-alive.
    Ping {},
    /// A chat line (players' channel for a seat holder, spectators' channel otherwise;
    /// `"channel": "team"`: the sender's team only).
    Chat {
        /// Plain text.
        text: String,
        /// `team` for the team channel; absent for the usual one.
        #[serde(default)]
        channel: Option<String>,
    },
    /// Stops receiving a sender's chat on this connection.
    Mute {
        /// The sender (`south`, `north` or `w<n>`).
        from: String,
    },
    /// Receives a muted sender's chat again.
    Unmute {
        /// The sender.
        from: String,
    },
    /// Offers a rematch, or accepts the other side's offer (after the end).
    Rematch {},
    /// Closes the game before its first turn, without a result.
    Abort {},
    /// Team games: the captain passes the captaincy to another member of his side.
    Captain {
        /// The new captain's member id.
        member: String,
    },
    /// Team games: the captain removes a member of his side.
    Remove {
        /// The member id.
        member: String,
    },
    /// Team games (captain mode): proposes a turn to one's team.
    Propose {
        /// The turn in notation.
        #[serde(rename = "move")]
        turn: String,
    },
    /// Team games (vote mode): votes for a turn of ply `ply`.
    Vote {
        /// Turns played before it.
        ply: u32,
        /// The turn in notation.
        #[serde(rename = "move")]
        turn: String,
    },
    /// Team games: marks holes for one's team (an empty list clears).
    Mark {
        /// Hole labels such as `B2` or `a5`.
        holes: Vec<String>,
    },
}

/// Most holes a `mark` message may name (see [`crate::team::MAX_MARKS`]).
pub const MAX_MARKS: usize = crate::team::MAX_MARKS;

/// Longest chat line (characters).
pub const MAX_CHAT: usize = 300;
/// Longest player display name (characters).
pub const MAX_PLAYER_NAME: usize = 24;
/// Shortest and longest player secret.
pub const PLAYER_SECRET: (usize, usize) = (32, 64);
/// Longest challenge id, ruleset name or sender id accepted.
pub const MAX_ID: usize = 40;

pub use matombo_api::online::SideChoice;

fn yes() -> bool {
    true
}

/// A message from a client of the lobby's WebSocket.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LobbyMsg {
    /// Introduces the connection (first message).
    Hello {
        /// The player secret (absent: watch the lists only).
        #[serde(default)]
        player: Option<String>,
        /// A display name to set.
        #[serde(default)]
        name: Option<String>,
        /// A transfer code: move that identity to this secret.
        #[serde(default)]
        transfer: Option<String>,
    },
    /// Changes the display name.
    Name {
        /// The new name.
        name: String,
    },
    /// Creates a challenge.
    Challenge {
        /// Ruleset name (`tsoro:8,heads=1`).
        ruleset: String,
        /// The challenger's side.
        #[serde(default)]
        side: Option<SideChoice>,
        /// Time control (absent: untimed).
        #[serde(default)]
        clock: Option<super::room::TimeControl>,
        /// Rated (default true).
        #[serde(default = "yes")]
        rated: bool,
        /// Listed to everyone (default true), or link-only.
        #[serde(default = "yes")]
        open: bool,
    },
    /// Accepts a challenge.
    Accept {
        /// Challenge id.
        id: String,
    },
    /// Withdraws one's own challenge.
    Cancel {
        /// Challenge id.
        id: String,
    },
    /// Quick pairing: waits for an opponent of similar rating.
    Seek {
        /// Ruleset name.
        ruleset: String,
        /// Time control (absent: untimed).
        #[serde(default)]
        clock: Option<super::room::TimeControl>,
        /// Rated (default true).
        #[serde(default = "yes")]
        rated: bool,
    },
    /// Stops waiting for a pairing.
    Unseek {},
    /// Asks for a code to move the identity to another device.
    TransferCode {},
    /// Keep-alive.
    Ping {},
}

/// Why a client message was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// Too large.
    #[error("message too large: {0} bytes (limit {MAX_MESSAGE})")]
    TooLarge(usize),
    /// Not valid JSON of a known message.
    #[error("malformed message: {0}")]
    Malformed(String),
    /// A field is too long or invalid.
    #[error("invalid field {field}: {reason}")]
    Field {
        /// The field.
        field: &'static str,
        /// Why.
        reason: &'static str,
    },
}

impl ProtocolError {
    /// The code sent in error messages.
    pub fn code(&self) -> ErrorCode {
        match self {
            ProtocolError::TooLarge(_) => ErrorCode::TooLarge,
            ProtocolError::Malformed(_) => ErrorCode::Malformed,
            ProtocolError::Field { .. } => ErrorCode::InvalidField,
        }
    }
}

/// Parses a client message. Never panics; any refusal says why.
pub fn parse(bytes: &[u8]) -> Result<ClientMsg, ProtocolError> {
    if bytes.len() > MAX_MESSAGE {
        return Err(ProtocolError::TooLarge(bytes.len()));
    }
    let msg: ClientMsg = serde_json::from_slice(bytes).map_err(|e| {
        // serde_json's message may quote input; keep it short, cut on a character
        // boundary (a byte cut panics inside a multi-byte character).
        ProtocolError::Malformed(super::room::truncate(&e.to_string(), 120))
    })?;
    match &msg {
        ClientMsg::Hello { token, name } => {
            if let Some(t) = token {
                if t.len() > MAX_TOKEN || !t.bytes().all(|b| b.is_ascii_alphanumeric()) {
                    return Err(ProtocolError::Field { field: "token", reason: "at most 64 letters and digits" });
                }
            }
            if let Some(n) = name {
                if n.chars().count() > MAX_NAME || n.chars().any(char::is_control) {
                    return Err(ProtocolError::Field {
                        field: "name",
                        reason: "at most 40 characters, no control characters",
                    });
                }
                if let Some(reason) = super::names::refusal(n) {
                    return Err(ProtocolError::Field { field: "name", reason });
                }
            }
        }
        ClientMsg::Turn { turn, .. } | ClientMsg::Propose { turn } | ClientMsg::Vote { turn, .. }
            if turn.len() > MAX_MOVE =>
        {
            return Err(ProtocolError::Field { field: "move", reason: "too long" });
        }
        ClientMsg::Chat { text, channel } => {
            check_chat(text)?;
            if channel.as_deref().is_some_and(|c| c != "team") {
                return Err(ProtocolError::Field { field: "channel", reason: "team, or absent" });
            }
        }
        ClientMsg::Captain { member } | ClientMsg::Remove { member } => check_id("member", member)?,
        ClientMsg::Mark { holes } if holes.len() > MAX_MARKS || holes.iter().any(|h| h.is_empty() || h.len() > 4) => {
            return Err(ProtocolError::Field { field: "holes", reason: "at most 16 hole labels such as B2" });
        }
        ClientMsg::Mute { from } | ClientMsg::Unmute { from } => check_id("from", from)?,
        _ => {}
    }
    // Names and chat lines travel on in NFC (see `names`).
    let mut msg = msg;
    match &mut msg {
        ClientMsg::Hello { name: Some(n), .. } => *n = super::names::nfc(n),
        ClientMsg::Chat { text, .. } => *text = super::names::nfc(text),
        _ => {}
    }
    Ok(msg)
}

fn check_chat(text: &str) -> Result<(), ProtocolError> {
    let n = text.chars().count();
    if n == 0 || n > MAX_CHAT || text.chars().any(char::is_control) || text.trim().is_empty() {
        return Err(ProtocolError::Field { field: "text", reason: "1 to 300 characters, no control characters" });
    }
    if let Some(reason) = super::names::refusal(text) {
        return Err(ProtocolError::Field { field: "text", reason });
    }
    Ok(())
}

fn check_id(field: &'static str, id: &str) -> Result<(), ProtocolError> {
    if id.is_empty() || id.len() > MAX_ID || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ProtocolError::Field { field, reason: "at most 40 letters and digits" });
    }
    Ok(())
}

/// Checks a player display name: 1 to 24 characters once trimmed, no control characters.
pub fn check_player_name(name: &str) -> Result<(), ProtocolError> {
    let t = name.trim();
    let n = t.chars().count();
    if n == 0 || n > MAX_PLAYER_NAME || t.chars().any(char::is_control) {
        return Err(ProtocolError::Field { field: "name", reason: "1 to 24 characters, no control characters" });
    }
    if let Some(reason) = super::names::refusal(t) {
        return Err(ProtocolError::Field { field: "name", reason });
    }
    Ok(())
}

fn check_ruleset_text(r: &str) -> Result<(), ProtocolError> {
    if r.is_empty() || r.len() > MAX_ID || !r.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ProtocolError::Field { field: "ruleset", reason: "a ruleset name such as tsoro:8" });
    }
    Ok(())
}

fn check_clock(c: &Option<super::room::TimeControl>) -> Result<(), ProtocolError> {
    if let Some(c) = c {
        if c.initial_ms < 1000 || c.initial_ms > super::room::MAX_CLOCK_MS || c.increment_ms > 3_600_000 {
            return Err(ProtocolError::Field {
                field: "clock",
                reason: "initial_ms from 1000 to 86400000, increment_ms at most 3600000",
            });
        }
    }
    Ok(())
}

/// Parses a lobby client message. Never panics; any refusal says why. The ruleset is
/// checked for shape here and read by the lobby (`bad_ruleset`).
pub fn parse_lobby(bytes: &[u8]) -> Result<LobbyMsg, ProtocolError> {
    if bytes.len() > MAX_MESSAGE {
        return Err(ProtocolError::TooLarge(bytes.len()));
    }
    let mut msg: LobbyMsg = serde_json::from_slice(bytes)
        .map_err(|e| ProtocolError::Malformed(super::room::truncate(&e.to_string(), 120)))?;
    // Names are kept in NFC, so the NFC form is what must pass the checks (composing can
    // change what they see).
    if let LobbyMsg::Hello { name: Some(n), .. } | LobbyMsg::Name { name: n } = &mut msg {
        *n = super::names::nfc(n);
    }
    match &msg {
        LobbyMsg::Hello { player, name, transfer } => {
            if let Some(p) = player {
                let (lo, hi) = PLAYER_SECRET;
                if p.len() < lo || p.len() > hi || !p.bytes().all(|b| b.is_ascii_alphanumeric()) {
                    return Err(ProtocolError::Field { field: "player", reason: "32 to 64 letters and digits" });
                }
            }
            if let Some(n) = name {
                check_player_name(n)?;
            }
            if let Some(t) = transfer {
                if player.is_none() {
                    return Err(ProtocolError::Field { field: "transfer", reason: "comes with a fresh player secret" });
                }
                check_id("transfer", t)?;
            }
        }
        LobbyMsg::Name { name } => check_player_name(name)?,
        LobbyMsg::Challenge { ruleset, clock, .. } | LobbyMsg::Seek { ruleset, clock, .. } => {
            check_ruleset_text(ruleset)?;
            check_clock(clock)?;
        }
        LobbyMsg::Accept { id } | LobbyMsg::Cancel { id } => check_id("id", id)?,
        LobbyMsg::Unseek {} | LobbyMsg::TransferCode {} | LobbyMsg::Ping {} => {}
    }
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_each_message() {
        assert_eq!(
            parse(br#"{"type":"turn","ply":3,"move":"B2+"}"#),
            Ok(ClientMsg::Turn { ply: 3, turn: "B2+".into() })
        );
        assert_eq!(parse(br#"{"type":"hello"}"#), Ok(ClientMsg::Hello { token: None, name: None }));
        assert_eq!(parse(br#"{"type":"resign"}"#), Ok(ClientMsg::Resign {}));
        assert_eq!(parse(br#"{"type":"sync"}"#), Ok(ClientMsg::Sync {}));
        assert_eq!(
            parse(br#"{"type":"chat","text":"gg <b>"}"#),
            Ok(ClientMsg::Chat { text: "gg <b>".into(), channel: None })
        );
        assert_eq!(
            parse(br#"{"type":"chat","text":"B2?","channel":"team"}"#),
            Ok(ClientMsg::Chat { text: "B2?".into(), channel: Some("team".into()) })
        );
        assert_eq!(parse(br#"{"type":"captain","member":"m1"}"#), Ok(ClientMsg::Captain { member: "m1".into() }));
        assert_eq!(parse(br#"{"type":"remove","member":"m1"}"#), Ok(ClientMsg::Remove { member: "m1".into() }));
        assert_eq!(parse(br#"{"type":"propose","move":"B2+"}"#), Ok(ClientMsg::Propose { turn: "B2+".into() }));
        assert_eq!(
            parse(br#"{"type":"vote","ply":0,"move":"B2+"}"#),
            Ok(ClientMsg::Vote { ply: 0, turn: "B2+".into() })
        );
        assert_eq!(
            parse(br#"{"type":"mark","holes":["B2","a5"]}"#),
            Ok(ClientMsg::Mark { holes: vec!["B2".into(), "a5".into()] })
        );
        assert_eq!(parse(br#"{"type":"mute","from":"w3"}"#), Ok(ClientMsg::Mute { from: "w3".into() }));
        assert_eq!(parse(br#"{"type":"rematch"}"#), Ok(ClientMsg::Rematch {}));
        assert_eq!(parse(br#"{"type":"abort"}"#), Ok(ClientMsg::Abort {}));
    }

    #[test]
    fn parses_lobby_messages() {
        let secret = "a".repeat(32);
        assert_eq!(
            parse_lobby(format!(r#"{{"type":"hello","player":"{secret}","name":" Rudo "}}"#).as_bytes()),
            Ok(LobbyMsg::Hello { player: Some(secret.clone()), name: Some(" Rudo ".into()), transfer: None })
        );
        assert_eq!(
            parse_lobby(br#"{"type":"challenge","ruleset":"tsoro:8,heads=1"}"#),
            Ok(LobbyMsg::Challenge {
                ruleset: "tsoro:8,heads=1".into(),
                side: None,
                clock: None,
                rated: true,
                open: true
            })
        );
        assert_eq!(
            parse_lobby(br#"{"type":"seek","ruleset":"nsolo:8","rated":false}"#),
            Ok(LobbyMsg::Seek { ruleset: "nsolo:8".into(), clock: None, rated: false })
        );
        assert_eq!(parse_lobby(br#"{"type":"accept","id":"abc"}"#), Ok(LobbyMsg::Accept { id: "abc".into() }));
        assert_eq!(parse_lobby(br#"{"type":"unseek"}"#), Ok(LobbyMsg::Unseek {}));
    }

    #[test]
    fn refuses_bad_lobby_messages() {
        for (bad, code) in [
            (&br#"{"type":"hello","player":"short"}"#[..], ErrorCode::InvalidField),
            (br#"{"type":"hello","transfer":"ABCD2345"}"#, ErrorCode::InvalidField),
            (br#"{"type":"name","name":""}"#, ErrorCode::InvalidField),
            (br#"{"type":"name","name":"a\u0007b"}"#, ErrorCode::InvalidField),
            (br#"{"type":"name","name":"aaaaaaaaaaaaaaaaaaaaaaaaa"}"#, ErrorCode::InvalidField),
            (
                br#"{"type":"challenge","ruleset":"tsoro:8","clock":{"initial_ms":5,"increment_ms":0}}"#,
                ErrorCode::InvalidField,
            ),
            (br#"{"type":"challenge","ruleset":"tsoro:8","side":"east"}"#, ErrorCode::Malformed),
            (br#"{"type":"challenge","ruleset":"tsoro 8"}"#, ErrorCode::InvalidField),
            (br#"{"type":"accept","id":"../x"}"#, ErrorCode::InvalidField),
            (br#"{"type":"accept"}"#, ErrorCode::Malformed),
            (br#"{"type":"turn","ply":0,"move":"B2"}"#, ErrorCode::Malformed),
            (br#"{"type":"ping","x":1}"#, ErrorCode::Malformed),
        ] {
            assert_eq!(parse_lobby(bad).unwrap_err().code(), code, "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse(br#"{"type":"chat","text":""}"#).unwrap_err().code(), ErrorCode::InvalidField);
        assert_eq!(parse(br#"{"type":"chat","text":"a\nb"}"#).unwrap_err().code(), ErrorCode::InvalidField);
        let long = format!(r#"{{"type":"chat","text":"{}"}}"#, "é".repeat(MAX_CHAT + 1));
        assert_eq!(parse(long.as_bytes()).unwrap_err().code(), ErrorCode::InvalidField);
    }

    #[test]
    fn refuses_bad_messages() {
        assert_eq!(parse(&vec![b' '; MAX_MESSAGE + 1]), Err(ProtocolError::TooLarge(MAX_MESSAGE + 1)));
        for bad in [
            &b"not json"[..],
            br#"{"type":"turn","ply":-1,"move":"B2"}"#,
            br#"{"type":"turn","ply":1}"#,
            br#"{"type":"fly"}"#,
            br#"{"type":"sync","extra":1}"#,
            br#"[]"#,
        ] {
            assert_eq!(parse(bad).unwrap_err().code(), ErrorCode::Malformed, "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse(br#"{"type":"hello","token":"a b"}"#).unwrap_err().code(), ErrorCode::InvalidField);
        assert_eq!(parse(br#"{"type":"hello","name":"a\nb"}"#).unwrap_err().code(), ErrorCode::InvalidField);
        for bad in [
            &br#"{"type":"chat","text":"x","channel":"north"}"#[..],
            br#"{"type":"captain","member":"../x"}"#,
            br#"{"type":"remove","member":""}"#,
            br#"{"type":"mark","holes":["B1","B2","B3","B4","B5","B6","B7","B8","A1","A2","A3","A4","A5","A6","A7","A8","b1"]}"#,
            br#"{"type":"mark","holes":["B12345"]}"#,
        ] {
            assert_eq!(parse(bad).unwrap_err().code(), ErrorCode::InvalidField, "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse(br#"{"type":"vote","ply":0}"#).unwrap_err().code(), ErrorCode::Malformed);
        assert_eq!(parse(br#"{"type":"mark","holes":"B2"}"#).unwrap_err().code(), ErrorCode::Malformed);
    }

    #[test]
    fn long_quoted_input_is_cut_on_a_character_boundary() {
        // serde_json quotes the unknown tag; with two-byte characters, byte 120 of its
        // message falls inside one (the fuzzer found this panic).
        for pad in 0..4 {
            let text = format!(r#"{{"type":"{}{}"}}"#, "a".repeat(pad), "é".repeat(100));
            let Err(ProtocolError::Malformed(m)) = parse(text.as_bytes()) else { panic!("accepted {text}") };
            assert_eq!(m.chars().count(), 120, "{m}");
            assert!(m.contains("éé"), "{m}");
        }
    }

    proptest! {
        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn lobby_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = parse_lobby(&bytes);
        }

        #[test]
        fn lobby_accepts_only_checked_fields(
            ty in prop_oneof![
                Just("hello".to_string()), Just("name".to_string()), Just("challenge".to_string()),
                Just("accept".to_string()), Just("cancel".to_string()), Just("seek".to_string()),
                "\\PC{0,40}",
            ],
            text in "\\PC{0,70}",
            n in any::<i64>(),
        ) {
            for v in [
                serde_json::json!({"type": ty, "player": text, "name": text}),
                serde_json::json!({"type": ty, "name": text}),
                serde_json::json!({"type": ty, "ruleset": text, "clock": {"initial_ms": n, "increment_ms": n}}),
                serde_json::json!({"type": ty, "id": text}),
            ] {
                match parse_lobby(v.to_string().as_bytes()) {
                    Ok(LobbyMsg::Name { name }) => prop_assert!(check_player_name(&name).is_ok()),
                    Ok(LobbyMsg::Accept { id } | LobbyMsg::Cancel { id }) => {
                        prop_assert!(id.len() <= MAX_ID && id.bytes().all(|b| b.is_ascii_alphanumeric()))
                    }
                    Ok(LobbyMsg::Challenge { clock: Some(c), .. }) => prop_assert!(c.initial_ms >= 1000),
                    _ => {}
                }
            }
        }

        #[test]
        fn never_panics_on_json_like(
            // Unknown tags are quoted back in serde_json's error message.
            ty in prop_oneof![
                Just("hello".to_string()),
                Just("turn".to_string()),
                Just("resign".to_string()),
                Just("sync".to_string()),
                "\\PC{0,80}",
            ],
            ply in any::<i64>(),
            mv in "\\PC{0,20}",
            token in "\\PC{0,80}",
        ) {
            let text = serde_json::json!({"type": ty, "ply": ply, "move": mv, "token": token}).to_string();
            let _ = parse(text.as_bytes());
            let text = serde_json::json!({"type": ty, "ply": ply, "move": mv}).to_string();
            if let Ok(ClientMsg::Turn { ply: p, turn }) = parse(text.as_bytes()) {
                prop_assert_eq!(i64::from(p), ply);
                prop_assert_eq!(turn, mv);
            }
        }
    }
}
