//! The native review, as data: `tests/review/LANG.txt` holds, for every
//! kind of engine move, fix, question and ruling, what a blind player who
//! plays White against the engine hears, in every style, with a note on
//! its grammar (the case of each piece name, the verb's mood) that a native
//! reader wrote. This test plays each case through the core and the
//! announcer and compares what is said with the reviewed text; the texts'
//! phonemes are checked in `tests/phonemes.rs`.
//!
//! `UPDATE_REVIEW=1 cargo test -p tactus-speech --test review` writes the
//! texts anew and keeps the notes; a new case gets the note `?`, which
//! fails until a reviewer writes one. Review the diff as a native reader.

mod play;
mod review_cases;

use std::collections::BTreeMap;
use std::path::PathBuf;

use tactus_speech::{Lang, Style};

use review_cases::{Reviewed, cases, heard};

fn path(lang: Lang) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/review/{lang}.txt"))
}

/// The reviewed cases of a file: name → (note, style → text).
fn read(lang: Lang) -> BTreeMap<String, Reviewed> {
    let text = std::fs::read_to_string(path(lang))
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_REVIEW=1 writes it)", path(lang).display()));
    review_cases::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path(lang).display()))
}

#[test]
fn every_case_is_said_as_reviewed() {
    let update = std::env::var_os("UPDATE_REVIEW").is_some();
    let cases = cases();
    let mut failures = Vec::new();
    for lang in Lang::ALL {
        let reviewed = if path(lang).exists() { read(lang) } else { BTreeMap::new() };
        let mut out = Vec::new();
        for case in &cases {
            let note = reviewed.get(case.name).map_or("?", |r| r.note.as_str());
            let mut texts = Vec::new();
            for style in Style::ALL {
                let said = heard(case, lang, style);
                match reviewed.get(case.name).and_then(|r| r.texts.get(style.name())) {
                    Some(want) if *want == said => {}
                    want if !update => failures.push(format!(
                        "{lang} {}, {style}\n  reviewed: {}\n  said:     {said}",
                        case.name,
                        want.map_or("(none)", String::as_str)
                    )),
                    _ => {}
                }
                texts.push((style.name().to_owned(), said));
            }
            if note == "?" && !update {
                failures.push(format!("{lang} {}: no review note", case.name));
            }
            out.push(Reviewed::render(case.name, note, &texts));
        }
        if update {
            std::fs::create_dir_all(path(lang).parent().unwrap()).unwrap();
            std::fs::write(path(lang), review_cases::HEADING.to_owned() + &out.join("\n")).unwrap();
        } else {
            for name in reviewed.keys() {
                if !cases.iter().any(|c| c.name == name) {
                    failures.push(format!("{lang} {name}: reviewed, but no such case is played"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
