//! What a node does with the notes of the others: applies a turn that follows the ply it
//! holds, else reloads the room from the store, and passes the message on.

use super::*;

/// Reloads every room held from the store and sends its connections the whole state.
pub(super) async fn resync_all(s: &OnlineState) {
    let held: Vec<_> = s.inner.rooms.lock().expect("rooms lock").values().cloned().collect();
    for h in held {
        let mut room = h.room.lock().await;
        if reload(s, &h, &mut room).await {
            send_states(&h, &room);
        }
    }
}

/// Sends every connection of the room the whole state as it sees it (its seat's `you`).
pub(super) fn send_states(h: &RoomHandle, room: &Room) {
    let now = h.clock.now();
    for side in [Side::South, Side::North] {
        h.target(Audience::Side(side), None, &h.state(room, Some(side), now, false));
    }
    h.target(Audience::NotSeated, None, &h.state(room, None, now, false));
}

/// Reads the room back from the store (the authority) into `room`; true if it changed.
/// A room the store no longer has live (closed) is marked closed.
pub(crate) async fn reload(s: &OnlineState, h: &Arc<RoomHandle>, room: &mut Room) -> bool {
    match s.inner.store.load_room(h.id.clone(), s.now()).await {
        Ok(Some(r)) => {
            let changed = r.ply() != room.ply()
                || r.game.is_over() != room.game.is_over()
                || r.seats.iter().zip(&room.seats).any(|(a, b)| a.claimed != b.claimed);
            *room = r;
            h.note_removed(room);
            if room.game.is_over() {
                crate::lifecycle::finished(s, h);
            }
            h.clock_changed.notify_one();
            changed
        }
        Ok(None) => {
            h.closed.store(true, Ordering::Release);
            crate::lifecycle::finished(s, h);
            h.clock_changed.notify_one();
            true
        }
        Err(e) => {
            tracing::warn!(room = %h.id, error = %e, "cannot reload the room from the store");
            false
        }
    }
}

pub(super) async fn on_note(s: &OnlineState, n: Note) {
    if s.bus().is_some_and(|b| b.node() == n.node) {
        return;
    }
    if n.room.is_empty() {
        crate::lobby_shared::on_note(s, n.event, n.text);
        return;
    }
    let Some(h) = s.inner.get(&n.room) else { return };
    let pass = |h: &RoomHandle, text: Option<String>| {
        if let Some(t) = text {
            let _ = h.tx.send(Utf8Bytes::from(t));
        }
    };
    match n.event {
        Event::Turn { ply, token, remaining, at } => {
            let mut room = h.room.lock().await;
            let applied = room.ply() == ply
                && !room.game.is_over()
                && token.parse().ok().is_some_and(|token| {
                    let side = room.to_move();
                    if room.game.position().play(&token).is_err() {
                        return false;
                    }
                    room.commit_turn(&PreparedTurn { ply, token, side, remaining, at });
                    true
                });
            if !applied && room.ply() <= ply {
                reload(s, &h, &mut room).await;
            }
            match n.text {
                Some(t) => pass(&h, Some(t)),
                None => send_states(&h, &room),
            }
            if room.game.is_over() {
                crate::lifecycle::finished(s, &h);
            }
            drop(room);
            h.clock_changed.notify_one();
        }
        Event::Changed => {
            let mut room = h.room.lock().await;
            reload(s, &h, &mut room).await;
            match n.text {
                Some(t) => pass(&h, Some(t)),
                None => send_states(&h, &room),
            }
            drop(room);
            crate::lifecycle::watch_clock(s.clone(), h.clone());
        }
        Event::Closed => {
            h.closed.store(true, Ordering::Release);
            pass(&h, n.text);
            crate::lifecycle::finished(s, &h);
            h.clock_changed.notify_one();
        }
        Event::Rematch { by } => {
            h.rematch.lock().expect("rematch lock").0 = Some(by.into());
            pass(&h, n.text);
        }
        Event::Targeted { to, from } => {
            let Some(text) = n.text else { return };
            let to = match to {
                To::Players => Audience::Players,
                To::Spectators => Audience::Spectators,
                To::Side(s) => Audience::Side(s.into()),
                To::NotSeated => Audience::NotSeated,
                To::Team(s) => Audience::Team(s.into()),
            };
            let _ = h.events.send(Targeted { to, from, text: Utf8Bytes::from(text) });
        }
        Event::Team { side } => {
            {
                let mut room = h.room.lock().await;
                reload(s, &h, &mut room).await;
            }
            let Some(text) = n.text else { return };
            let _ =
                h.events.send(Targeted { to: Audience::Team(side.into()), from: None, text: Utf8Bytes::from(text) });
            // A vote's closing time is watched here too.
            h.clock_changed.notify_one();
            crate::lifecycle::watch_clock(s.clone(), h.clone());
        }
        Event::Presence { players, spectators, members } => {
            let before: Vec<String> = {
                let p = h.presence.lock().expect("presence lock");
                p.remote.get(&n.node).map(|r| r.2.clone()).unwrap_or_default()
            };
            let changed = before != members;
            h.presence.lock().expect("presence lock").remote.insert(n.node, (players, spectators, members));
            crate::audience::presence_changed(&h);
            if changed {
                // A member came or went on another node: a vote his leaving decides.
                crate::teamws::close_if_all_voted(s, &h).await;
            }
        }
        // Lobby notes have no room (handled above).
        _ => {}
    }
}
