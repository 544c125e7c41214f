//! The WebSocket message format: client messages parsed strictly (size, shape, field
//! lengths) and server messages written as JSON text.
//!
//! Client → server (one JSON object per text message):
//! - `{"type":"hello","token":"<seat token>","name":"Rudo"}` — first message; both
//!   fields optional (no token: watch only).
//! - `{"type":"turn","ply":3,"move":"B2+"}` — play ply 3 (the number of turns played
//!   before it); a turn sent twice is applied once.
//! - `{"type":"resign"}`, `{"type":"sync"}` (ask for the full state), `{"type":"ping"}`.
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
            }
        }
        ClientMsg::Turn { turn, .. } if turn.len() > MAX_MOVE => {
            return Err(ProtocolError::Field { field: "move", reason: "too long" });
        }
        _ => {}
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
