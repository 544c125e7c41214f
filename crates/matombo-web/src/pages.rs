//! The HTML pages: catalogue, rules, board and game review. Pages are assembled on the server
//! from the translated content in `assets/content/`; the board itself is drawn by `board.js`.

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use matombo_core::{GameKind, Position, Ruleset};

use crate::api::{games, Rows, RulesetInfo};
use crate::assets::Assets;
pub use crate::layout::Target;
pub(crate) use crate::layout::{error_page, page, render, respond, Layout};
pub(crate) use crate::words::{cat, catalogue, fill, language};
pub use crate::words::{word, words, PageQuery, LANGUAGES};

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn number(s: &Option<String>, what: &str) -> Result<Option<u8>, String> {
    match s.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => t.parse::<u8>().map(Some).map_err(|_| format!("{what} {t:?} is not a number")),
    }
}

/// The ruleset a page query asks for (`ruleset=`, or `game=`, `size=`, `heads=`, `bonus=`).
fn ruleset_of(q: &PageQuery, default_game: Option<GameKind>) -> Result<Ruleset, String> {
    if let Some(r) = &q.ruleset {
        return r.parse::<Ruleset>().map_err(|e| format!("bad ruleset {r:?}: {e}"));
    }
    let kind = match q.game.as_deref() {
        Some("tsoro") => GameKind::Tsoro,
        Some("nsolo") => GameKind::Nsolo,
        Some(g) => return Err(format!("unknown game {g:?} (expected tsoro or nsolo)")),
        None => default_game.unwrap_or(GameKind::Tsoro),
    };
    let size = number(&q.size, "board size")?.unwrap_or(kind.default_size());
    match kind {
        GameKind::Tsoro => {
            Ruleset::tsoro(size, number(&q.heads, "heads")?.unwrap_or(2), number(&q.bonus, "bonus")?.unwrap_or(2))
        }
        GameKind::Nsolo => Ruleset::nsolo(size),
    }
    .map_err(|e| e.to_string())
}

fn options(values: &[u8], selected: u8) -> String {
    values
        .iter()
        .map(|v| format!("<option value=\"{v}\"{}>{v}</option>", if *v == selected { " selected" } else { "" }))
        .collect()
}

/// The variant form of a game: size (traditional first), heads and bonus for Tsoro.
/// `target_page` is "play" (the catalogue's form) or "rules-{game}" (the rules page's).
fn variant_form(
    t: Target,
    lang: &str,
    kind: GameKind,
    ruleset: Option<Ruleset>,
    target_page: &str,
    submit: &str,
) -> String {
    let info = games().into_iter().find(|g| g.game == kind.name()).expect("both games listed");
    let game = kind.name();
    let size = ruleset.map_or(info.default_size, |r| r.size() as u8);
    let trad: String = info.sizes[..info.traditional]
        .iter()
        .map(|n| {
            let sel = if *n == size { " selected" } else { "" };
            format!("<option value=\"{n}\"{sel}>4 × {n}</option>")
        })
        .collect();
    let rest: String = info.sizes[info.traditional..]
        .iter()
        .map(|n| {
            let sel = if *n == size { " selected" } else { "" };
            format!("<option value=\"{n}\"{sel}>4 × {n}</option>")
        })
        .collect();
    let mut fields = format!(
        "<label>{board_size} <select name=\"size\" id=\"{game}-size\"><optgroup label=\"{traditional}\">{trad}</optgroup><optgroup label=\"{other}\">{rest}</optgroup></select></label>",
        board_size = esc(&word(lang, "board_size")),
        traditional = esc(&word(lang, "traditional")),
        other = esc(&word(lang, "other_sizes")),
    );
    if kind == GameKind::Tsoro {
        let heads = ruleset.map_or(2, |r| r.heads());
        let bonus = ruleset.map_or(2, |r| r.bonus());
        fields.push_str(&format!(
            "<label>{} <select name=\"heads\" id=\"{game}-heads\">{}</select></label><label>{} <select name=\"bonus\" id=\"{game}-bonus\">{}</select></label>",
            esc(&word(lang, "heads")),
            options(&info.heads, heads),
            esc(&word(lang, "bonus_holes")),
            options(&info.bonus, bonus),
        ));
    }
    format!(
        "<form class=\"variant\" method=\"get\" action=\"{action}\"><input type=\"hidden\" name=\"game\" value=\"{game}\">{lang_field}{fields}<button type=\"submit\" class=\"{class}\" id=\"{game}-submit\">{}</button></form>",
        esc(submit),
        // On the rules page the form only redraws the diagram; "Play this game" is the main button.
        class = if target_page == "play" { "primary" } else { "secondary" },
        action = esc(match t {
            Target::Server => t.href(target_page, lang, "").split('?').next().unwrap_or("/").to_string(),
            Target::Site => Target::site_file(target_page, lang),
        }
        .as_str()),
        lang_field = match t {
            Target::Server => format!("<input type=\"hidden\" name=\"lang\" value=\"{lang}\">"),
            Target::Site => String::new(),
        },
    )
}

/// `GET /`: the catalogue.
pub async fn catalogue_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    respond(lang, set, catalogue_html(Target::Server, lang))
}

