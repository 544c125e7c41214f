//! How a room ends: a game over by resignation or time (the server's clock watch), and
//! unclaimed or abandoned rooms closed as they fall due; either way its slot is given back.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use matombo_api::online::{LobbyOut, RatingChange, RatingPoint, RoomMsg};
use matombo_core::Outcome;

use super::handle::RoomHandle;
use super::room::Room;
use super::store::Op;
use super::views::{clock_json, outcome_json};
use super::OnlineState;

/// Ends a game outside the board (resignation, time): store, apply, broadcast.
pub(super) async fn end_game(
    s: &OnlineState,
    h: &Arc<RoomHandle>,
    room: &mut Room,
    o: Outcome,
    now: u64,
) -> Result<(), String> {
    let mut after = room.clone();
    after.commit_end(o, now);
    let remaining = after.clocks.as_ref().map(|c| c.remaining);
    if let Err(e) = s.inner.store.write(Op::End { id: room.id.clone(), outcome: o, remaining, at: now }).await {
        // Another node may have ended the game (or played) first: the store says.
        if s.clustered() {
            super::bus::reload(s, h, room).await;
        }
        return Err(e.to_string());
    }
    room.commit_end(o, now);
    let msg = RoomMsg::End { ply: room.ply(), outcome: outcome_json(Some(o)), clock: clock_json(room, now) };
    h.send(&msg);
    s.publish_changed(&room.id, &msg);
    tracing::info!(room = %room.id, termination = o.termination.tag(), "game over");
    finished(s, h);
    h.clock_changed.notify_one();
    Ok(())
}

/// How long a finished game stays in memory, so that players who reconnect after the end
/// share its chat and rematch offers with those still there.
const KEEP_FINISHED: Duration = Duration::from_secs(10 * 60);

/// A game ended (or was closed): its creator may open another, and it leaves memory, at
/// once if closed, after [`KEEP_FINISHED`] if over (connections still holding it keep it
/// alive; later requests read it back from the store).
pub(super) fn finished(s: &OnlineState, h: &Arc<RoomHandle>) {
    // An end and a closing may meet: the slot is given back once.
    if h.released.swap(true, Ordering::AcqRel) {
        return;
    }
    s.inner.open_rooms.fetch_sub(1, Ordering::AcqRel);
    let forget = |s: &OnlineState, h: &Arc<RoomHandle>| {
        let mut rooms = s.inner.rooms.lock().expect("rooms lock");
        if rooms.get(&h.id).is_some_and(|x| Arc::ptr_eq(x, h)) {
            rooms.remove(&h.id);
        }
    };
    if h.closed.load(Ordering::Acquire) || tokio::runtime::Handle::try_current().is_err() {
        forget(s, h);
    } else {
        let weak = Arc::downgrade(&s.inner);
        let h = h.clone();
        tokio::spawn(async move {
            tokio::time::sleep(KEEP_FINISHED).await;
            if let Some(inner) = weak.upgrade() {
                forget(&OnlineState { inner }, &h);
            }
        });
    }
    if let Some(a) = h.creator {
        if let Some(u) = s.inner.per_addr.lock().expect("addr lock").get_mut(&a) {
            u.rooms = u.rooms.saturating_sub(1);
        }
    }
    super::quota::release(s, &h.id);
    let meta = h.meta.lock().expect("meta lock").clone();
    if meta.listed && s.inner.lobby.unlist_game(&h.id) {
        super::lobby_shared::publish_unlisted(s, &h.id);
    }
    if meta.rated && tokio::runtime::Handle::try_current().is_ok() {
        // The ratings were changed in the write that stored the end: tell the room and the
        // players' lobby connections.
        let (s, h) = (s.clone(), h.clone());
        tokio::spawn(async move { announce_ratings(&s, &h).await });
    }
}

async fn announce_ratings(s: &OnlineState, h: &Arc<RoomHandle>) {
    let Ok(changes) = s.inner.store.rating_changes(h.id.clone()).await else { return };
    if changes.is_empty() {
        return;
    }
    let (mut south, mut north) = (None, None);
    for c in &changes {
        let r2 = super::store::round2;
        let change = RatingChange {
            id: c.player.clone(),
            before: RatingPoint { rating: r2(c.before.0), rd: r2(c.before.1) },
            after: RatingPoint { rating: r2(c.after.0), rd: r2(c.after.1) },
        };
        if c.side == "south" {
            south = Some(change);
        } else {
            north = Some(change);
        }
    }
    h.send(&RoomMsg::Ratings { group: changes[0].group.clone(), south, north });
    for c in &changes {
        if let Ok(Some(info)) = s.inner.store.player(c.player.clone()).await {
            s.inner.lobby.tell_player(&c.player, &LobbyOut::You { player: super::lobby::player_json(&info) });
        }
    }
}

