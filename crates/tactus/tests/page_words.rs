//! The page writes no sentence of its own: every ruling, penalty, result and
//! note it shows is in the words the board's speech wrote, as the server
//! sent them, in each of the four languages. A real server (the one the
//! daemon and the relay run) serves the built page to Debian's Chromium; a
//! game replayed through the core, with a note of every other kind, goes in
//! with the words `tactus_speech::Scribe` writes for it, as the daemon's
//! broadcast does. Read back from the rendered page: the arbiter's alerts as
//! they come live and as they stand on record, and the board's rulings.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use shakmaty::{Color, Piece, Role, Square};
use tactus_core::{ClaimKind, Device, Event, EventKind, Fix, MoveInfo, NotNow, Placed, Policy, Slip, replay};
use tactus_net::{AppState, Hall, SharedHall, Tags, serve};
use tactus_speech::{Lang, Scribe};
use tokio_util::sync::CancellationToken;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A game with an illegal move, its penalty and a second illegal move that
/// ends it (7.5.5), through the core.
fn game() -> (tactus_trace::Header, Vec<Event>) {
    let trace = root().join("tests/traces/irregular/irregular-0005.trace.jsonl");
    let r = replay::replay(BufReader::new(std::fs::File::open(&trace).unwrap()), Policy::default()).unwrap();
    (r.header, r.events)
}

/// One of every other kind, after the first move: the notes the page shows
/// (the board, the engine, devices, draw offers, a sensor, a claim, an
/// observation) and the kinds it shows none for (questions, touches, the
/// clocks), whose words it must not make up either.
fn others(mv: &MoveInfo, t: u64) -> Vec<Event> {
    let p = |c| Piece::from_char(c).unwrap();
    let placed = Placed { sq: Square::E4, piece: p('P') };
    let kinds = vec![
        EventKind::Observation {
            article: tactus_core::Article::A4_7,
            side: mv.side,
            ply: mv.ply,
            first: "e3".into(),
            then: mv.san.clone(),
        },
        EventKind::Claimable {
            claim: ClaimKind::Threefold,
            article: tactus_core::Article::A9_2,
            side: Color::Black,
            ply: 2,
        },
        EventKind::BoardMismatch {
            missing: vec![placed],
            extra: vec![Square::H5],
            fix: vec![Fix { piece: Some(p('Q')), from: Some(Square::H5), to: Some(Square::D1) }],
        },
        EventKind::BoardOk,
        EventKind::Ambiguous { ply: 2, candidates: vec!["Nbd7".into(), "Nfd7".into()], chosen: "Nbd7".into() },
        EventKind::OpponentMove { mv: mv.clone(), steps: vec![], eval: None, left: None, website: false },
        EventKind::OpponentFix { ply: 2, slip: Slip::Missing { sq: Square::G8, piece: p('n') }, fix: vec![] },
        EventKind::DeviceLost { device: Device::Clock, detail: "/dev/rfcomm0: no answer within 2 s".into() },
        EventKind::DeviceBack { device: Device::Clock },
        EventKind::DrawOffer { side: Color::White, irregular: true },
        EventKind::DrawDeclined { side: Color::Black },
        EventKind::SensorFault { sq: Square::D5, reading: true },
        EventKind::SensorOk { sq: Square::D5 },
        EventKind::Touch { sq: Square::G8, piece: p('n'), ply: 2, binding: None },
        EventKind::Displaced { sq: Square::F7, piece: p('p'), ply: 2 },
        EventKind::Pieces { side: Color::White, role: Some(Role::Knight), pieces: vec![], board: None },
        EventKind::OnSquare { sq: Square::E4, piece: Some(p('P')), board: None, pending: None },
        EventKind::LastMove { mv: mv.clone() },
        EventKind::Hint { mv: mv.clone() },
        EventKind::EngineLevel { level: 3 },
        EventKind::PromotionChoice { role: Role::Knight },
        EventKind::NotNow { why: NotNow::EngineThinking },
        EventKind::NotUnderstood { typed: "xyzzy".into() },
    ];
    kinds.into_iter().map(|kind| Event { t, kind }).collect()
}

/// The events in the order the board sends them, the game's and the others.
fn told() -> (tactus_trace::Header, Vec<Event>) {
    let (header, mut events) = game();
    let (at, mv) = events
        .iter()
        .enumerate()
        .find_map(|(i, e)| match &e.kind {
            EventKind::Complete { .. } => Some(i),
            _ => None,
        })
        .and_then(|i| {
            let mv = events[..i].iter().rev().find_map(|e| match &e.kind {
                EventKind::Move { mv, .. } => Some(mv.clone()),
                _ => None,
            })?;
            Some((i + 1, mv))
        })
        .expect("the game has a first move");
    let t = events[at - 1].t;
    events.splice(at..at, others(&mv, t));
    (header, events)
}

/// How the arbiter's view lists an event's words, for the kinds it shows.
fn alert_text(ev: &Event, text: &str) -> String {
    match &ev.kind {
        EventKind::DeviceLost { detail, .. } => format!("{text} ({detail})"),
        _ => text.to_string(),
    }
}

