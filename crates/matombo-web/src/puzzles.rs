//! The puzzles (`/puzzles`, `/puzzles/{id}`): positions with a proved forced win, mined by
//! `matombo puzzles generate` into `assets/content/puzzles.jsonl` (docs/puzzles.md).

/// The shipped puzzles, one JSON object a line.
pub fn jsonl() -> &'static str {
    static T: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let f = crate::assets::Assets::get("content/puzzles.jsonl").expect("embedded puzzles.jsonl");
        String::from_utf8(f.data.into_owned()).expect("puzzles.jsonl is UTF-8")
    })
}