/// The catalogue in `lang`.
pub fn catalogue_html(t: Target, lang: &str) -> String {
    let mut cards = String::new();
    for kind in [GameKind::Tsoro, GameKind::Nsolo] {
        let game = kind.name();
        cards.push_str(&format!(
            r#"<article class="card" id="card-{game}" aria-labelledby="title-{game}">
<div class="card-art" aria-hidden="true" data-game="{game}"></div>
<h2 id="title-{game}">{name}</h2>
<p class="blurb">{blurb}</p>
<dl class="facts"><dt>{type_l}</dt><dd>{type_v}</dd><dt>{board_l}</dt><dd>{board_v}</dd><dt>{origin_l}</dt><dd>{origin_v}</dd></dl>
{form}
<p class="more"><a href="{rules_href}" id="rules-{game}">{rules}</a></p>
</article>
"#,
            name = esc(&cat(lang, game, "name")),
            blurb = esc(&cat(lang, game, "blurb")),
            type_l = esc(&word(lang, "type")),
            type_v = esc(&cat(lang, game, "type")),
            board_l = esc(&word(lang, "board")),
            board_v = esc(&cat(lang, game, "board")),
            origin_l = esc(&word(lang, "origin")),
            origin_v = esc(&cat(lang, game, "origin")),
            form = variant_form(t, lang, kind, None, "play", &word(lang, "play_this_game")),
            rules_href = esc(&t.href(&format!("rules-{game}"), lang, "")),
            rules = esc(&word(lang, "rules")),
        ));
    }
    let main = format!(
        "<h1 class=\"catalogue-title\">{}</h1>\n<div class=\"cards\">{cards}</div>\n<p class=\"more daily\"><a class=\"button\" id=\"daily-puzzle\" href=\"{}\">{}</a></p>",
        esc(&word(lang, "catalogue_title")),
        esc(&t.href("puzzles", lang, "daily=1")),
        esc(&word(lang, "puzzle_of_the_day")),
    );
    page(t, lang, "matombo", "catalogue", ("index", ""), &main, "catalogue.js")
}

/// The start diagram of a ruleset, from the engine's own start position.
fn diagram(lang: &str, ruleset: Ruleset) -> String {
    let start = Position::start(ruleset);
    let n = ruleset.size();
    let rows = serde_json::to_string(&Rows::of(&start)).expect("rows serialize");
    let info = serde_json::to_string(&RulesetInfo::of(ruleset)).expect("info serializes");
    let caption = fill(
        &fill(&fill(&word(lang, "start_diagram"), "n", &n.to_string()), "holes", &(4 * n).to_string()),
        "stones",
        &start.total_stones().to_string(),
    );
    format!(
        "<figure class=\"start-diagram\" data-game=\"{}\" data-ruleset=\"{}\" data-position=\"{}\" data-rows=\"{}\" data-info=\"{}\" data-holes=\"{}\" data-stones=\"{}\"><div class=\"board-scroll\"><div class=\"board-host\"></div></div><figcaption>{} <code>{}</code></figcaption></figure>",
        ruleset.kind().name(),
        esc(&ruleset.to_string()),
        esc(&start.to_string()),
        esc(&rows),
        esc(&info),
        4 * n,
        start.total_stones(),
        esc(&caption),
        esc(&start.to_string()),
    )
}

/// `GET /rules/{game}`: the rules in the chosen language, with the start diagram for the
/// chosen size.
pub async fn rules_page(Path(game): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    let kind = match game.as_str() {
        "tsoro" => GameKind::Tsoro,
        "nsolo" => GameKind::Nsolo,
        _ => return error_page(lang, StatusCode::NOT_FOUND, &format!("no rules for {game:?}: try tsoro or nsolo")),
    };
    let q = PageQuery { game: Some(game.clone()), ..q };
    let ruleset = match ruleset_of(&q, Some(kind)) {
        Ok(r) if r.kind() == kind => r,
        Ok(r) => return error_page(lang, StatusCode::BAD_REQUEST, &format!("{r} is not a {game} ruleset")),
        Err(e) => return error_page(lang, StatusCode::BAD_REQUEST, &e),
    };
    match rules_html(Target::Server, lang, kind, ruleset) {
        Some(html) => respond(lang, set, html),
        None => error_page(lang, StatusCode::NOT_FOUND, "missing rules text"),
    }
}

/// The rules of `kind` in `lang`, with the start diagram of `ruleset`.
pub fn rules_html(t: Target, lang: &str, kind: GameKind, ruleset: Ruleset) -> Option<String> {
    let game = kind.name().to_string();
    let fragment = Assets::get(&format!("content/rules/{lang}/{game}.html"))?;
    let fragment = String::from_utf8_lossy(&fragment.data).into_owned();
    let placeholder = format!("<div class=\"start-diagram\" data-game=\"{game}\"></div>");
    let body = fragment.replace(&placeholder, &diagram(lang, ruleset));
    let sections = &catalogue()[lang]["sections"];
    let mut toc = String::new();
    for id in ["overview", "board", "play", "capture", "end", "variants", "notation", "sources"] {
        if body.contains(&format!("<section id=\"{id}\"")) {
            let name = sections[id].as_str().unwrap_or(id);
            toc.push_str(&format!("<li><a href=\"#{id}\">{}</a></li>", esc(name)));
        }
    }
    let name = cat(lang, &game, "name");
    let mut here = format!("size={}", ruleset.size());
    if kind == GameKind::Tsoro {
        here.push_str(&format!("&heads={}&bonus={}", ruleset.heads(), ruleset.bonus()));
    }
    let main = format!(
        r#"<article class="rules" data-game="{game}">
<h1>{title}</h1>
<p class="facts-line">{type_v} · {origin_v}</p>
<div class="rules-variant">
{form}
<a class="button primary" id="play-link" href="{play_href}">{play}</a>
<a class="button" id="learn-link" href="{learn_href}">{learn}</a>
</div>
<nav class="toc" aria-label="{rules}"><ol>{toc}</ol></nav>
{body}
</article>"#,
        title = esc(&format!("{name} – {}", word(lang, "rules"))),
        type_v = esc(&cat(lang, &game, "type")),
        origin_v = esc(&cat(lang, &game, "origin")),
        form = variant_form(t, lang, kind, Some(ruleset), &format!("rules-{game}"), &word(lang, "show_diagram")),
        play_href = esc(&t.href("play", lang, &format!("ruleset={}", url_encode(&ruleset.to_string())))),
        play = esc(&word(lang, "play_this_game")),
        rules = esc(&word(lang, "rules")),
        learn_href = esc(&t.href("learn", lang, "")),
        learn = esc(&word(lang, "learn_by_playing")),
    );
    let rules_page = format!("rules-{game}");
    Some(page(t, lang, &format!("{name} – matombo"), "rules-page", (&rules_page, &here), &main, "rules.js"))
}

