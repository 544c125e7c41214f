//! The players' routes: rating groups, leaderboards, a player's page.

use super::*;

pub(crate) async fn groups() -> Response {
    let v: Vec<GroupJson> = crate::rating::GROUPS
        .iter()
        .map(|g| GroupJson { group: g.name, game: g.game.name(), min: g.min, max: g.max })
        .collect();
    Json(v).into_response()
}

#[derive(Deserialize)]
pub(crate) struct PageQuery {
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    offset: Option<u32>,
}

pub(crate) async fn leaderboard(
    State(s): State<OnlineState>,
    Path(group): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Response, ApiError> {
    let g = crate::rating::group(&group).ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such rating group"))?;
    let limit = q.limit.unwrap_or(50).min(200);
    let offset = q.offset.unwrap_or(0);
    let since = s.now().saturating_sub(365 * 24 * 3600 * 1000);
    let rows = s
        .inner
        .store
        .leaderboard(g.name.to_string(), since, limit, offset)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
    let players = rows
        .iter()
        .enumerate()
        .map(|(i, (id, name, r, games))| LeaderRow {
            rank: offset as usize + i + 1,
            id: id.clone(),
            name: name.clone(),
            rating: crate::store::round2(r.rating),
            rd: crate::store::round2(r.rd),
            games: *games,
            provisional: r.provisional(),
        })
        .collect();
    Ok(Json(Page { items: Leaderboard { group: g.name, players }, limit, offset }).into_response())
}

pub(crate) async fn player(
    State(s): State<OnlineState>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::new(ErrorCode::NotFound, "no such player");
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(not_found());
    }
    let limit = q.limit.unwrap_or(50).min(200);
    let offset = q.offset.unwrap_or(0);
    let storage = |e: crate::store::StoreError| ApiError::new(ErrorCode::Storage, e.to_string());
    let Some(p) = s.inner.store.player(id).await.map_err(storage)? else { return Err(not_found()) };
    let games = s.inner.store.history(p.id.clone(), limit, offset).await.map_err(storage)?;
    let player = crate::lobby::player_json(&p);
    let page = PlayerPage { player, games: games.iter().map(history_json).collect() };
    Ok(Json(Page { items: page, limit, offset }).into_response())
}

/// The archive's list of games.
#[derive(serde::Serialize)]
pub(super) struct Games<T> {
    pub(super) games: Vec<T>,
}

/// One finished game of a player, as `GET /api/online/players/{id}` lists it.
pub(super) fn history_json(h: &crate::store::HistoryRow) -> HistoryJson {
    let r2 = crate::store::round2;
    let pair = |p: Option<(f64, f64)>| p.map(|(r, d)| RatingPoint { rating: r2(r), rd: r2(d) });
    let group = h.ruleset.parse::<Ruleset>().map(crate::rating::group_of).unwrap_or("other");
    HistoryJson {
        room: h.room.clone(),
        ruleset: h.ruleset.clone(),
        group,
        side: if h.south { SideJson::South } else { SideJson::North },
        opponent: Opponent { id: h.opponent_id.clone(), name: h.opponent_name.clone() },
        result: match h.winner.as_deref() {
            Some("south") => "1-0",
            Some("north") => "0-1",
            _ => "1/2-1/2",
        },
        termination: h.termination.clone(),
        rated: h.rated,
        before: pair(h.before),
        after: pair(h.after),
        finished: h.finished,
    }
}
