//! Every relative link and image in README.md and docs/*.md leads somewhere: the file
//! exists, and a `#anchor` names a heading of the target (GitHub's heading slugs). Web
//! addresses are not fetched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `-`
/// and `_` kept), spaces turned into `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A Markdown file's anchors (repeated headings get `-1`, `-2`, … as on GitHub) and its
/// link and image destinations.
struct Doc {
    anchors: Vec<String>,
    links: Vec<String>,
}

fn parse(text: &str) -> Doc {
    let mut anchors = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for event in Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                anchors.push(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => {
                links.push(dest_url.to_string());
            }
            _ => {}
        }
    }
    Doc { anchors, links }
}

fn is_external(link: &str) -> bool {
    link.starts_with("//") || link.split_once(':').is_some_and(|(scheme, _)| !scheme.contains('/'))
}

/// The broken links of the Markdown file `file`, each with the reason.
fn broken_links(file: &Path, docs: &mut HashMap<PathBuf, Doc>) -> Vec<String> {
    let doc = load(file, docs).expect("a checked file exists");
    let links = doc.links.clone();
    let mut broken = Vec::new();
    for link in links.iter().filter(|l| !is_external(l)) {
        let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
        let target = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().expect("a file has a directory").join(path)
        };
        if !target.exists() {
            broken.push(format!("{link}: no file {}", target.display()));
            continue;
        }
        if anchor.is_empty() {
            continue;
        }
        if target.extension().is_none_or(|e| e != "md") {
            broken.push(format!("{link}: an anchor into a file that is not Markdown"));
            continue;
        }
        let anchors = &load(&target, docs).expect("exists").anchors;
        if !anchors.iter().any(|a| a == anchor) {
            broken.push(format!("{link}: no heading #{anchor} in {}", target.display()));
        }
    }
    broken
}

fn load<'a>(file: &Path, docs: &'a mut HashMap<PathBuf, Doc>) -> Option<&'a Doc> {
    if !docs.contains_key(file) {
        let text = std::fs::read_to_string(file).ok()?;
        docs.insert(file.to_path_buf(), parse(&text));
    }
    docs.get(file)
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_resolves() {
    let root = root();
    let mut files = vec![root.join("README.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    assert!(files.len() >= 5, "README.md and the docs are found: {files:?}");
    let mut docs = HashMap::new();
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        checked += load(file, &mut docs).expect("readable").links.iter().filter(|l| !is_external(l)).count();
        for b in broken_links(file, &mut docs) {
            broken.push(format!("{}: {b}", file.strip_prefix(&root).unwrap_or(file).display()));
        }
    }
    assert!(checked >= 20, "only {checked} relative links found: is the parser reading links?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("Set up"), "set-up");
    assert_eq!(slug("6. Notation"), "6-notation");
    assert_eq!(slug("The transposition table's size"), "the-transposition-tables-size");
    assert_eq!(slug("POST /api/record/export"), "post-apirecordexport");
    assert_eq!(slug("Why hard has a cap"), "why-hard-has-a-cap");
    assert_eq!(slug("§2.5 E1 — endless sowing"), "25-e1--endless-sowing");
    assert_eq!(slug("Die Länge"), "die-länge");
}

#[test]
fn headings_links_and_repeats_are_read_from_markdown() {
    let doc = parse(
        "# Title\n\n## `POST /api/game`\n\nSee [x](other.md#a-b) and ![img](img/p.png).\n\n\
         | a | b |\n|---|---|\n| [t](t.md) | |\n\n## Title\n\n```text\n[not a link](nowhere.md)\n```\n",
    );
    assert_eq!(doc.anchors, ["title", "post-apigame", "title-1"]);
    assert_eq!(doc.links, ["other.md#a-b", "img/p.png", "t.md"]);
}

#[test]
fn broken_files_and_anchors_are_reported() {
    let dir = std::env::temp_dir().join(format!("matombo-docs-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("b.md"), "# B\n\n## Part two\n").expect("write");
    std::fs::write(
        dir.join("a.md"),
        "# A\n\n[ok](b.md#part-two) [ok](#a) [ok](https://example.com/x.md) [ok](b.md)\n\
         [missing file](c.md) [missing anchor](b.md#part-three) [missing here](#nothing)\n",
    )
    .expect("write");
    let mut docs = HashMap::new();
    let broken = broken_links(&dir.join("a.md"), &mut docs);
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].starts_with("c.md: no file"), "{}", broken[0]);
    assert!(broken[1].starts_with("b.md#part-three: no heading #part-three"), "{}", broken[1]);
    assert!(broken[2].starts_with("#nothing: no heading #nothing"), "{}", broken[2]);
}
