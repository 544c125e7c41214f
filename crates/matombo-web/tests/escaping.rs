//! Pages print what a visitor sent (a bad position, an unknown puzzle or lesson) only
//! escaped: a hostile value cannot open an element or leave an attribute.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

fn app() -> axum::Router {
    let dir =
        std::env::temp_dir().join(format!("matombo-escaping-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(&dir).unwrap();
    let online = matombo_web::online::OnlineState::open(Some(&dir.join("online.sqlite"))).unwrap();
    matombo_web::app(online)
}

async fn get(uri: &str) -> (StatusCode, String) {
    let resp = app().oneshot(Request::builder().uri(uri).body(Body::empty()).unwrap()).await.unwrap();
    let status = resp.status();
    (status, String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap())
}

#[tokio::test]
async fn hostile_values_are_escaped() {
    // `<script>alert("x")` and quotes that would end an attribute.
    let hostile = "%3Cscript%3Ealert(%22x%22)'%22";
    for uri in [
        format!("/play?position={hostile}"),
        format!("/puzzles/{hostile}"),
        format!("/learn/{hostile}"),
        format!("/rules/tsoro?size={hostile}"),
        format!("/rules/{hostile}"),
    ] {
        let (status, body) = get(&uri).await;
        assert!(status.is_client_error(), "{uri}: {status}");
        assert!(!body.contains("<script>alert"), "{uri} prints the script unescaped:\n{body}");
        let escaped = ["&lt;script&gt;alert(", "&#60;script&#62;alert("];
        assert!(escaped.iter().any(|e| body.contains(e)), "{uri} does not show the value escaped:\n{body}");
        // The only scripts are the page's own: the words and its modules.
        assert_eq!(body.matches("<script").count(), 2, "{uri}: {body}");
    }
}

#[tokio::test]
async fn the_words_cannot_close_their_script_element() {
    let (status, body) = get("/?lang=en").await;
    assert_eq!(status, StatusCode::OK);
    let start = body.find("<script type=\"application/json\" id=\"ui-words\">").expect("the words element");
    let json = &body[start..];
    let json = &json[json.find('>').unwrap() + 1..json.find("</script>").unwrap()];
    let words: serde_json::Value = serde_json::from_str(json).expect("the words are JSON");
    assert!(words["learn"].is_string());
}