/// Percent-encodes a query value.
pub fn url_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `GET /play`: the board page for a ruleset (`ruleset=` or `game=&size=…`) or a position.
pub async fn play_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    let start = match &q.position {
        Some(p) => match p.parse::<Position>() {
            Ok(p) => p,
            Err(e) => return error_page(lang, StatusCode::BAD_REQUEST, &format!("bad position {p:?}: {e}")),
        },
        None => match ruleset_of(&q, None) {
            Ok(r) => Position::start(r),
            Err(e) => return error_page(lang, StatusCode::BAD_REQUEST, &e),
        },
    };
    respond(lang, set, play_html(Target::Server, lang, &start))
}

/// The board page in `lang`, starting from `start`.
pub fn play_html(t: Target, lang: &str, start: &Position) -> String {
    let ruleset = start.ruleset();
    let game = ruleset.kind().name();
    let name = cat(lang, game, "name");
    let w = |k: &str| esc(&word(lang, k));
    let levels: String = matombo_ai::Level::ALL
        .iter()
        .map(|l| {
            let sel = if *l == matombo_ai::Level::Easy { " selected" } else { "" };
            format!("<option value=\"{l}\"{sel}>{}</option>", w(&format!("level_{l}")))
        })
        .collect();
    let here = format!("position={}", url_encode(&start.to_string()));
    // The page may be shown for another start (a static site, the offline copy of another
    // board): the script then retitles it, with the games' names in this language.
    let names =
        serde_json::json!({"tsoro": cat(lang, "tsoro", "name"), "nsolo": cat(lang, "nsolo", "name")}).to_string();
    let main = format!(
        r#"<div class="play" id="play" data-start="{start}" data-game="{game}" data-names="{names}" data-rules="{rules_base}">
<div class="board-column">
<div class="status-bar">
<h1 class="play-title">{name} <span class="ruleset">{ruleset}</span></h1>
<a class="rules-link" id="rules-link" href="{rules_href}">{rules}</a>
<p id="status" class="status" role="status" aria-live="polite"></p>
<span id="thinking" class="thinking" hidden><span class="spinner" aria-hidden="true"></span>{thinking}</span>
</div>
<div id="banner" class="banner" role="alert" hidden></div>
<div class="side-bar north" id="side-north" data-side="North"></div>
<div class="board-scroll" id="board-scroll"><div class="board-host" id="board"></div></div>
<div class="side-bar south" id="side-south" data-side="South"></div>
<div class="decision-bar" id="decision-bar">
<span id="prompt" class="prompt"></span>
<button type="button" id="btn-continue" hidden>{continue_}</button>
<button type="button" id="btn-stop" hidden>{stop}</button>
<button type="button" id="btn-done" hidden>{done}</button>
</div>
<div class="anim-bar">
<label>{speed} <input type="range" id="speed" min="0" max="4" step="1" value="2"></label>
<button type="button" id="btn-skip" disabled>{skip}</button>
<button type="button" id="btn-replay" disabled>{replay_last}</button>
<label class="check"><input type="checkbox" id="labels"> {labels}</label>
</div>
</div>
<aside class="side-panel">
<section class="panel settings" aria-labelledby="settings-title">
<h2 id="settings-title">{new_game}</h2>
<fieldset><legend class="sr-only">{mode}</legend>
<label class="check"><input type="radio" name="mode" value="ai" checked> {vs_ai}</label>
<label class="check"><input type="radio" name="mode" value="two"> {two_players}</label>
</fieldset>
<div class="ai-options">
<label>{you_play} <select id="human-side"><option value="S">{south}</option><option value="N">{north}</option></select></label>
<label>{level} <select id="level">{levels}</select></label>
</div>
<button type="button" id="btn-new" class="primary">{new_game}</button>
</section>
<section class="panel actions">
<div class="button-row">
<button type="button" id="btn-undo" aria-keyshortcuts="Control+Z">{undo}</button>
<button type="button" id="btn-redo" aria-keyshortcuts="Control+Y">{redo}</button>
<button type="button" id="btn-hint">{hint}</button>
<button type="button" id="btn-resign">{resign}</button>
</div>
<p id="hint" class="hint" aria-live="polite"></p>
</section>
<section class="panel moves-panel" aria-labelledby="moves-title">
<h2 id="moves-title">{moves}</h2>
<ol id="moves" class="moves"></ol>
</section>
<section class="panel tools">
<div class="button-row">
<button type="button" id="btn-download">{download}</button>
<label class="button" for="record-file">{load}</label>
<input type="file" id="record-file" accept=".txt,.pgn,text/plain" class="sr-only">
<button type="button" id="btn-copy">{copy_position}</button>
<button type="button" id="btn-editor">{editor}</button>
<a class="button" id="review-link" href="{review_href}">{review_game}</a>
</div>
<p class="position-line"><code id="position-text"></code></p>
<p id="tool-message" class="tool-message" aria-live="polite"></p>
</section>
</aside>
</div>
<dialog id="editor" aria-labelledby="editor-title">
<form method="dialog" id="editor-form">
<h2 id="editor-title">{editor}</h2>
<label class="block">{paste_position}<textarea id="editor-text" rows="2" spellcheck="false"></textarea></label>
<div class="board-scroll"><div id="editor-grid" class="editor-grid"></div></div>
<label>{side_to_move} <select id="editor-side"><option value="S">{south}</option><option value="N">{north}</option></select></label>
<p id="editor-totals" class="totals" aria-live="polite"></p>
<p id="editor-error" class="error-text" aria-live="assertive"></p>
<div class="button-row"><button type="button" id="editor-apply" class="primary">{apply}</button><button type="button" id="editor-cancel">{cancel}</button></div>
</form>
</dialog>"#,
        start = esc(&start.to_string()),
        name = esc(&name),
        names = esc(&names),
        rules_href = esc(&t.href(&format!("rules-{game}"), lang, &format!("size={}", ruleset.size()))),
        rules_base = esc(&t.href("rules-GAME", lang, "")),
        rules = w("rules"),
        ruleset = esc(&ruleset.to_string()),
        thinking = w("thinking"),
        continue_ = w("continue"),
        stop = w("stop"),
        done = w("done"),
        speed = w("speed"),
        skip = w("skip"),
        replay_last = w("replay_last"),
        labels = w("labels"),
        new_game = w("new_game"),
        mode = w("mode"),
        vs_ai = w("vs_ai"),
        two_players = w("two_players"),
        you_play = w("you_play"),
        south = w("south"),
        north = w("north"),
        level = w("level"),
        undo = w("undo"),
        redo = w("redo"),
        hint = w("hint"),
        resign = w("resign"),
        moves = w("moves"),
        download = w("download_record"),
        load = w("load_record"),
        copy_position = w("copy_position"),
        editor = w("position_editor"),
        paste_position = w("paste_position"),
        side_to_move = w("side_to_move"),
        apply = w("apply"),
        cancel = w("cancel"),
        review_href = esc(&t.href("review", lang, "")),
        review_game = w("review_game"),
    );
    page(t, lang, &format!("{name} {ruleset} – matombo"), "play-page", ("play", &here), &main, "play.js")
}

