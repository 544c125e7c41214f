//! The bus's connections: one publishing the node's notes in order, one listening to the
//! others'.

use super::receive::{on_note, resync_all};
use super::*;

/// A client on `url`, its connection driven by a task of its own; none when it cannot be
/// made, after a warning (`why`) and a pause of `wait`, so that the caller tries again.
pub(crate) async fn connect_or_wait(url: &str, why: &str, wait: Duration) -> Option<tokio_postgres::Client> {
    match tokio_postgres::connect(url, NoTls).await {
        Ok((client, conn)) => {
            tokio::spawn(async move {
                let _ = conn.await;
            });
            Some(client)
        }
        Err(e) => {
            tracing::warn!(error = %e, "{why}; trying again");
            tokio::time::sleep(wait).await;
            None
        }
    }
}

/// Publishes the queued notes in order on a connection of their own, made again when it
/// is lost (the notes of that moment are lost: the other nodes catch up from the store).
pub(crate) fn publish_loop(url: String, mut rx: mpsc::UnboundedReceiver<Note>) {
    tokio::spawn(async move {
        let mut batch = Vec::new();
        'connect: loop {
            let Some(client) = connect_or_wait(&url, "bus: cannot connect to publish", Duration::from_secs(1)).await
            else {
                continue;
            };
            let stmt = match client.prepare("SELECT pg_notify($1, $2)").await {
                Ok(s) => s,
                Err(_) => continue,
            };
            loop {
                if batch.is_empty() {
                    match rx.recv().await {
                        Some(n) => batch.push(n),
                        None => break 'connect,
                    }
                    while batch.len() < 256 {
                        match rx.try_recv() {
                            Ok(n) => batch.push(n),
                            Err(_) => break,
                        }
                    }
                }
                let payloads: Vec<String> = batch.drain(..).map(payload).collect();
                // Sent together on one connection: pipelined, and delivered in this order.
                let params: Vec<[&(dyn tokio_postgres::types::ToSql + Sync); 2]> =
                    payloads.iter().map(|p| [&CHANNEL as &(dyn tokio_postgres::types::ToSql + Sync), p]).collect();
                let sent = futures_util::future::join_all(params.iter().map(|ps| client.execute(&stmt, &ps[..]))).await;
                if let Some(Err(e)) = sent.into_iter().find(|r| r.is_err()) {
                    tracing::warn!(error = %e, "bus: publishing failed; reconnecting");
                    continue 'connect;
                }
            }
        }
    });
}

/// A note as its NOTIFY payload; one too big goes without its message.
pub(super) fn payload(mut n: Note) -> String {
    let p = serde_json::to_string(&n).expect("a note serializes");
    if p.len() <= MAX_PAYLOAD {
        return p;
    }
    n.text = None;
    if let Event::Targeted { .. } | Event::Team { .. } = n.event {
        // A message for a part of the room cannot be rebuilt elsewhere: dropped (never
        // passed to the whole room).
        n.event = Event::Changed;
    }
    serde_json::to_string(&n).expect("a note serializes")
}

/// Listens to the bus for as long as the state lives, reconnecting when the connection is
/// lost (and then reloading every room held, since notes may have been missed).
pub(crate) fn listen(s: &OnlineState, url: String) {
    let weak = Arc::downgrade(&s.inner);
    tokio::spawn(async move {
        let mut first = true;
        loop {
            let (client, mut conn) = match tokio_postgres::connect(&url, NoTls).await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "bus: cannot connect to listen; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            let (tx, mut notes) = mpsc::unbounded_channel();
            let driver = tokio::spawn(async move {
                let mut stream = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                while let Some(m) = stream.next().await {
                    match m {
                        Ok(AsyncMessage::Notification(n)) => {
                            if tx.send(n.payload().to_string()).is_err() {
                                break;
                            }
                        }
                        Ok(_) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "bus: the listening connection failed");
                            break;
                        }
                    }
                }
            });
            if let Err(e) = client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                tracing::warn!(error = %e, "bus: LISTEN failed; trying again");
                driver.abort();
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            let Some(inner) = weak.upgrade() else { return };
            let s = OnlineState { inner };
            // This node's lock, held as long as this connection: while it is held, the
            // leader keeps the lobby rows of this node's connections.
            if let Some(node) = s.node_id() {
                if let Err(e) = crate::store::postgres::PgStore::hold_node_lock(&client, node).await {
                    tracing::warn!(error = %e, "bus: cannot take the node's lock; trying again");
                    driver.abort();
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            }
            if !first {
                resync_all(&s).await;
            }
            crate::lobby_shared::reread(&s).await;
            drop(s);
            first = false;
            tracing::info!("bus: listening");
            while let Some(p) = notes.recv().await {
                let Some(inner) = weak.upgrade() else { return };
                let s = OnlineState { inner };
                match serde_json::from_str::<Note>(&p) {
                    Ok(n) => on_note(&s, n).await,
                    Err(e) => tracing::warn!(error = %e, "bus: a note that cannot be read"),
                }
            }
            drop(client);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_back_as_written() {
        let n = Note {
            node: 7,
            room: "abc".into(),
            event: Event::Targeted { to: To::Side(BusSide::North), from: Some("w1".into()) },
            text: Some("{\"type\":\"chat\"}".into()),
        };
        let back: Note = serde_json::from_str(&payload(n)).unwrap();
        assert_eq!(back.event, Event::Targeted { to: To::Side(BusSide::North), from: Some("w1".into()) });
        assert_eq!(back.text.as_deref(), Some("{\"type\":\"chat\"}"));
    }

    #[test]
    fn a_note_too_big_goes_without_its_message() {
        let n = Note { node: 1, room: "r".into(), event: Event::Changed, text: Some("x".repeat(9000)) };
        let p = payload(n);
        assert!(p.len() < MAX_PAYLOAD);
        let back: Note = serde_json::from_str(&p).unwrap();
        assert_eq!(back.text, None);
    }
}
