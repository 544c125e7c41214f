//! Team games on a room's WebSocket (issue 42): who may act for his side (any member, the
//! captain, or a vote), the captain's acts, proposals, votes, team chat and marks. Every
//! team message goes to the sender's side's members only ([`Audience::Team`]), on every
//! node; a member acts only for his own side, whatever ply or member he names.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::ws::Message;
use matombo_api::online::{RoomMsg, RoomState, VotesJson};
use matombo_api::ErrorCode;
use matombo_core::Side;

use super::budget::Bucket;
use super::handle::{Audience, RoomHandle};
use super::http::{room_error, team_error};
use super::lifecycle::{end_game, watch_clock};
use super::protocol::ClientMsg;
use super::room::{Room, RoomError, TurnCheck};
use super::store::Op;
use super::team::{check_marks, TeamMode, Vote};
use super::ws::{error_msg, play_checked, RoomSession};
use super::OnlineState;

/// A connection's budgets for its team messages, each paced like chat.
pub(super) struct TeamBudget {
    marks: Bucket,
    proposals: Bucket,
    votes: Bucket,
}

impl TeamBudget {
    pub(super) fn new(per_sec: f64) -> TeamBudget {
        TeamBudget { marks: Bucket::new(per_sec), proposals: Bucket::new(per_sec), votes: Bucket::new(per_sec) }
    }
}

/// The state as one connection sees it: with its member id, its team's marks and the
/// vote in progress on its side's turn (team members only).
pub(super) fn state_for(h: &RoomHandle, room: &Room, seat: Option<Side>, member: Option<&str>) -> RoomState {
    let mut v = h.state_of(room, seat, h.clock.now(), false);
    if let (Some(m), Some(t)) = (member, &room.teams) {
        if let (Some(me), Some(team)) = (t.member(m), v.team.as_mut()) {
            // The state goes out as his connection opens: he is online.
            if let Some(teams) = team.teams.as_mut() {
                let side = if me.side == Side::South { &mut teams.south } else { &mut teams.north };
                side.members.iter_mut().filter(|x| x.member == me.id).for_each(|x| x.online = true);
            }
            team.member = Some(me.id.clone());
            team.marks = Some(team_marks(room, me.side));
            team.votes = votes_json(room, me.side);
        }
    }
    v
}

/// The marks of `side`'s members.
fn team_marks(room: &Room, side: Side) -> BTreeMap<String, Vec<String>> {
    let Some(t) = &room.teams else { return BTreeMap::new() };
    t.marks
        .iter()
        .filter(|(m, _)| t.member(m).is_some_and(|x| x.side == side))
        .map(|(m, h)| (m.clone(), h.clone()))
        .collect()
}

/// The tally of the vote in progress, if it is `side`'s.
fn votes_json(room: &Room, side: Side) -> Option<VotesJson> {
    let t = room.teams.as_ref()?;
    let v = t.vote.as_ref()?;
    if room.to_move() != side || v.ply != room.ply() {
        return None;
    }
    Some(VotesJson {
        ply: v.ply,
        tally: v.tally(),
        voted: v.votes.len() as u32,
        members: t.active(side).count() as u32,
        closes_at: v.closes_at,
    })
}

fn text_msg(m: &RoomMsg) -> Message {
    Message::Text(matombo_api::online::to_text(m).into())
}

/// Sends `m` to `side`'s members here and on the other nodes. `reload`: the other nodes
/// read the room back first (marks and votes they must hold too).
fn to_team(s: &OnlineState, h: &RoomHandle, side: Side, from: Option<String>, m: &RoomMsg, reload: bool) {
    h.target(Audience::Team(side), from.clone(), m);
    if reload {
        s.publish_team(&h.id, side, m);
    } else {
        s.publish_targeted(&h.id, Audience::Team(side), from, m);
    }
}

/// Whether only a team's member sends `msg` (in a team game).
fn team_only(msg: &ClientMsg) -> bool {
    matches!(
        msg,
        ClientMsg::Captain { .. }
            | ClientMsg::Remove { .. }
            | ClientMsg::Propose { .. }
            | ClientMsg::Vote { .. }
            | ClientMsg::Mark { .. }
            | ClientMsg::Chat { channel: Some(_), .. }
    )
}