/// `GET /review`: the game review page. The game comes from the address (`ruleset=` or
/// `position=`, `moves=`, `turn=`; `online=` an archived online game), a pasted or loaded
/// record, or the board page's "Review game" link; the page's script reads it (docs/review.md).
pub async fn review_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    respond(lang, set, review_html(Target::Server, lang))
}

/// The review page in `lang`. The page is the same for every game: the script fills it.
pub fn review_html(t: Target, lang: &str) -> String {
    let w = |k: &str| esc(&word(lang, k));
    let names =
        serde_json::json!({"tsoro": cat(lang, "tsoro", "name"), "nsolo": cat(lang, "nsolo", "name")}).to_string();
    // Node budgets a position: the default is quick enough for a phone (docs/review.md);
    // 1,000,000 is `matombo review`'s default and gives its very scores.
    let budgets: String = [(50_000, "budget_quick"), (300_000, "budget_normal"), (1_000_000, "budget_deep")]
        .iter()
        .map(|(n, k)| {
            let sel = if *n == 300_000 { " selected" } else { "" };
            format!("<option value=\"{n}\"{sel}>{}</option>", w(k))
        })
        .collect();
    let main = format!(
        r#"<div class="review" id="review" data-names="{names}" data-play="{play_base}" data-state="input">
<section class="panel review-source" id="review-source" aria-labelledby="review-title">
<h1 id="review-title" class="play-title">{title}</h1>
<p class="review-intro">{intro}</p>
<label class="block">{paste_record}<textarea id="record-text" rows="5" spellcheck="false"></textarea></label>
<div class="review-options">
<label class="button" for="record-file">{load}</label>
<input type="file" id="record-file" accept=".txt,.pgn,text/plain" class="sr-only">
{online}<label>{budget} <select id="budget">{budgets}</select></label>
<button type="button" id="btn-review" class="primary">{review}</button>
</div>
<p id="review-error" class="error-text" role="alert"></p>
</section>
<div class="review-progress panel" id="review-progress" hidden>
<label for="progress">{scoring}</label>
<progress id="progress" max="1" value="0"></progress>
<span id="progress-text" class="progress-text" aria-live="polite"></span>
<button type="button" id="btn-stop">{stop}</button>
</div>
<div class="review-result" id="review-result" hidden>
<div class="board-column">
<div class="status-bar">
<h1 class="play-title" id="game-title"></h1>
<a class="rules-link" id="play-link" href="{play_base}">{play_from_here}</a>
</div>
<div class="side-bar north" id="side-north"></div>
<div class="board-scroll"><div class="board-host" id="board"></div></div>
<div class="side-bar south" id="side-south"></div>
<div class="review-nav" role="group" aria-label="{moves}">
<button type="button" id="btn-first" aria-label="{first}">«</button>
<button type="button" id="btn-prev" aria-label="{previous}" aria-keyshortcuts="ArrowLeft">‹</button>
<span id="turn-label" class="turn-label" aria-live="polite"></span>
<button type="button" id="btn-next" aria-label="{next}" aria-keyshortcuts="ArrowRight">›</button>
<button type="button" id="btn-last" aria-label="{last}">»</button>
</div>
<div class="turn-info panel" id="turn-info" aria-live="polite"></div>
</div>
<aside class="side-panel">
<section class="panel graph-panel" aria-labelledby="graph-title">
<h2 id="graph-title">{evaluation}</h2>
<div id="graph" class="graph"></div>
<p class="graph-caption" id="graph-caption"></p>
</section>
<section class="panel summary-panel" aria-labelledby="summary-title">
<h2 id="summary-title">{summary}</h2>
<table class="summary" id="summary"></table>
<p class="thresholds" id="thresholds"></p>
</section>
<section class="panel moves-panel" aria-labelledby="moves-title">
<h2 id="moves-title">{moves}</h2>
<ol id="moves" class="moves review-moves"></ol>
</section>
<section class="panel tools">
<div class="button-row">
<button type="button" id="btn-download">{download}</button>
<button type="button" id="btn-link">{copy_link}</button>
<button type="button" id="btn-another">{another}</button>
</div>
<p id="tool-message" class="tool-message" aria-live="polite"></p>
</section>
</aside>
</div>
</div>"#,
        names = esc(&names),
        play_base = esc(&t.href("play", lang, "")),
        title = w("review_title"),
        intro = w("review_intro"),
        paste_record = w("paste_record"),
        load = w("load_record"),
        // Online games are the server's: a static site has none to fetch.
        online = match t {
            Target::Server => format!(
                "<label>{} <input type=\"text\" id=\"online-id\" autocomplete=\"off\" spellcheck=\"false\"></label>\n",
                w("review_online_game")
            ),
            Target::Site => String::new(),
        },
        budget = w("review_budget"),
        review = w("review_start"),
        scoring = w("review_scoring"),
        stop = w("stop"),
        play_from_here = w("play_from_here"),
        moves = w("moves"),
        first = w("nav_first"),
        previous = w("nav_previous"),
        next = w("nav_next"),
        last = w("nav_last"),
        evaluation = w("evaluation"),
        summary = w("review_summary"),
        download = w("download_annotated"),
        copy_link = w("copy_link"),
        another = w("review_another"),
    );
    page(
        t,
        lang,
        &format!("{} – matombo", word(lang, "review_title")),
        "review-page",
        ("review", ""),
        &main,
        "review.js",
    )
}

