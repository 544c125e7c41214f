//! Fuzzes the lobby's message parser: no input may panic, and whatever it accepts keeps
//! its documented bounds (names, ids, rulesets read or refused, clocks in range).
#![no_main]

use libfuzzer_sys::fuzz_target;
use matombo_web::online::protocol::{check_player_name, parse_lobby, LobbyMsg, MAX_ID};

fuzz_target!(|data: &[u8]| {
    let Ok(msg) = parse_lobby(data) else { return };
    match msg {
        LobbyMsg::Hello { player, name, transfer } => {
            if let Some(p) = player {
                assert!((32..=64).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()));
            } else {
                assert!(transfer.is_none());
            }
            if let Some(n) = name {
                assert!(check_player_name(&n).is_ok());
            }
        }
        LobbyMsg::Name { name } => assert!(check_player_name(&name).is_ok()),
        LobbyMsg::Accept { id } | LobbyMsg::Cancel { id } => {
            assert!(!id.is_empty() && id.len() <= MAX_ID && id.bytes().all(|b| b.is_ascii_alphanumeric()))
        }
        LobbyMsg::Challenge { ruleset, clock, .. } | LobbyMsg::Seek { ruleset, clock, .. } => {
            // Read or refused by the rules crate, never a panic.
            let _ = ruleset.parse::<matombo_core::Ruleset>();
            if let Some(c) = clock {
                assert!(c.initial_ms >= 1000 && c.initial_ms <= 86_400_000 && c.increment_ms <= 3_600_000);
            }
        }
        LobbyMsg::Unseek {} | LobbyMsg::TransferCode {} | LobbyMsg::Ping {} => {}
    }
});