/// Handles what team games add or change; answers the message for the usual handling, or
/// the replies when it was handled (or refused) here.
pub(super) async fn handle(x: &mut RoomSession, msg: ClientMsg) -> Result<ClientMsg, Vec<Message>> {
    let refuse = |code: ErrorCode, why: &str, ply: Option<u32>| Err(vec![error_msg(code, why, ply)]);
    let Some(mode) = x.h.team_mode else {
        return if team_only(&msg) { refuse(ErrorCode::NotATeamGame, "this game has no teams", None) } else { Ok(msg) };
    };
    let Some(member) = x.member.clone() else {
        return if team_only(&msg) {
            refuse(ErrorCode::NotAPlayer, "only the members of a team do this", None)
        } else {
            Ok(msg)
        };
    };
    let side = x.seat.expect("a member holds his side");
    match msg {
        ClientMsg::Chat { text, channel: Some(_) } => Err(team_chat(x, &member, side, text)),
        ClientMsg::Captain { member: target } => Err(captain_act(x, &member, &target, false).await),
        ClientMsg::Remove { member: target } => Err(captain_act(x, &member, &target, true).await),
        ClientMsg::Propose { turn } => {
            if mode != TeamMode::Captain {
                return refuse(ErrorCode::InvalidField, "proposals are made in captain mode", None);
            }
            Err(propose(x, &member, side, &turn).await)
        }
        ClientMsg::Mark { holes } => Err(mark(x, &member, side, &holes).await),
        ClientMsg::Vote { ply, turn } => {
            if mode != TeamMode::Vote {
                return refuse(ErrorCode::InvalidField, "votes are cast in vote mode", Some(ply));
            }
            Err(vote(x, &member, side, ply, &turn).await)
        }
        // A member's turn in vote mode is his vote.
        ClientMsg::Turn { ply, turn } if mode == TeamMode::Vote => Err(vote(x, &member, side, ply, &turn).await),
        m @ (ClientMsg::Turn { .. } | ClientMsg::Resign {} | ClientMsg::Abort {} | ClientMsg::Rematch {})
            if mode != TeamMode::Any =>
        {
            let captain =
                x.h.room.lock().await.teams.as_ref().and_then(|t| t.member(&member)).is_some_and(|m| m.captain);
            if captain {
                return Ok(m);
            }
            let ply = match &m {
                ClientMsg::Turn { ply, .. } => Some(*ply),
                _ => None,
            };
            let why = if mode == TeamMode::Captain {
                "only your side's captain plays, resigns or aborts; propose your turn to him"
            } else {
                "in vote mode your turn is your vote; only the captain resigns or aborts"
            };
            refuse(ErrorCode::NotCaptain, why, ply)
        }
        m => Ok(m),
    }
}

fn team_chat(x: &mut RoomSession, member: &str, side: Side, text: String) -> Vec<Message> {
    if !x.chat.bucket.take() {
        return vec![error_msg(ErrorCode::RateLimited, "at most one chat line a second", None)];
    }
    if let Err(why) = super::audience::take_chat(&x.s, &x.h, true) {
        return vec![error_msg(ErrorCode::RateLimited, &why, None)];
    }
    let v = RoomMsg::Chat { channel: "team", from: member.to_string(), name: x.chat.name.clone(), text, at: x.s.now() };
    to_team(&x.s, &x.h, side, Some(member.to_string()), &v, false);
    Vec::new()
}

