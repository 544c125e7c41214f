//! Fuzzes the online-play message parser and, for turn messages, the room's turn check:
//! no input may panic, and a refused message changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matombo_core::Side;
use matombo_web::online::protocol::{parse, ClientMsg};
use matombo_web::online::room::{Room, TurnCheck};

fuzz_target!(|data: &[u8]| {
    let Ok(msg) = parse(data) else { return };
    if let ClientMsg::Turn { ply, turn } = msg {
        let mut room = Room::new(
            "fuzz".into(),
            "tsoro:8".parse().unwrap(),
            Side::South,
            ["s".repeat(32), "n".repeat(32)],
            "i".repeat(24),
            None,
            0,
        );
        room.commit_claim(Side::North, "", 0);
        let before = room.game.position().clone();
        match room.check_turn(Some(Side::South), ply, &turn, 0) {
            Ok(TurnCheck::New(p)) => room.commit_turn(&p),
            Ok(TurnCheck::Duplicate) => unreachable!("no turn was played yet"),
            Err(_) => assert_eq!(room.game.position(), &before),
        }
    }
});