/// A real server of the hall on a thread of its own, serving the built page.
fn serve_hall(hall: SharedHall) -> (u16, CancellationToken) {
    let stop = CancellationToken::new();
    let (tx, rx) = std::sync::mpsc::channel();
    let stopping = stop.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap().port()).unwrap();
            let (controls, _taken) = tokio::sync::mpsc::channel(8);
            let state = AppState::new(hall, controls).with_web_dir(root().join("web/dist"));
            let _ = serve(listener, state, &stopping).await;
        });
    });
    (rx.recv().unwrap(), stop)
}

/// `web/test/read.mjs` on a path; with `live`, what it sends once the page
/// says it is ready, and the alerts to wait for.
fn read(port: u16, path: &str, live: Option<(usize, &mut dyn FnMut())>) -> Value {
    let mut cmd = Command::new("node");
    cmd.arg(root().join("web/test/read.mjs")).arg(format!("http://127.0.0.1:{port}")).arg(path);
    cmd.args(["--timeout-ms", "30000"]);
    if let Some((n, _)) = &live {
        cmd.args(["--await-alerts", &n.to_string()]);
    }
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("node runs (./setup installs it)");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    if let Some((_, send)) = live {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "READY", "read.mjs says when the page is live first");
        send();
    }
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(status.success(), "read.mjs {path}: {rest}\n{err}");
    let page: Value = rest.lines().rev().find_map(|l| serde_json::from_str(l).ok()).expect("a JSON line");
    assert_eq!(page["ok"], true, "{page}");
    assert_eq!(page["errors"], serde_json::json!([]), "no page errors: {page}");
    page
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn texts(list: &Value, field: &str) -> Vec<String> {
    list.as_array().unwrap().iter().map(|a| a[field].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_ruling_and_note_the_page_shows_is_in_the_boards_words_in_each_language() {
    assert!(root().join("web/dist/index.html").exists(), "the page is built by ./setup (npm run build in web/)");
    assert!(Path::new("/usr/bin/chromium").exists(), "Chromium is installed by ./setup (apt-get install chromium)");
    let (header, events) = told();
    let english: Vec<Option<String>> = {
        let mut scribe = Scribe::natural(Lang::En);
        events.iter().map(|e| scribe.write(e)).collect()
    };
    for lang in Lang::ALL {
        let hall = SharedHall::new(Hall::new("club"));
        hall.set_tags("b1", Tags::from(&header));
        let (port, stop) = serve_hall(hall.clone());
        let mut scribe = Scribe::natural(lang);
        let words: Vec<Option<String>> = events.iter().map(|e| scribe.write(e)).collect();
        // What the arbiter's view shows live: an alert for each event with
        // words but the start, each in those words and no others.
        let (start, rest) = events.split_first().unwrap();
        assert!(matches!(start.kind, EventKind::Start { .. }));
        hall.apply("b1", start, words[0].as_deref());
        let live: Vec<String> =
            rest.iter().zip(&words[1..]).filter_map(|(e, w)| w.as_deref().map(|w| alert_text(e, w))).collect();
        let mut send = || {
            for (ev, text) in rest.iter().zip(&words[1..]) {
                hall.apply("b1", ev, text.as_deref());
            }
        };
        let page = read(port, "/arbiter", Some((live.len(), &mut send)));
        let shown = texts(&page["alerts"], "text");
        assert_eq!(sorted(shown.clone()), sorted(live.clone()), "{lang}: the live alerts are the board's words");
        let kinds: std::collections::BTreeSet<String> = texts(&page["alerts"], "kind").into_iter().collect();
        for kind in ["irregularity", "penalty", "claimable", "observation", "game_over", "mismatch", "note"] {
            assert!(kinds.contains(kind), "{lang}: an alert of kind {kind}: {kinds:?}");
        }
        if lang != Lang::En {
            let en: Vec<String> = english.iter().flatten().cloned().collect();
            assert!(shown.iter().all(|s| !en.contains(s)), "{lang}: the page shows English: {shown:?}");
        }

        // On record, when the page opens after the game: the rulings and the
        // result, in the same words.
        let feed = hall.read(|h| h.feed("b1").cloned()).unwrap();
        let mut recorded: Vec<String> = feed.irregularities.iter().filter_map(|t| t.text.clone()).collect();
        assert_eq!(recorded.len(), feed.irregularities.len(), "{lang}: every ruling on record has its words");
        let page = read(port, "/arbiter", None);
        recorded.push(feed.end_text.clone().expect("the result's words"));
        assert_eq!(sorted(texts(&page["alerts"], "text")), sorted(recorded), "{lang}: the alerts on record");
        // The board's page: each ruling under a heading, in the board's words.
        let page = read(port, "/board/b1", None);
        let rulings: Vec<String> = texts(&page["rulings"], "text")
            .into_iter()
            .map(|r| r.split_once(": ").map(|(_, t)| t.to_string()).unwrap_or(r))
            .collect();
        let kept: Vec<String> = feed.irregularities.iter().filter_map(|t| t.text.clone()).collect();
        assert_eq!(rulings, kept, "{lang}: the board's rulings");
        let status = page["status"].as_str().unwrap();
        assert!(status.ends_with(feed.end_text.as_deref().unwrap()), "{lang}: how the game ended: {status}");
        stop.cancel();
    }
}