/// Makes the flag fall on the server, and closes a team's vote at its time: one task per
/// room while its clock runs or a vote is open (on every node holding the room; the store
/// takes one turn per ply, so two nodes closing one vote play it once).
pub(super) fn watch_clock(s: OnlineState, h: Arc<RoomHandle>) {
    if tokio::runtime::Handle::try_current().is_err() || h.watching.swap(true, Ordering::AcqRel) {
        return;
    }
    tokio::spawn(async move {
        loop {
            let deadline = {
                let mut room = h.room.lock().await;
                if room.game.is_over() || h.closed.load(Ordering::Acquire) {
                    break;
                }
                let now = s.now();
                if let Some(o) = room.flag_due(now) {
                    if end_game(&s, &h, &mut room, o, now).await.is_err() {
                        // Storage failed; try again shortly.
                        Some(now + 1000)
                    } else {
                        break;
                    }
                } else if room.teams.as_ref().and_then(|t| t.vote.as_ref()).is_some_and(|v| v.closes_at <= now) {
                    // A team's vote closes at its time even when nobody is connected.
                    let _ = super::teamws::close_vote(&s, &h, &mut room).await;
                    let open = room.teams.as_ref().is_some_and(|t| t.vote.is_some());
                    // Storage failed: try again shortly; else look again at once.
                    Some(if open { now + 1000 } else { now })
                } else {
                    let to_move = room.to_move();
                    let clock = room.clocks.as_ref().and_then(|c| c.deadline(to_move));
                    let vote = room.teams.as_ref().and_then(|t| t.vote.as_ref()).map(|v| v.closes_at);
                    match (clock, vote) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    }
                }
            };
            let Some(deadline) = deadline else { break };
            let wait = Duration::from_millis(deadline.saturating_sub(s.now()));
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = h.clock_changed.notified() => {}
            }
        }
        h.watching.store(false, Ordering::Release);
    });
}

// ---------------------------------------------------------------- expiry

/// The creation time before which an unjoined room is due, and the last activity before
/// which a game is abandoned, at `now` (Unix ms).
pub(super) fn expiry_bounds(limits: &super::Limits, now: u64) -> (u64, u64) {
    let before = |d: Duration| now.saturating_sub(d.as_millis() as u64);
    (before(limits.unclaimed_expiry), before(limits.idle_expiry))
}

/// A duration in words: `24 hours`, `30 minutes`, `0.5 seconds`.
pub(super) fn span(d: Duration) -> String {
    match d.as_secs() {
        s if s >= 3600 && s % 3600 == 0 => format!("{} hours", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{} minutes", s / 60),
        _ => format!("{} seconds", d.as_secs_f64()),
    }
}

pub(super) fn closed_message(limits: &super::Limits, reason: &str) -> String {
    if reason == "aborted" {
        return "this game was aborted before its first turn".into();
    }
    if reason == "unstarted" {
        return format!(
            "this game was closed: no turn was played within {} of its start",
            span(limits.unclaimed_expiry)
        );
    }
    if reason == "unclaimed" {
        format!("this game was closed: its invitation was not taken within {}", span(limits.unclaimed_expiry))
    } else {
        format!("this game was closed as abandoned: nothing was played for {}", span(limits.idle_expiry))
    }
}

/// Closes unclaimed and abandoned rooms as they fall due, for as long as the state lives:
/// the store first (so a restart does not bring them back), then memory and the counts.
pub(super) fn sweep_expired(s: &OnlineState) {
    if tokio::runtime::Handle::try_current().is_err() {
        return;
    }
    let limits = &s.inner.limits;
    let every =
        (limits.unclaimed_expiry.min(limits.idle_expiry) / 4).clamp(Duration::from_millis(50), Duration::from_secs(60));
    // Weak: the sweep must not keep the store open once the server has let go of it.
    let weak = Arc::downgrade(&s.inner);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(inner) = weak.upgrade() else { break };
            let s = OnlineState { inner };
            // Addresses with nothing open and full budgets are forgotten.
            s.inner.per_addr.lock().expect("addr lock").retain(|_, u| !u.idle());
            // In a cluster, one node (the leader) closes what falls due, and the bus tells
            // the others.
            if !s.is_leader() {
                continue;
            }
            let now = s.now();
            // Votes past their time in rooms no node may hold any more (its node died):
            // the leader takes the room up and its clock watch closes the vote.
            if let Ok(ids) = s.inner.store.due_votes(now).await {
                for id in ids {
                    if let Ok(h) = super::handle::find_room(&s, &id).await {
                        h.clock_changed.notify_one();
                        watch_clock(s.clone(), h);
                    }
                }
            }
            let (unclaimed_before, idle_before) = expiry_bounds(&s.inner.limits, now);
            let ids = match s.inner.store.write(Op::Expire { now, unclaimed_before, idle_before }).await {
                Ok(ids) => ids,
                Err(e) => {
                    tracing::warn!(error = %e, "closing expired games failed; trying again later");
                    continue;
                }
            };
            for id in ids {
                let Some(h) = s.inner.get(&id) else {
                    // Held by other nodes, perhaps: tell them why it closed.
                    if s.clustered() {
                        if let Ok(Some(reason)) = s.inner.store.closed(id.clone()).await {
                            let message = closed_message(&s.inner.limits, &reason);
                            let reason = match reason.as_str() {
                                "unclaimed" => "unclaimed",
                                "unstarted" => "unstarted",
                                _ => "abandoned",
                            };
                            s.publish_closed(&id, &RoomMsg::Closed { reason, by: None, message });
                        }
                    }
                    continue;
                };
                h.closed.store(true, Ordering::Release);
                let reason = {
                    let room = h.room.lock().await;
                    match (room.full(), room.ply()) {
                        (false, _) => "unclaimed",
                        (true, 0) => "unstarted",
                        _ => "abandoned",
                    }
                };
                let msg = RoomMsg::Closed { reason, by: None, message: closed_message(&s.inner.limits, reason) };
                h.send(&msg);
                s.publish_closed(&id, &msg);
                finished(&s, &h);
                h.clock_changed.notify_one();
                tracing::info!(room = %id, reason, "game closed");
            }
        }
    });
}
