//! Golden transcripts: a whole game in every language and style, checked
//! line by line. `UPDATE_GOLDEN=1 cargo test -p tactus-speech --test golden`
//! writes them anew; review the diff as a native reader would.

mod common;

use std::path::PathBuf;

use tactus_speech::{Announcer, Lang, SpeechPolicy, Style, Words};

/// Every segment, each chunk a line; a segment heard by a player is marked.
fn transcript(lang: Lang, style: Style) -> String {
    let mut lines = Vec::new();
    for segment in common::segments() {
        let words = Words::new(lang, style).with_readout(segment.readout);
        let policy = SpeechPolicy { listener: segment.listener, ..SpeechPolicy::everything() };
        let mut announcer = Announcer::new(words, policy);
        lines.push(format!("# {}", segment.name));
        for ev in &segment.events {
            lines.extend(announcer.hear_chunks(ev).iter().map(|u| u.transcript_line()));
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn transcripts_match_the_golden_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for lang in Lang::ALL {
        for style in Style::ALL {
            let path = dir.join(format!("{lang}-{style}.txt"));
            let got = transcript(lang, style);
            if update {
                std::fs::write(&path, &got).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", path.display()));
            for (n, (g, w)) in got.lines().zip(want.lines()).enumerate() {
                if g != w {
                    failures.push(format!("{}:{}\n  want: {w}\n  got:  {g}", path.display(), n + 1));
                }
            }
            if got.lines().count() != want.lines().count() {
                failures.push(format!(
                    "{}: {} lines, want {}",
                    path.display(),
                    got.lines().count(),
                    want.lines().count()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
