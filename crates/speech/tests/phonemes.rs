//! Heard as meant: every word of every style — files, ranks, pieces (each
//! case, the plurals), castlings — the phrases that put file letters in
//! context, and every text of the native review (`tests/review/`), in every
//! language, run through espeak-ng exactly as tactus
//! sends it (`spoken`, the language's voice, UTF-8 on standard input), and
//! the phonemes checked: against the committed `tests/phonemes/LANG.tsv`
//! (reviewed by ear and by eye: what changed and why is in the report), and
//! against what the Laws mean for the words the issue names.
//!
//! Needs the Debian package espeak-ng (1.51, as Debian bookworm and
//! Raspberry Pi OS ship it) and fails without it.
//! `UPDATE_PHONEMES=1 cargo test -p tactus-speech --test phonemes` writes the
//! files anew; review the diff.

mod play;
mod review_cases;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use shakmaty::File;
use tactus_core::{Event, EventKind};
use tactus_speech::{Lang, Style, Words, spoken};

/// The phonemes espeak-ng makes of `text` in `lang`'s voice, clauses joined
/// by " | ".
fn phonemes(lang: Lang, text: &str) -> String {
    let mut child = Command::new("espeak-ng")
        .args(["-v", lang.code(), "-b", "1", "-q", "-x", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run espeak-ng ({e}): install the Debian package espeak-ng"));
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "espeak-ng -v {lang} failed on {text:?}: {}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8(out.stdout).unwrap();
    let clauses: Vec<&str> = said.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    clauses.join(" | ")
}

/// What is checked in one style: every word, and phrases with the file
/// letters and ranks in context (a capture on each file, a square on each
/// rank, a file readout, a rook move naming its file).
fn items(words: &Words) -> Vec<String> {
    let mut out = words.vocabulary();
    let files: Vec<char> = File::ALL.iter().map(|f| f.char()).collect();
    for (i, f) in files.iter().enumerate() {
        let g = files[if i == 7 { 6 } else { i + 1 }];
        out.push(words.san(&format!("{f}x{g}5")));
        out.push(words.san(&format!("R{f}{}{}", if *f == 'e' { 'd' } else { 'e' }, 1)));
        out.push(words.san(&format!("Q{f}{}", i + 1)));
        let file = EventKind::OnFile { file: File::ALL[i], pieces: vec![] };
        out.push(words.say(&Event { t: 0, kind: file }).unwrap());
    }
    out
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/phonemes")
}

/// `style<TAB>written<TAB>sent<TAB>phonemes`, one line per item.
fn table(lang: Lang) -> String {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut lines = Vec::new();
    let cases = review_cases::cases();
    for style in Style::ALL {
        let words = Words::new(lang, style);
        let reviewed = cases.iter().map(|case| review_cases::heard(case, lang, style));
        for written in items(&words).into_iter().chain(reviewed) {
            let sent = spoken(lang, &written);
            let said = seen.entry(sent.clone()).or_insert_with(|| phonemes(lang, &sent)).clone();
            lines.push(format!("{style}\t{written}\t{sent}\t{said}"));
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn every_word_is_heard_as_the_committed_phonemes() {
    let update = std::env::var_os("UPDATE_PHONEMES").is_some();
    let mut failures = Vec::new();
    // A language a thread: a thousand runs of espeak-ng.
    let tables: Vec<(Lang, String)> = std::thread::scope(|s| {
        let running: Vec<_> = Lang::ALL.map(|lang| s.spawn(move || (lang, table(lang)))).into();
        running.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (lang, got) in tables {
        let path = dir().join(format!("{lang}.tsv"));
        if update {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_PHONEMES=1 to create it)", path.display()));
        for (n, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            if g != w {
                failures.push(format!("{}:{}\n  want: {w}\n  got:  {g}", path.display(), n + 1));
            }
        }
        if got.lines().count() != want.lines().count() {
            failures.push(format!("{}: {} lines, want {}", path.display(), got.lines().count(), want.lines().count()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The phonemes of a word or phrase as tactus sends it.
fn heard(lang: Lang, written: &str) -> String {
    phonemes(lang, &spoken(lang, written))
}

#[test]
fn the_issue_s_words_are_heard_as_the_laws_mean_them() {
    // English voice, Annex D: "zwei" is one syllable, not spelled out;
    // "Eva" is "Ay-va", not "eye-va"; "Lange" has no j-sound.
    assert_eq!(heard(Lang::En, "zwei"), "tsv'aI");
    assert_eq!(heard(Lang::En, "Eva"), "'eIva");
    // No r joins the names of a square: "Anna eins", not "Anna-r-eins".
    assert!(!heard(Lang::En, "Dame Anna eins").contains("r-"));
    assert_eq!(heard(Lang::En, "Lange"), "l'aN@");
    assert!(heard(Lang::En, "Cesar").starts_with("ts"), "Cesar with ts, as Cäsar");
    assert!(heard(Lang::En, "Springer").starts_with("Spr"), "Springer with sh");
    assert!(heard(Lang::En, "acht").contains('x'), "acht with the ach-sound");
    // The file letter "a" is the letter, the article stays the article.
    let rook = heard(Lang::En, &Words::new(Lang::En, Style::Natural).san("Rab1"));
    assert_eq!(rook, "r'Uk 'eI b'i: w'0n");
    assert!(heard(Lang::En, "a takes b5").starts_with("'eI "));
    assert!(heard(Lang::En, "rook a b eight").contains(" 'eI "));
    assert!(heard(Lang::En, "White may claim a draw").contains(" a# "), "the article");

    // German voice: Cesar is Zäsar, not Kesar; Rochade with sh, stressed
    // on its second syllable, not with the ach-sound; umlauts written and
    // read as umlauts.
    assert!(heard(Lang::De, "Cesar").starts_with("ts'E:"));
    for castle in ["Kurze Rochade", "Lange Rochade", "kurze Rochade"] {
        let said = heard(Lang::De, castle);
        assert!(said.contains("rOS'A:d@") && !said.contains('x'), "{castle}: {said}");
    }
    let de = Words::new(Lang::De, Style::AnnexD).vocabulary();
    for word in ["fünf", "König", "Läufer", "Türme"] {
        assert!(de.iter().any(|w| w == word), "German Annex D writes {word} with its umlaut");
    }
    assert_eq!(heard(Lang::De, "fünf"), "f'ynf");
    assert_eq!(heard(Lang::De, "König"), "k'Y:nIC");
    assert_eq!(heard(Lang::De, "Läufer"), "l'OYf3");
    // The ASCII spellings are what a German voice misreads.
    assert_ne!(phonemes(Lang::De, "fuenf"), "f'ynf");
    assert_eq!(heard(Lang::De, "David"), "d'A:vIt");

    // Russian voice: the declined Annex D names keep the stress of the
    // nominative (шпрИнгера, лОйфера), not the ending's.
    assert!(heard(Lang::Ru, "шпрингера").contains(";'ing"), "{}", heard(Lang::Ru, "шпрингера"));
    assert!(heard(Lang::Ru, "лойфера").starts_with("l'oj"));
    assert!(heard(Lang::Ru, "бауэра").starts_with("b'Au"));
    assert_ne!(phonemes(Lang::Ru, "шпрингера"), heard(Lang::Ru, "шпрингера"), "the voice alone stresses the ending");

    // Polish voice: "sieben" with z, not ź; "zwei" as cwaj.
    assert_eq!(heard(Lang::Pl, "sieben"), "z'ibEn");
    assert_eq!(heard(Lang::Pl, "zwei"), "tsf'aj");
}

#[test]
fn plain_words_the_voices_stress_wrongly() {
    // ферзЕй, ладЕй: stressed on the ending.
    assert!(heard(Lang::Ru, "ферзей").ends_with("z;'ej"));
    assert!(heard(Lang::Ru, "ладей").ends_with("d;'ej"));
    assert_eq!(heard(Lang::De, "Hotel"), "ho:t'El");
    assert_eq!(heard(Lang::De, "Engine"), "'EndZIn", "the English word, as German players say it");
    assert_eq!(heard(Lang::De, "Charlie"), "tS'arli:");
    assert_eq!(heard(Lang::Pl, "Charlie"), "tS'aRli");
}