// ---------------------------------------------------------------- online pages

/// The online pages' shared stylesheet, linked from the page body (the site's head has
/// only the site's stylesheet).
fn online_css(t: Target) -> String {
    format!("<link rel=\"stylesheet\" href=\"{}/online/online.css\">", t.static_base())
}

/// Serves the online pages (lobby, game room, archive, leaderboard, player) from the
/// site's templates, in the visitor's language; routed by the online router.
pub async fn online_page(req: axum::extract::Request) -> Response {
    let path = req.uri().path().to_string();
    let rest = path.strip_prefix("/online").unwrap_or_default();
    let q = Query::<PageQuery>::try_from_uri(req.uri()).map(|Query(q)| q).unwrap_or_default();
    let (lang, set) = language(&q, req.headers());
    let html = match rest {
        "" | "/" => online_lobby_html(lang),
        "/archive" => online_archive_html(lang),
        "/leaderboard" => online_leaderboard_html(lang),
        "/player" => online_player_html(lang),
        _ => match rest.strip_prefix("/game/") {
            Some(id) if !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                online_game_html(lang, id)
            }
            // A malformed room address: the room page says there is no such game.
            _ => online_game_html(lang, ""),
        },
    };
    respond(lang, set, html)
}

/// Words for the online pages' scripts are the page's `ui-words`; this is `w` escaped.
fn ow(lang: &str) -> impl Fn(&str) -> String + '_ {
    move |k: &str| esc(&word(lang, k))
}

