//! Quick pairing: seeks waiting, paired within a rating window that widens as they wait.

use super::*;

/// The rating window of a seek waiting `waited`: 100 + 25 a second.
pub(super) fn window(waited: Duration) -> f64 {
    100.0 + 25.0 * waited.as_secs_f64()
}

/// Pairs waiting players: the first two compatible seeks whose ratings are within the
/// older one's window. Answers the pairs removed from the queue.
pub(crate) fn find_pairs(seeks: &mut Vec<Seek>, now: Instant) -> Vec<(Seek, Seek)> {
    let mut out = Vec::new();
    'again: loop {
        for i in 0..seeks.len() {
            for j in i + 1..seeks.len() {
                let (x, y) = (&seeks[i], &seeks[j]);
                let older = if x.since <= y.since { x } else { y };
                if x.player.id != y.player.id
                    && x.ruleset == y.ruleset
                    && x.clock == y.clock
                    && x.rated == y.rated
                    && (x.player.rating.rating - y.player.rating.rating).abs()
                        <= window(now.duration_since(older.since))
                {
                    let b = seeks.remove(j);
                    let a = seeks.remove(i);
                    out.push((a, b));
                    continue 'again;
                }
            }
        }
        return out;
    }
}

pub(super) async fn pair_now(s: &OnlineState) {
    let pairs = {
        let mut st = s.inner.lobby.state.lock().expect("lobby lock");
        find_pairs(&mut st.seeks, Instant::now())
    };
    for (a, b) in pairs {
        start_pair(s, a, b).await;
    }
}

/// Starts the game of two seeks taken from the queue (or the database), telling both.
pub(crate) async fn start_pair(s: &OnlineState, a: Seek, b: Seek) {
    {
        for p in [&a.player.id, &b.player.id] {
            if s.clustered() {
                crate::lobby_shared::tell_everywhere(s, p, &LobbyOut::Seeking { seek: None });
            } else {
                s.inner.lobby.tell_player(p, &LobbyOut::Seeking { seek: None });
            }
        }
        let side = random_side();
        let ids = [a.player.id.clone(), b.player.id.clone()];
        let terms = Terms { ruleset: a.ruleset, clock: a.clock, rated: a.rated, listed: true, challenge: None };
        let charge = crate::quota::take(s, [a.addr, b.addr], [Some(&a.player.id), Some(&b.player.id)]);
        let done = match charge {
            Ok(charge) => start_match(s, a.player, side, b.player, terms, charge).await,
            Err(e) => Err(e),
        };
        if let Err(e) = done {
            // Both hear why no game came (their seeks are gone: they may seek again).
            if s.clustered() {
                crate::lobby_shared::pairing_failed(s, [&ids[0], &ids[1]], &e);
                return;
            }
            let st = s.inner.lobby.state.lock().expect("lobby lock");
            let why = Utf8Bytes::from(to_text(&LobbyOut::Error(WireError::new(e.code(), &e.to_string(), None))));
            for conn in [a.conn, b.conn] {
                if let Some((_, tx)) = st.conns.get(&conn) {
                    let _ = tx.send(why.clone());
                }
            }
            tracing::warn!(error = %e, "pairing failed");
        }
    }
}

/// Pairs seeks as their windows widen, once a second, for as long as the state lives.
pub(crate) fn pairing_loop(s: &OnlineState) {
    if tokio::runtime::Handle::try_current().is_err() {
        return;
    }
    let weak = Arc::downgrade(&s.inner);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            let Some(inner) = weak.upgrade() else { break };
            let s = OnlineState { inner };
            if s.clustered() {
                if s.is_leader() {
                    crate::lobby_shared::leader_tick(&s).await;
                }
                continue;
            }
            if !s.inner.lobby.state.lock().expect("lobby lock").seeks.is_empty() {
                pair_now(&s).await;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seek(id: &str, rating: f64, ago: u64, ruleset: &str) -> Seek {
        Seek {
            node: 0,
            conn: 0,
            player: PlayerRef { id: id.into(), name: id.into(), rating: Rating { rating, rd: 100.0, vol: 0.06 } },
            ruleset: ruleset.parse().unwrap(),
            clock: None,
            rated: true,
            since: Instant::now() - Duration::from_secs(ago),
            addr: None,
        }
    }

    #[test]
    fn pairing_window_widens_with_waiting() {
        let now = Instant::now();
        let mut q = vec![seek("a", 1500.0, 0, "tsoro:8"), seek("b", 1800.0, 0, "tsoro:8")];
        assert!(find_pairs(&mut q, now).is_empty(), "300 apart, nobody has waited");
        let mut q = vec![seek("a", 1500.0, 10, "tsoro:8"), seek("b", 1800.0, 0, "tsoro:8")];
        assert_eq!(find_pairs(&mut q, now).len(), 1, "after 10 s the window is 350");
        let mut q = vec![seek("a", 1500.0, 100, "tsoro:8"), seek("b", 1500.0, 0, "tsoro:9")];
        assert!(find_pairs(&mut q, now).is_empty(), "another ruleset");
        let mut q = vec![seek("a", 1500.0, 100, "tsoro:8"), seek("a", 1500.0, 0, "tsoro:8")];
        assert!(find_pairs(&mut q, now).is_empty(), "the same player");
        let mut q = vec![
            seek("a", 1500.0, 0, "tsoro:8"),
            seek("b", 2000.0, 0, "tsoro:8"),
            seek("c", 1550.0, 0, "tsoro:8"),
            seek("d", 1990.0, 0, "tsoro:8"),
        ];
        let pairs = find_pairs(&mut q, now);
        let ids: Vec<(String, String)> =
            pairs.iter().map(|(x, y)| (x.player.id.clone(), y.player.id.clone())).collect();
        assert_eq!(ids, [("a".to_string(), "c".to_string()), ("b".to_string(), "d".to_string())]);
    }
}