/// Passes the captaincy to `target`, or removes him (`remove`).
async fn captain_act(x: &mut RoomSession, me: &str, target: &str, remove: bool) -> Vec<Message> {
    let (s, h) = (&x.s, &x.h);
    let mut room = h.room.lock().await;
    let Some(t) = room.teams.as_ref() else { return Vec::new() };
    let side = match t.check_captain_act(me, target) {
        Ok(side) => side,
        Err(e) => return vec![error_msg(team_error(&e), &e.to_string(), None)],
    };
    let id = room.id.clone();
    let op = if remove {
        Op::Remove { id, member: target.to_string() }
    } else {
        Op::Captain { id, side, member: target.to_string() }
    };
    if let Err(e) = s.inner.store.write(op).await {
        return vec![error_msg(ErrorCode::Storage, &e.to_string(), None)];
    }
    let t = room.teams.as_mut().expect("a team game");
    if remove {
        t.commit_remove(target);
        h.note_removed(&room);
    } else {
        t.commit_captain(target);
    }
    h.send_teams(&room);
    s.publish_changed(&h.id, &h.teams_msg(&room));
    if remove {
        // His marks and his vote are gone: the team sees it.
        let cleared = RoomMsg::Marks { member: target.to_string(), holes: Vec::new() };
        to_team(s, h, side, None, &cleared, false);
        if let Some(v) = votes_json(&room, side) {
            to_team(s, h, side, None, &RoomMsg::Votes(v), false);
        }
        drop(room);
        close_if_all_voted(s, h).await;
    }
    tracing::info!(room = %h.id, remove, "team captain acted");
    Vec::new()
}

async fn propose(x: &mut RoomSession, member: &str, side: Side, turn: &str) -> Vec<Message> {
    if !x.team.proposals.take() {
        return vec![error_msg(ErrorCode::RateLimited, "at most one proposal a second", None)];
    }
    let (s, h) = (&x.s, &x.h);
    let room = h.room.lock().await;
    let ply = room.ply();
    match room.check_turn(Some(side), ply, turn, s.now()) {
        Ok(TurnCheck::New(p)) => {
            let v = RoomMsg::Proposal {
                ply,
                token: p.token.to_string(),
                member: member.to_string(),
                name: x.chat.name.clone(),
            };
            drop(room);
            to_team(s, h, side, Some(member.to_string()), &v, false);
            Vec::new()
        }
        Ok(TurnCheck::Duplicate) => Vec::new(),
        Err(e) => vec![error_msg(room_error(&e), &e.to_string(), Some(ply))],
    }
}

async fn mark(x: &mut RoomSession, member: &str, side: Side, holes: &[String]) -> Vec<Message> {
    if !x.team.marks.take() {
        return vec![error_msg(ErrorCode::RateLimited, "at most one mark a second", None)];
    }
    let (s, h) = (&x.s, &x.h);
    let mut room = h.room.lock().await;
    let holes = match check_marks(holes, room.ruleset().size()) {
        Ok(h) => h,
        Err(why) => return vec![error_msg(ErrorCode::InvalidField, &why, None)],
    };
    let op = Op::Marks { id: room.id.clone(), member: member.to_string(), holes: holes.clone() };
    if let Err(e) = s.inner.store.write(op).await {
        return vec![error_msg(ErrorCode::Storage, &e.to_string(), None)];
    }
    let t = room.teams.as_mut().expect("a team game");
    if holes.is_empty() {
        t.marks.remove(member);
    } else {
        t.marks.insert(member.to_string(), holes.clone());
    }
    drop(room);
    to_team(s, h, side, Some(member.to_string()), &RoomMsg::Marks { member: member.to_string(), holes }, true);
    Vec::new()
}

