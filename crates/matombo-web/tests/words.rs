//! The page words (assets/content/ui.json): every language has every word, and every word
//! a page script asks for exists, so that no player sees "undefined".

use std::collections::BTreeSet;
use std::path::Path;

fn assets() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets"))
}

fn words() -> serde_json::Map<String, serde_json::Value> {
    let text = std::fs::read_to_string(assets().join("content/ui.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn every_language_has_every_word() {
    let all = words();
    let en: BTreeSet<&String> = all["en"].as_object().unwrap().keys().collect();
    for lang in ["fi", "da", "bn"] {
        let words = all[lang].as_object().unwrap_or_else(|| panic!("no {lang}"));
        let keys: BTreeSet<&String> = words.keys().collect();
        assert_eq!(keys, en, "{lang} words differ from English");
        for (k, v) in words {
            assert!(v.as_str().is_some_and(|s| !s.trim().is_empty()), "{lang}.{k} is empty");
        }
    }
}

#[test]
fn every_word_a_script_uses_exists() {
    let all = words();
    let en = all["en"].as_object().unwrap();
    let mut used = 0;
    let scripts = ["js", "online"].into_iter().flat_map(|d| std::fs::read_dir(assets().join(d)).unwrap());
    for entry in scripts {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices("words.") {
            // `words.name` where the character before is not part of another identifier.
            if i > 0 && text.as_bytes()[i - 1].is_ascii_alphanumeric() {
                continue;
            }
            let name: String = text[i + 6..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name.is_empty() {
                continue;
            }
            used += 1;
            assert!(en.contains_key(&name), "{} uses words.{name}, which ui.json lacks", path.display());
        }
    }
    assert!(used > 20, "the scripts use the words ({used} uses found)");
}
