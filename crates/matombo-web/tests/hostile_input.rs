//! What a visitor sends (query values, the language cookie and header, a room's address)
//! reaches a page only escaped by its template, on every page that reads it, through the
//! whole server: a hostile value can neither open an element nor leave an attribute.

mod common;

use matombo_web::limits::ServerLimits;
use matombo_web::online::Limits;

/// `<script>alert("x")</script>'"&`, percent-encoded for a query or a path.
const HOSTILE: &str = "%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E'%22%26";

async fn get(addr: std::net::SocketAddr, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut req = reqwest::Client::new().get(format!("http://{addr}{path}"));
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

/// The page without its JSON data elements (the site's words, full of quotes).
fn markup(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(start) = rest.find("<script type=\"application/json\"") {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        rest = &rest[rest.find("</script>").expect("the data element ends")..];
    }
    out + rest
}

/// Only the page's own scripts: no element the value opened, no attribute it left.
fn assert_nothing_injected(what: &str, body: &str) {
    assert!(!body.contains("<script>alert"), "{what} prints the script unescaped:\n{body}");
    let body = markup(body);
    // The value's quotes, bare or as the messages quote it (`\"`), are never printed as such.
    for raw in ["alert(\"x", "alert(\\\"x", "'\"&", "'\\\"&"] {
        assert!(!body.contains(raw), "{what} prints {raw} unescaped:\n{body}");
    }
}

#[tokio::test]
async fn values_a_page_reports_are_escaped() {
    let addr =
        common::start_server(&common::temp_db("hostile", "reported"), Limits::default(), ServerLimits::default()).await;
    for path in [
        format!("/play?game={HOSTILE}"),
        format!("/play?ruleset={HOSTILE}"),
        format!("/play?game=tsoro&size={HOSTILE}"),
        format!("/play?game=tsoro&heads={HOSTILE}"),
        format!("/play?position={HOSTILE}&lang=fi"),
        format!("/rules/nsolo?ruleset={HOSTILE}"),
        format!("/rules/tsoro?bonus={HOSTILE}&lang=bn"),
        format!("/rules/{HOSTILE}?lang=da"),
        format!("/learn/{HOSTILE}"),
        format!("/puzzles/{HOSTILE}"),
    ] {
        let (status, body) = get(addr, &path, &[]).await;
        assert!((400..500).contains(&status), "{path}: {status}");
        assert_nothing_injected(&path, &body);
        // The value is shown, escaped: its markup as character references.
        let shown = ["&#60;script&#62;alert(", "&lt;script&gt;alert("];
        assert!(shown.iter().any(|s| body.contains(s)), "{path} does not show the value escaped:\n{body}");
        assert_eq!(body.matches("<script").count(), 2, "{path}: only the words and the offline script");
    }
}

#[tokio::test]
async fn values_a_page_ignores_are_not_printed() {
    let addr =
        common::start_server(&common::temp_db("hostile", "ignored"), Limits::default(), ServerLimits::default()).await;
    let pages = ["/", "/rules/tsoro", "/play", "/review", "/learn", "/puzzles", "/online/", "/online/archive"];
    for page in pages {
        for (path, headers) in [
            (format!("{page}?lang={HOSTILE}"), vec![]),
            (page.to_string(), vec![("cookie", "lang=<script>alert(\"x\")</script>'\"&")]),
            (page.to_string(), vec![("accept-language", "<script>alert(\"x\")</script>'\"&")]),
        ] {
            let (status, body) = get(addr, &path, &headers).await;
            assert_eq!(status, 200, "{path} {headers:?}");
            assert_nothing_injected(&format!("{path} {headers:?}"), &body);
            assert!(body.contains("<html lang=\"en\">"), "{path} {headers:?}: an unknown language is English");
            assert!(!body.contains("alert("), "{path} {headers:?} prints the value:\n{body}");
        }
    }
    // A room's address that is no room id: the page says there is no such game, and
    // names no room.
    let (status, body) = get(addr, &format!("/online/game/{HOSTILE}"), &[]).await;
    assert_eq!(status, 200);
    assert_nothing_injected("/online/game/…", &body);
    assert!(body.contains("data-room=\"\""), "{body}");
    assert!(!body.contains("alert("), "{body}");
}