async fn vote(x: &mut RoomSession, member: &str, side: Side, ply: u32, turn: &str) -> Vec<Message> {
    if !x.team.votes.take() {
        return vec![error_msg(ErrorCode::RateLimited, "at most one vote a second", Some(ply))];
    }
    let (s, h) = (&x.s, &x.h);
    let mut room = h.room.lock().await;
    let now = s.now();
    if let Some(o) = room.flag_due(now) {
        let _ = end_game(s, h, &mut room, o, now).await;
    }
    let mut checked = room.check_turn(Some(side), ply, turn, now);
    if s.clustered() && matches!(checked, Err(RoomError::Ahead { .. })) {
        super::bus::reload(s, h, &mut room).await;
        checked = room.check_turn(Some(side), ply, turn, now);
    }
    let p = match checked {
        Ok(TurnCheck::New(p)) => p,
        Ok(TurnCheck::Duplicate) => return vec![text_msg(&RoomMsg::Ack { ply, duplicate: true })],
        Err(e) => {
            let mut out = vec![error_msg(room_error(&e), &e.to_string(), Some(room.ply()))];
            if matches!(e, RoomError::Stale { .. } | RoomError::Ahead { .. }) {
                out.push(text_msg(&RoomMsg::State(state_for(h, &room, Some(side), Some(member)))));
            }
            return out;
        }
    };
    let t = room.teams.as_ref().expect("a team game");
    let mut v = match &t.vote {
        Some(v) if v.ply == ply => v.clone(),
        _ => Vote { ply, votes: Vec::new(), closes_at: now.saturating_add(t.vote_ms) },
    };
    v.cast(member, p.token.to_string());
    let op = Op::Vote {
        id: room.id.clone(),
        ply,
        member: member.to_string(),
        token: p.token.to_string(),
        closes_at: v.closes_at,
    };
    if let Err(e) = s.inner.store.write(op).await {
        return vec![error_msg(ErrorCode::Storage, &e.to_string(), Some(ply))];
    }
    room.teams.as_mut().expect("a team game").vote = Some(v);
    if all_connected_voted(h, &room, side) {
        return close_vote(s, h, &mut room).await;
    }
    if let Some(v) = votes_json(&room, side) {
        to_team(s, h, side, None, &RoomMsg::Votes(v), true);
    }
    drop(room);
    h.clock_changed.notify_one();
    watch_clock(s.clone(), h.clone());
    Vec::new()
}

/// Whether every member of `side` who is connected (on any node) has voted.
fn all_connected_voted(h: &RoomHandle, room: &Room, side: Side) -> bool {
    let Some(t) = &room.teams else { return false };
    let Some(v) = &t.vote else { return false };
    let p = h.presence.lock().expect("presence lock");
    t.active(side).filter(|m| p.member_online(&m.id)).all(|m| v.votes.iter().any(|(x, _)| *x == m.id))
}

/// Closes the vote in progress if every member of the side to move who is still connected
/// (one at least) has voted (after a member left, here or on another node, or was removed).
pub(super) async fn close_if_all_voted(s: &OnlineState, h: &Arc<RoomHandle>) {
    if h.team_mode != Some(TeamMode::Vote) {
        return;
    }
    let mut room = h.room.lock().await;
    let side = room.to_move();
    // With nobody of the side connected, the vote waits for its time.
    let anyone = room.teams.as_ref().is_some_and(|t| {
        let p = h.presence.lock().expect("presence lock");
        t.active(side).any(|m| p.member_online(&m.id))
    });
    if anyone && room.teams.as_ref().is_some_and(|t| t.vote.is_some()) && all_connected_voted(h, &room, side) {
        let _ = close_vote(s, h, &mut room).await;
    }
}

/// Closes the vote in progress: its turn (most votes; a tie to the turn voted for first)
/// is played as the side's turn. Called when every connected member has voted, or by the
/// clock watch at its closing time.
pub(super) async fn close_vote(s: &OnlineState, h: &Arc<RoomHandle>, room: &mut Room) -> Vec<Message> {
    let Some(v) = room.teams.as_ref().and_then(|t| t.vote.clone()) else { return Vec::new() };
    let Some(winner) = v.winner() else { return Vec::new() };
    let side = room.to_move();
    let now = s.now();
    if let Some(json) = votes_json(room, side) {
        to_team(s, h, side, None, &RoomMsg::Votes(json), false);
    }
    match room.check_turn(Some(side), v.ply, &winner, now) {
        Ok(TurnCheck::New(p)) => play_checked(s, h, room, p, Some(side), Instant::now()).await,
        // The vote is out of date (its ply was played meanwhile): forgotten.
        _ => {
            if let Some(t) = room.teams.as_mut() {
                t.vote = None;
            }
            Vec::new()
        }
    }
}