/// The lobby: open challenges, games in progress, quick pairing, the new-game form and
/// the player's identity.
pub fn online_lobby_html(lang: &str) -> String {
    let t = Target::Server;
    let w = ow(lang);
    // The sizes of each game go to the page's script, which fills the size list.
    let games: String = games()
        .into_iter()
        .map(|g| {
            let sizes: Vec<String> = g.sizes.iter().map(|n| n.to_string()).collect();
            format!(
                "<option value=\"{game}\" data-sizes=\"{sizes}\" data-default=\"{default}\">{name}</option>",
                game = g.game,
                sizes = sizes.join(","),
                default = g.default_size,
                name = esc(&cat(lang, g.game, "name"))
            )
        })
        .collect();
    let main = format!(
        r#"{css}
<div class="online-lobby" id="lobby">
<h1>{online}</h1>
<p class="lead">{lobby_intro}</p>
<section class="panel identity" id="identity" aria-labelledby="identity-title">
<h2 id="identity-title">{you}</h2>
<form id="name-form" class="inline-form"><label>{your_name} <input id="player-name" name="name" maxlength="40" autocomplete="nickname"></label><button type="submit">{save}</button></form>
<p id="identity-info" class="muted"></p>
<details id="transfer"><summary>{transfer}</summary>
<p class="muted">{transfer_help}</p>
<div class="button-row"><button type="button" id="btn-transfer-show">{transfer_show}</button><code id="transfer-code"></code></div>
<form id="transfer-form" class="inline-form"><label>{transfer_enter} <input id="transfer-input" maxlength="64" autocomplete="off" spellcheck="false"></label><button type="submit">{transfer_use}</button></form>
<p id="transfer-message" class="tool-message" aria-live="polite"></p>
</details>
</section>
<section class="panel your-games" id="your-games-panel" aria-labelledby="your-games-title">
<h2 id="your-games-title">{your_games}</h2>
<ul id="your-games" class="plain"></ul>
<p id="no-your-games" class="muted">{no_your_games}</p>
</section>
<section class="panel quick" id="quick" aria-labelledby="quick-title">
<h2 id="quick-title">{quick_pairing}</h2>
<p class="muted">{quick_help}</p>
<div class="button-row" id="quick-buttons"></div>
<p id="quick-status" class="tool-message" aria-live="polite"></p>
</section>
<section class="panel challenges" aria-labelledby="challenges-title">
<h2 id="challenges-title">{open_challenges}</h2>
<p id="lobby-status" class="muted" aria-live="polite"></p>
<table class="list" id="challenges"><thead><tr><th>{game_word}</th><th>{clock}</th><th>{player}</th><th>{rating}</th><th><span class="sr-only">{col_action}</span></th></tr></thead><tbody></tbody></table>
<p id="no-challenges" class="muted">{no_challenges}</p>
</section>
<section class="panel create" aria-labelledby="create-title">
<h2 id="create-title">{create_game}</h2>
<form id="create">
<div class="form-grid">
<label>{game_word} <select name="game" id="create-game">{games}</select></label>
<label>{board_size} <select name="size" id="create-size"></select></label>
<label class="tsoro-only">{heads} <select name="heads"><option>0</option><option>1</option><option selected>2</option></select></label>
<label class="tsoro-only">{bonus_holes} <select name="bonus"><option>0</option><option>1</option><option selected>2</option><option>3</option></select></label>
<label>{your_side} <select name="side"><option value="random">{random}</option><option value="south">{south_first}</option><option value="north">{north}</option></select></label>
<label>{minutes} <input name="minutes" type="number" min="0" max="1440" step="1" placeholder="{no_clock}"></label>
<label>{increment} <input name="increment" type="number" min="0" max="3600" step="1" value="0"></label>
<label>{days_per_turn} <select name="days" id="create-days"><option value="">–</option><option>1</option><option>2</option><option>3</option><option>5</option><option>7</option><option>14</option></select></label>
</div>
<fieldset class="who" id="create-teams-box"><legend>{team_game}</legend>
<label>{team_mode} <select name="teams" id="create-teams"><option value="">{team_none}</option><option value="any">{team_mode_any}</option><option value="captain">{team_mode_captain}</option><option value="vote">{team_mode_vote}</option></select></label>
<label class="team-only vote-only" hidden>{vote_seconds} <input name="vote_s" id="create-vote-s" type="number" min="2" max="86400" step="1" value="30"></label>
<label class="check team-only" hidden><input type="checkbox" name="public" id="create-public"> {team_public}</label>
</fieldset>
<fieldset class="who"><legend>{who_may_join}</legend>
<label class="check"><input type="radio" name="open" value="open" checked> {open_to_all}</label>
<label class="check"><input type="radio" name="open" value="link"> {link_only}</label>
<label class="check"><input type="checkbox" name="rated" checked> {rated}</label>
<p class="muted" id="rated-rules">{rated_rules}</p>
</fieldset>
<button type="submit" class="primary" id="btn-create">{create_game}</button>
<p id="error" class="tool-message error" role="alert"></p>
</form>
</section>
<section class="panel public-teams" id="public-teams-panel" hidden aria-labelledby="public-teams-title">
<h2 id="public-teams-title">{public_team_games}</h2>
<ul id="public-teams" class="plain"></ul>
<p id="no-public-teams" class="muted">{no_public_team_games}</p>
</section>
<section class="panel live" aria-labelledby="live-title">
<h2 id="live-title">{games_in_progress}</h2>
<ul id="live-games" class="plain"></ul>
<p id="no-live" class="muted">{no_games_in_progress}</p>
</section>
<p class="more-links"><a href="{archive}">{finished_games}</a> · <a href="{leaderboard}">{leaderboard}</a> · <a href="{player_href}" id="my-games">{my_games}</a></p>
</div>"#,
        css = online_css(t),
        online = w("online"),
        lobby_intro = w("lobby_intro"),
        you = w("you"),
        your_name = w("your_name"),
        save = w("save"),
        transfer = w("transfer"),
        transfer_help = w("transfer_help"),
        transfer_show = w("transfer_show"),
        transfer_enter = w("transfer_enter"),
        transfer_use = w("transfer_use"),
        quick_pairing = w("quick_pairing"),
        quick_help = w("quick_help"),
        open_challenges = w("open_challenges"),
        game_word = w("game_word"),
        col_action = w("col_action"),
        clock = w("clock"),
        player = w("player"),
        rating = w("rating"),
        no_challenges = w("no_challenges"),
        create_game = w("create_game"),
        board_size = w("board_size"),
        heads = w("heads"),
        bonus_holes = w("bonus_holes"),
        your_side = w("your_side"),
        random = w("random_side"),
        south_first = w("south_first"),
        north = w("north"),
        minutes = w("minutes_per_side"),
        no_clock = w("no_clock"),
        increment = w("increment_seconds"),
        who_may_join = w("who_may_join"),
        open_to_all = w("open_to_all"),
        link_only = w("link_only"),
        rated = w("rated"),
        // The numbers come from the server's rules, so that the page says what counts.
        rated_rules = w("rated_rules")
            .replace("{turns}", &matombo_online::rating::MIN_TURNS_EACH.to_string())
            .replace("{games}", &matombo_online::rating::RATED_PER_PAIR_PER_DAY.to_string()),
        games_in_progress = w("games_in_progress"),
        your_games = w("your_games"),
        no_your_games = w("no_your_games"),
        days_per_turn = w("days_per_turn"),
        team_game = w("team_game"),
        team_mode = w("team_mode"),
        team_none = w("team_none"),
        team_mode_any = w("team_mode_any"),
        team_mode_captain = w("team_mode_captain"),
        team_mode_vote = w("team_mode_vote"),
        vote_seconds = w("vote_seconds"),
        team_public = w("team_public"),
        public_team_games = w("public_team_games"),
        no_public_team_games = w("no_public_team_games"),
        no_games_in_progress = w("no_games_in_progress"),
        archive = esc(&t.href("online-archive", lang, "")),
        finished_games = w("finished_games"),
        leaderboard = w("leaderboard"),
        my_games = w("my_games"),
        player_href = esc(&t.href("online-player", lang, "")),
    );
    page(
        t,
        lang,
        &format!("{} – matombo", word(lang, "online")),
        "online-page",
        ("online", ""),
        &main,
        "online/lobby.js",
    )
}

