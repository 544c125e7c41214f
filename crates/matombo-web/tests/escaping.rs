//! Pages print what a visitor sent (a bad position, an unknown puzzle or lesson) only
//! escaped: a hostile value cannot open an element or leave an attribute.

use axum::http::StatusCode;

mod common;

async fn get(uri: &str) -> (StatusCode, String) {
    let (status, _, body) = common::get("escaping", uri, &[]).await;
    (status, String::from_utf8(body).unwrap())
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
