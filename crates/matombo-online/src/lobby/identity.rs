//! Who a lobby connection is: identities made from a browser's secret (kept hashed),
//! names, and the player records the lobby shows.

use super::*;

/// SHA-256 of a secret, in hex: all the server keeps of it.
pub(crate) fn hash_secret(secret: &str) -> String {
    Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
pub(super) fn default_name(id: &str) -> String {
    format!("Player {}", &id[..4])
}

/// Finds or creates the player of `secret` (moving an identity here with `transfer`).
pub(super) async fn identify(
    s: &OnlineState,
    addr: Option<IpAddr>,
    secret: &str,
    name: Option<String>,
    transfer: Option<String>,
) -> Result<crate::store::PlayerInfo, ApiError> {
    let key = hash_secret(secret);
    let found = { s.inner.store.player_by_key(key.clone()).await.map_err(storage)? };
    let id = if let Some(code) = transfer {
        if found.is_some() {
            return Err(ApiError::new(ErrorCode::InvalidField, "a transfer needs a fresh player secret"));
        }
        if let Some(a) = addr {
            let mut per = s.inner.per_addr.lock().expect("addr lock");
            let limits = &s.inner.limits;
            let b = per.entry(a).or_default().codes.get_or_insert_with(|| {
                Bucket::with_burst(limits.transfer_tries_per_min / 60.0, limits.transfer_tries_per_min)
            });
            if !b.take() {
                return Err(ApiError::new(
                    ErrorCode::RateLimited,
                    format!("at most {} transfer codes a minute", limits.transfer_tries_per_min),
                ));
            }
        }
        let op = Op::UseTransfer { code_hash: hash_secret(&code.to_ascii_uppercase()), key_hash: key, now: now_ms() };
        match s.inner.store.write(op).await {
            Ok(ids) if !ids.is_empty() => {
                tracing::info!(player = %ids[0], "identity moved to another device");
                ids[0].clone()
            }
            Err(StoreError::BadCode) => {
                return Err(ApiError::new(ErrorCode::BadCode, "this transfer code is wrong, used or expired"))
            }
            Ok(_) => return Err(ApiError::new(ErrorCode::BadCode, "no such transfer code")),
            Err(e) => return Err(ApiError::new(ErrorCode::Storage, e.to_string())),
        }
    } else if let Some((id, _, _)) = found {
        id
    } else {
        let now = now_ms();
        if let Some(a) = addr {
            let a = a.to_string();
            let n = s.inner.store.players_from(a, now.saturating_sub(3_600_000)).await.map_err(storage)?;
            if n >= s.inner.limits.players_per_addr_hour {
                return Err(ApiError::new(
                    ErrorCode::RateLimited,
                    format!("at most {} new players an hour from one address", s.inner.limits.players_per_addr_hour),
                ));
            }
        }
        let id = random_secret(12);
        let name = name.as_deref().map(str::trim).map(str::to_string).unwrap_or_else(|| default_name(&id));
        check_look_alike(s, &id, &name)?;
        let op =
            Op::CreatePlayer { id: id.clone(), key_hash: key, name, created: now, addr: addr.map(|a| a.to_string()) };
        s.inner.store.write(op).await.map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
        tracing::info!(player = %id, "new player");
        let p = load_player(s, &id).await?;
        s.inner.lobby.names.set(&p.id, &p.name);
        return Ok(p);
    };
    if let Some(n) = name {
        rename(s, &id, &n).await?;
    }
    let p = load_player(s, &id).await?;
    s.inner.lobby.names.set(&p.id, &p.name);
    Ok(p)
}

/// Refuses a name that looks like another identity's (issue 42, names that cannot deceive).
pub(super) fn check_look_alike(s: &OnlineState, id: &str, name: &str) -> Result<(), ApiError> {
    if s.inner.lobby.names.taken_by_other(id, name).is_some() {
        return Err(ApiError::new(ErrorCode::InvalidField, "name: looks like another player's name; choose another"));
    }
    Ok(())
}

pub(super) async fn rename(s: &OnlineState, id: &str, name: &str) -> Result<(), ApiError> {
    check_look_alike(s, id, name.trim())?;
    s.inner
        .store
        .write(Op::RenamePlayer { id: id.to_string(), name: name.trim().to_string() })
        .await
        .map(|_| ())
        .map_err(storage)?;
    s.inner.lobby.names.set(id, name.trim());
    Ok(())
}

pub(super) async fn load_player(s: &OnlineState, id: &str) -> Result<crate::store::PlayerInfo, ApiError> {
    s.inner
        .store
        .player(id.to_string())
        .await
        .map_err(storage)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such player"))
}

/// The player's rating in `ruleset`'s group (the start rating if none).
pub(super) fn rating_in(p: &crate::store::PlayerInfo, ruleset: Ruleset) -> Rating {
    let g = group_of(ruleset);
    p.ratings.iter().find(|(name, _, _)| name == g).map_or_else(Rating::default, |(_, r, _)| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_kept_hashed() {
        let h = hash_secret("abc");
        assert_eq!(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