/// The game room of `id` (empty: a malformed address, which the page reports as no such
/// game). Its script asks the server for the room and draws it.
pub fn online_game_html(lang: &str, id: &str) -> String {
    let t = Target::Server;
    let w = ow(lang);
    let main = format!(
        r##"{css}
<div class="play online-room" id="room" data-room="{id}" data-names="{names}">
<div class="board-column">
<div class="status-bar">
<h1 class="play-title" id="title">{online_game} <span class="ruleset" id="ruleset"></span></h1>
<a class="rules-link" id="rules-link" href="{rules_href}" hidden>{rules}</a>
<p id="status" class="status" role="status" aria-live="polite">{connecting}</p>
</div>
<section id="missing" class="missing panel" hidden><h2>{no_such_game}</h2><p>{no_such_game_text}</p><p><a class="button primary" href="{lobby}">{online}</a></p></section>
<form id="claim" class="panel claim inline-form" hidden><label>{your_name} <input id="claim-name" maxlength="40" autocomplete="nickname"></label><button type="submit" class="primary" id="btn-claim">{take_seat}</button></form>
<div id="banner" class="banner" role="alert" hidden></div>
<div class="side-bar north" id="side-north" data-side="north"></div>
<div class="board-scroll" id="board-scroll"><div class="board-host" id="board"></div></div>
<div class="side-bar south" id="side-south" data-side="south"></div>
<div class="decision-bar" id="decision-bar">
<span id="prompt" class="prompt"></span>
<button type="button" id="btn-continue" hidden>{continue_}</button>
<button type="button" id="btn-stop" hidden>{stop}</button>
<button type="button" id="btn-done" hidden>{done}</button>
<button type="button" id="btn-restart" hidden>{restart_turn}</button>
<button type="button" id="btn-live" hidden>{back_to_game}</button>
</div>
<div class="anim-bar">
<label>{speed} <input type="range" id="speed" min="0" max="4" step="1" value="2"></label>
<button type="button" id="btn-skip" disabled>{skip}</button>
<button type="button" id="btn-replay" disabled>{replay_last}</button>
<label class="check"><input type="checkbox" id="labels"> {labels}</label>
</div>
</div>
<aside class="side-panel">
<section class="panel actions" id="actions">
<div class="button-row">
<button type="button" id="btn-resign" hidden>{resign}</button>
<button type="button" id="btn-abort" hidden>{abort}</button>
<button type="button" id="btn-rematch" hidden>{rematch}</button>
</div>
<div id="resign-confirm" class="confirm" role="alertdialog" aria-labelledby="resign-question" hidden><span id="resign-question">{resign_confirm}</span> <button type="button" id="btn-resign-yes" class="primary">{resign_yes}</button> <button type="button" id="btn-resign-no">{keep_playing}</button></div>
<p id="rematch-status" class="tool-message" aria-live="polite"></p>
<p id="error" class="tool-message error" role="alert"></p>
</section>
<section class="panel team" id="team-panel" hidden aria-labelledby="team-title">
<h2 id="team-title">{teams_title}</h2>
<p id="team-mode" class="muted"></p>
<div class="rosters"><div><h3>{south}</h3><ul class="plain roster" id="roster-south"></ul></div><div><h3>{north}</h3><ul class="plain roster" id="roster-north"></ul></div></div>
<div id="team-tools" hidden>
<p id="vote-status" class="vote-status" aria-live="polite" hidden></p>
<div id="proposals-box" hidden><h3>{proposals}</h3><ul class="plain" id="proposals"></ul><p id="no-proposals" class="muted">{no_proposals}</p></div>
<div class="button-row"><button type="button" id="btn-mark" aria-pressed="false">{mark_mode}</button><button type="button" id="btn-mark-clear">{marks_clear}</button></div>
<p class="muted">{marks_help}</p>
</div>
<p id="team-message" class="tool-message" aria-live="polite"></p>
</section>
<section class="panel chat team-chat" id="chat-team" hidden aria-labelledby="chat-team-title">
<h2 id="chat-team-title">{chat_team}</h2>
<ol class="chat-log" id="chat-log-team" aria-live="polite"></ol>
<form class="chat-form inline-form" data-channel="team"><input maxlength="300" autocomplete="off" aria-label="{chat_team_message}"><button type="submit">{send}</button></form>
</section>
<section class="panel moves-panel" aria-labelledby="moves-title">
<h2 id="moves-title">{moves}</h2>
<div class="button-row nav" id="nav"><button type="button" id="nav-first" aria-label="{first}">|&lt;</button><button type="button" id="nav-prev" aria-label="{prev}">&lt;</button><button type="button" id="nav-next" aria-label="{next}">&gt;</button><button type="button" id="nav-last" aria-label="{last}">&gt;|</button></div>
<ol id="moves" class="moves"></ol>
</section>
<section class="panel chat" id="chat-players" hidden aria-labelledby="chat-players-title">
<h2 id="chat-players-title">{chat_players}</h2>
<ol class="chat-log" id="chat-log-players" aria-live="polite"></ol>
<form class="chat-form inline-form" data-channel="players"><input maxlength="300" autocomplete="off" aria-label="{chat_message}"><button type="submit">{send}</button></form>
</section>
<section class="panel chat" id="chat-spectators" hidden aria-labelledby="chat-spectators-title">
<h2 id="chat-spectators-title">{chat_spectators}</h2>
<ol class="chat-log" id="chat-log-spectators" aria-live="polite"></ol>
<form class="chat-form inline-form" data-channel="spectators"><input maxlength="300" autocomplete="off" aria-label="{chat_message}"><button type="submit">{send}</button></form>
</section>
<section class="panel links" aria-labelledby="links-title">
<h2 id="links-title">{links}</h2>
<p id="invite-row" hidden><label class="block">{invite_link} <input id="invite-link" readonly></label></p>
<p id="join-south-row" hidden><label class="block">{join_link_south} <input id="join-south-link" readonly></label></p>
<p id="join-north-row" hidden><label class="block">{join_link_north} <input id="join-north-link" readonly></label></p>
<p id="seat-row" hidden><label class="block">{seat_link} <input id="seat-link" readonly></label></p>
<p><label class="block">{watch_link} <input id="watch-link" readonly></label></p>
<p id="spectators" class="muted"></p>
<p><a id="record" href="#">{download_record}</a> · <a href="{archive}">{finished_games}</a> · <a href="{lobby}">{online}</a></p>
</section>
</aside>
</div>"##,
        css = online_css(t),
        id = esc(id),
        names =
            esc(&serde_json::json!({"tsoro": cat(lang, "tsoro", "name"), "nsolo": cat(lang, "nsolo", "name")})
                .to_string()),
        online_game = w("online_game"),
        rules_href = esc(&t.href("rules-tsoro", lang, "")),
        rules = w("rules"),
        connecting = w("connecting"),
        no_such_game = w("no_such_game"),
        no_such_game_text = w("no_such_game_text"),
        lobby = esc(&t.href("online", lang, "")),
        online = w("online"),
        your_name = w("your_name"),
        take_seat = w("take_seat"),
        continue_ = w("continue"),
        stop = w("stop"),
        done = w("done"),
        restart_turn = w("restart_turn"),
        back_to_game = w("back_to_game"),
        speed = w("speed"),
        skip = w("skip"),
        replay_last = w("replay_last"),
        labels = w("labels"),
        resign = w("resign"),
        abort = w("abort"),
        rematch = w("rematch"),
        resign_confirm = w("resign_confirm"),
        resign_yes = w("resign_yes"),
        keep_playing = w("keep_playing"),
        moves = w("moves"),
        first = w("first_turn"),
        prev = w("previous_turn"),
        next = w("next_turn"),
        last = w("last_turn"),
        chat_players = w("chat_players"),
        chat_spectators = w("chat_spectators"),
        teams_title = w("teams_title"),
        south = w("south"),
        north = w("north"),
        proposals = w("proposals"),
        no_proposals = w("no_proposals"),
        mark_mode = w("mark_mode"),
        marks_clear = w("marks_clear"),
        marks_help = w("marks_help"),
        chat_team = w("chat_team"),
        chat_team_message = w("chat_team_message"),
        join_link_south = w("join_link_south"),
        join_link_north = w("join_link_north"),
        chat_message = w("chat_message"),
        send = w("send"),
        links = w("links"),
        invite_link = w("invite_link"),
        seat_link = w("seat_link"),
        watch_link = w("watch_link"),
        download_record = w("download_record"),
        archive = esc(&t.href("online-archive", lang, "")),
        finished_games = w("finished_games"),
    );
    let here = format!("online-game/{id}");
    page(
        t,
        lang,
        &format!("{} – matombo", word(lang, "online_game")),
        "online-page",
        (&here, ""),
        &main,
        "online/game.js",
    )
}

