//! A small HTTP client of the JSON API: the status and the body of one request.

use std::fmt::Display;

use serde_json::Value;

/// `GET http://{addr}{path}`: the status and the body, which must be JSON.
pub async fn get(addr: impl Display, path: &str) -> (u16, Value) {
    let r = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    (r.status().as_u16(), r.json().await.expect("a JSON body"))
}

/// `GET http://{addr}{path}`: the status and the body as text.
pub async fn get_text(addr: impl Display, path: &str) -> (u16, String) {
    let r = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// `POST http://{addr}{path}` with the JSON `body`: the status and the body, which must
/// be JSON.
pub async fn post(addr: impl Display, path: &str, body: Value) -> (u16, Value) {
    let r = reqwest::Client::new().post(format!("http://{addr}{path}")).json(&body).send().await.unwrap();
    (r.status().as_u16(), r.json().await.expect("a JSON body"))
}

/// A room of online play with both seats taken: made by `POST /api/online/rooms` with
/// `create`, its other seat claimed with `claim` and the room's invitation. What the two
/// requests answered (the maker's and the claimer's seat tokens among it).
pub async fn seated_room(addr: impl Display, create: Value, mut claim: Value) -> (Value, Value) {
    let (st, created) = post(&addr, "/api/online/rooms", create).await;
    assert_eq!(st, 201, "{created}");
    let id = created["id"].as_str().expect("a room id");
    claim["invite"] = created["invite"].clone();
    let (st, claimed) = post(&addr, &format!("/api/online/rooms/{id}/claim"), claim).await;
    assert_eq!(st, 200, "{claimed}");
    (created, claimed)
}
