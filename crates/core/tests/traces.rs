//! End to end: every trace fixture in `tests/traces/` replays to exactly the
//! game, rulings, clocks and result its `.expect.json` records.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

mod common;

use common::Data;
use serde_json::Value;
use tactus_core::serde_chess::color_str;
use tactus_core::{EventKind, Policy, pgn, replay};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces");
    let mut found = Vec::new();
    for dir in std::fs::read_dir(&root).expect("tests/traces exists") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.to_string_lossy().ends_with(".trace.jsonl") {
                found.push(f);
            }
        }
    }
    found.sort();
    found
}

type Ruling = (String, String, u64);

fn check(trace: &Path) -> Result<(), String> {
    let expect_path = PathBuf::from(trace.to_string_lossy().replace(".trace.jsonl", ".expect.json"));
    let expect: Value = serde_json::from_reader(File::open(&expect_path).unwrap()).unwrap();
    let r = replay::replay(BufReader::new(File::open(trace).unwrap()), Policy::default()).map_err(|e| e.to_string())?;
    if let Some(e) = r.error {
        return Err(format!("trace error: {e}"));
    }
    let got: Vec<&str> = r.session.game().played.iter().map(|p| p.info.san.as_str()).collect();
    let want: Vec<&str> = expect["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    if got != want {
        let i = got.iter().zip(&want).take_while(|(a, b)| a == b).count();
        return Err(format!("moves differ at ply {}: want {:?} got {:?}", i + 1, want.get(i), got.get(i)));
    }
    let mut rulings: Vec<Ruling> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Irregularity(i) => {
                Some((i.article.as_str().to_string(), color_str(i.side).to_string(), u64::from(i.ply)))
            }
            _ => None,
        })
        .collect();
    let mut wanted: Vec<Ruling> = expect["irregularities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let article = x["article"].as_str().unwrap().to_string();
            (article, x["side"].as_str().unwrap().to_string(), x["ply"].as_u64().unwrap())
        })
        .collect();
    rulings.sort();
    wanted.sort();
    if rulings != wanted {
        return Err(format!("rulings: want {wanted:?} got {rulings:?}"));
    }
    let penalty_ms = expect["penalty_ms"].as_i64().unwrap();
    let game_over_ply = expect.get("game_over_ply").and_then(Value::as_u64);
    let mut penalties: Vec<(String, i64)> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Penalty { article, side, ms } if article.as_str() == "7.5.5" => {
                Some((color_str(*side).to_string(), *ms))
            }
            _ => None,
        })
        .collect();
    let mut penalties_wanted: Vec<(String, i64)> = wanted
        .iter()
        .filter(|(a, _, ply)| (a == "7.5.1" || a == "7.5.3") && Some(*ply) != game_over_ply)
        .map(|(_, side, _)| ((if side == "white" { "black" } else { "white" }).to_string(), penalty_ms))
        .collect();
    penalties.sort();
    penalties_wanted.sort();
    if penalties != penalties_wanted {
        return Err(format!("penalties: want {penalties_wanted:?} got {penalties:?}"));
    }
    for c in expect["clocks"].as_array().unwrap() {
        let ply = c["ply"].as_u64().unwrap() as u32;
        let ms = c["ms"].as_i64().unwrap();
        let got = r.events.iter().find_map(|e| match &e.kind {
            EventKind::Complete { ply: p, clock_ms, .. } if *p == ply => *clock_ms,
            _ => None,
        });
        if got != Some(ms) {
            return Err(format!("clock after ply {ply}: want {ms} got {got:?}"));
        }
    }
    let result = r.session.game().ending.map_or("*", |e| e.result.as_str());
    if result != expect["result"].as_str().unwrap() {
        return Err(format!("result: want {} got {result}", expect["result"]));
    }
    let text = pgn::write(&r.header, r.session.game(), &Data);
    if !text.contains(&format!("[Result \"{result}\"]")) {
        return Err("the PGN lacks the result".into());
    }
    // Every ruling and every penalty is in the record, at its ply.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for e in &r.events {
        let note = match &e.kind {
            EventKind::Irregularity(i) => pgn::Note::Ruling(i.clone()).text(&Data),
            EventKind::Penalty { article, side, ms } => {
                pgn::Note::Penalty { article: *article, side: *side, ms: *ms }.text(&Data)
            }
            _ => continue,
        };
        let note = note.split_whitespace().collect::<Vec<_>>().join(" ");
        if !flat.contains(&note) {
            return Err(format!("the PGN lacks the ruling {note:?}"));
        }
    }
    Ok(())
}

#[test]
fn every_fixture_replays_exactly() {
    let traces = fixtures();
    assert!(traces.len() >= 40, "fixtures missing: found {}", traces.len());
    let failures: Vec<String> =
        traces.iter().filter_map(|t| check(t).err().map(|e| format!("{}: {e}", t.display()))).collect();
    assert!(failures.is_empty(), "{} of {} traces failed:\n{}", failures.len(), traces.len(), failures.join("\n"));
}