/// An online page that lists (archive, leaderboard, player): its box `name`, the layout
/// titled by the word `title`, and the page's script under `online/`.
fn online_list(lang: &str, name: &str, title: &str) -> Layout {
    let title = format!("{} – matombo", word(lang, title));
    let script = format!("online/{}.js", name.trim_start_matches("online-"));
    Layout::new(Target::Server, lang, &title, "online-page", (name, ""), &script)
}

#[derive(Template)]
#[template(path = "online/archive.html")]
struct OnlineArchive<'a> {
    l: Layout,
    name: &'a str,
}

#[derive(Template)]
#[template(path = "online/leaderboard.html")]
struct OnlineLeaderboard<'a> {
    l: Layout,
    name: &'a str,
}

#[derive(Template)]
#[template(path = "online/player.html")]
struct OnlinePlayer<'a> {
    l: Layout,
    name: &'a str,
}

/// Finished games, newest first.
pub fn online_archive_html(lang: &str) -> String {
    let name = "online-archive";
    render(&OnlineArchive { l: online_list(lang, name, "finished_games"), name })
}

/// The leaderboard of one rating group (chosen on the page).
pub fn online_leaderboard_html(lang: &str) -> String {
    let name = "online-leaderboard";
    render(&OnlineLeaderboard { l: online_list(lang, name, "leaderboard"), name })
}

/// A player's ratings and games (the visitor's own unless `?id=` names another player).
pub fn online_player_html(lang: &str) -> String {
    let name = "online-player";
    render(&OnlinePlayer { l: online_list(lang, name, "my_games"), name })
}
