//! The page's types against what the Rust side serialises: every kind of
//! core event (and real games' events), and the replies and live updates of
//! a real server, written out as TypeScript values typed with the page's own
//! types (`web/src/events.ts`, `web/src/api.ts`) and checked by the
//! TypeScript compiler. A field the page expects that the server does not
//! send, or one the server sends that the page does not know, fails.
//! Needs node and `web/node_modules` (`cd web && npm ci`, done by ./setup).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Events, get, played, request};
use shakmaty::{Color, File, Piece, Rank, Role, Square};
use tactus_core::{
    Article, Attempt, CastleSide, ChatLine, ClaimKind, Device, EndReason, EngineEval, Event, EventKind, FailedWhy, Fix,
    Irregularity, Lost, MoveInfo, NotNow, NotPlayedReason, OnBoard, Online, OnlineAsk, Pair, Placed, Reason,
    RefusedWhy, Restarted, ServerEnd, Slip, ToControl, TokenState,
};
use tactus_net::{
    AppState, BoardFeed, Hall, HomeAway, LichessBoard, LichessView, Paired, RoundBoard, RoundDesk, RoundError,
    RoundUnpaired, RoundView, SharedHall, Tags, Team, TeamMatch, Title, serve,
};
use tactus_sim::Profile;
use tactus_speech::{Lang, Scribe, Style, Words};
use tactus_trf::Outcome;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

fn web() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web").canonicalize().unwrap()
}

/// The name the JSON gives a kind. A kind added to the core does not
/// compile here until it has a sample below (and a member in events.ts).
fn kind_name(k: &EventKind) -> &'static str {
    match k {
        EventKind::Start { .. } => "start",
        EventKind::Touch { .. } => "touch",
        EventKind::Move { .. } => "move",
        EventKind::Withdrawn { .. } => "withdrawn",
        EventKind::Complete { .. } => "complete",
        EventKind::Irregularity(_) => "irregularity",
        EventKind::Penalty { .. } => "penalty",
        EventKind::GameOver { .. } => "game_over",
        EventKind::Observation { .. } => "observation",
        EventKind::Displaced { .. } => "displaced",
        EventKind::Ambiguous { .. } => "ambiguous",
        EventKind::Claimable { .. } => "claimable",
        EventKind::BoardMismatch { .. } => "board_mismatch",
        EventKind::BoardOk => "board_ok",
        EventKind::SensorFault { .. } => "sensor_fault",
        EventKind::SensorOk { .. } => "sensor_ok",
        EventKind::Paused => "paused",
        EventKind::Resumed => "resumed",
        EventKind::ClockSet { .. } => "clock_set",
        EventKind::Time { .. } => "time",
        EventKind::Position { .. } => "position",
        EventKind::LastMove { .. } => "last_move",
        EventKind::TimeWarning { .. } => "time_warning",
        EventKind::Pieces { .. } => "pieces",
        EventKind::OnRank { .. } => "rank",
        EventKind::OnFile { .. } => "file",
        EventKind::OnSquare { .. } => "square",
        EventKind::MovesToControl { .. } => "moves_to_control",
        EventKind::OpponentMove { .. } => "opponent_move",
        EventKind::OpponentFix { .. } => "opponent_fix",
        EventKind::Hint { .. } => "hint",
        EventKind::EngineLevel { .. } => "engine_level",
        EventKind::TakeBack { .. } => "take_back",
        EventKind::TakeBackAsked { .. } => "take_back_asked",
        EventKind::DrawOffer { .. } => "draw_offer",
        EventKind::DeviceLost { .. } => "device_lost",
        EventKind::DeviceBack { .. } => "device_back",
        EventKind::Online(_) => "online",
        EventKind::Pair(_) => "pair",
        EventKind::Pairing(_) => "pairing",
        EventKind::DrawDeclined { .. } => "draw_declined",
        EventKind::PromotionChoice { .. } => "promotion_choice",
        EventKind::NotNow { .. } => "not_now",
        EventKind::NotUnderstood { .. } => "not_understood",
    }
}

fn mv(full: bool) -> MoveInfo {
    MoveInfo {
        ply: 7,
        side: Color::White,
        san: if full { "exd8=Q#" } else { "Nf3" }.into(),
        uci: if full { "e7d8q" } else { "g1f3" }.into(),
        piece: Piece { color: Color::White, role: if full { Role::Pawn } else { Role::Knight } },
        from: Square::E7,
        to: Square::D8,
        capture: full.then_some(Piece { color: Color::Black, role: Role::Rook }),
        promotion: full.then_some(Role::Queen),
        castle: full.then_some(CastleSide::King),
        en_passant: full,
        check: full,
        mate: full,
    }
}

/// One of every kind, with every optional field present, and again with
/// every optional field absent.
fn every_kind() -> Vec<Event> {
    let fix = |full: bool| Fix {
        piece: full.then_some(Piece { color: Color::White, role: Role::Bishop }),
        from: full.then_some(Square::C1),
        to: Some(Square::F4),
    };
    let placed = Placed { sq: Square::E4, piece: Piece { color: Color::Black, role: Role::Pawn } };
    let mut kinds = Vec::new();
    for full in [true, false] {
        let o = |v: i64| full.then_some(v);
        kinds.extend([
            EventKind::Start {
                fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
                chess960: !full,
                time_control: full.then(|| "5400+30".into()),
                white_ms: o(5_400_000),
                black_ms: o(5_400_000),
            },
            EventKind::Touch { sq: Square::E2, piece: placed.piece, ply: 1, binding: full.then_some(Article::A4_3_1) },
            EventKind::Move { mv: mv(full), correction: full },
            EventKind::Withdrawn { ply: 3, san: "Nf3".into() },
            EventKind::Complete {
                ply: 1,
                side: Color::White,
                san: "e4".into(),
                uci: "e2e4".into(),
                clock_ms: o(5_399_000),
                opponent_ms: o(5_400_000),
            },
            EventKind::Irregularity(Irregularity {
                article: Article::A7_5_1,
                side: Color::Black,
                ply: 4,
                reason: Reason::LeavesKingInCheck,
                stands: full,
                attempt: full.then_some(Attempt { piece: placed.piece, from: Square::E7, to: Square::E5 }),
                touched: full.then_some(placed),
                fix: if full { vec![fix(true), fix(false)] } else { Vec::new() },
            }),
            EventKind::Penalty { article: Article::A7_5_5, side: Color::White, ms: 120_000 },
            EventKind::GameOver {
                result: "1-0".parse().unwrap(),
                reason: EndReason::FlagFall,
                article: Article::A6_9,
                undetermined: full,
            },
            EventKind::GameOver {
                result: "1/2-1/2".parse().unwrap(),
                reason: EndReason::DeadPosition,
                article: Article::A5_2_2,
                undetermined: false,
            },
            EventKind::Observation {
                article: Article::A4_7,
                side: Color::White,
                ply: 9,
                first: "Nf3".into(),
                then: "Ne5".into(),
            },
            EventKind::Displaced { sq: Square::D4, piece: placed.piece, ply: 5 },
            EventKind::Ambiguous { ply: 11, candidates: vec!["Nbd2".into(), "Nfd2".into()], chosen: "Nbd2".into() },
            EventKind::Claimable { claim: ClaimKind::Threefold, article: Article::A9_2, side: Color::Black, ply: 30 },
            EventKind::BoardMismatch { missing: vec![placed], extra: vec![Square::H5], fix: vec![fix(full)] },
            EventKind::BoardOk,
            EventKind::SensorFault { sq: Square::A8, reading: full },
            EventKind::SensorOk { sq: Square::A8 },
            EventKind::Paused,
            EventKind::Resumed,
            EventKind::ClockSet { white_ms: 60_000, black_ms: 90_000 },
            EventKind::Time {
                white_ms: 60_000,
                black_ms: 90_000,
                white_moves: 10,
                black_moves: 9,
                running: full.then_some(Color::Black),
            },
            EventKind::Position { fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(), pending: full.then(|| mv(full)) },
            EventKind::LastMove { mv: mv(full) },
            EventKind::TimeWarning { side: Color::White, remaining_ms: 60_000 },
            EventKind::Pieces {
                side: Color::Black,
                role: full.then_some(Role::Knight),
                pieces: vec![placed],
                board: full.then(|| vec![Square::C3]),
            },
            EventKind::OnRank { rank: Rank::Fourth, pieces: vec![placed] },
            EventKind::OnFile { file: File::E, pieces: if full { vec![placed] } else { Vec::new() } },
            EventKind::OnSquare {
                sq: Square::E4,
                piece: full.then_some(placed.piece),
                board: full.then_some(OnBoard::Piece(placed.piece)),
                pending: full.then(|| mv(false)),
            },
            EventKind::OnSquare { sq: Square::E5, piece: None, board: Some(OnBoard::Unknown), pending: None },
            EventKind::OnSquare {
                sq: Square::E6,
                piece: full.then_some(placed.piece),
                board: Some(OnBoard::Empty),
                pending: None,
            },
            EventKind::MovesToControl {
                white: ToControl { moves: 20, left: full.then_some(20), added_ms: full.then_some(1_800_000) },
                black: ToControl { moves: 19, left: None, added_ms: None },
            },
            EventKind::OpponentMove {
                mv: mv(full),
                steps: vec![fix(true), fix(false)],
                eval: full.then(|| EngineEval { cp: Some(35), mate: None, line: vec!["Nf6".into(), "Nc3".into()] }),
                left: full.then(|| vec![fix(false)]),
                website: full,
            },
            EventKind::OpponentMove {
                mv: mv(full),
                steps: vec![],
                eval: full.then(|| EngineEval { cp: None, mate: Some(-3), line: vec![] }),
                left: None,
                website: false,
            },
            EventKind::Hint { mv: mv(full) },
            EventKind::EngineLevel { level: 3 },
            EventKind::DrawOffer { side: Color::Black, irregular: full },
            EventKind::PromotionChoice { role: Role::Knight },
            EventKind::NotNow { why: if full { NotNow::CarryOutFirst } else { NotNow::GameOver } },
            EventKind::NotNow { why: NotNow::NoOpponent },
            EventKind::NotUnderstood { typed: "z9".into() },
            EventKind::DeviceLost {
                device: Device::Board,
                why: Lost::Io,
                diagnostic: full.then(|| "/dev/rfcomm0: no answer within 2 s".into()),
            },
            EventKind::DeviceBack { device: Device::Clock },
            EventKind::DeviceLost {
                device: Device::Online,
                why: if full { Lost::Connection } else { Lost::Ended },
                diagnostic: Some("the game stream: connection reset".into()),
            },
            EventKind::Online(Online::Playing {
                game: "AbCd1234".into(),
                opponent: "Friend".into(),
                ai_level: full.then_some(3),
                side: Color::Black,
            }),
            EventKind::Online(Online::Challenge {
                id: "XyZ98765".into(),
                player: "Friend".into(),
                incoming: full,
                clock: full.then(|| "30+5".into()),
            }),
            EventKind::Online(Online::ChallengeGone { id: "XyZ98765".into(), declined: full }),
            EventKind::Online(Online::TakebackOffer { open: full }),
            EventKind::Online(Online::TakenBack { ply: 7 }),
            EventKind::Online(Online::TakebackDeclined),
            EventKind::Online(Online::Chat { from: "Magnus".into(), text: "good luck!".into() }),
            EventKind::Online(Online::Refused {
                ply: 9,
                uci: "e2e4".into(),
                san: "e4".into(),
                why: if full { RefusedWhy::Superseded } else { RefusedWhy::Server },
            }),
            EventKind::Online(Online::OpponentGone { gone: true, claim_in_s: full.then_some(0) }),
            EventKind::Online(Online::Ended { status: if full { ServerEnd::NoStart } else { ServerEnd::Other } }),
            EventKind::Online(Online::RateLimited { for_s: 60 }),
            EventKind::Online(Online::NotPlayed {
                game: "QwEr5678".into(),
                reason: if full { NotPlayedReason::NotAPlayer } else { NotPlayedReason::AnotherGame },
            }),
            EventKind::Online(Online::ChatHeld { count: 18 }),
            EventKind::Online(Online::ChatLines {
                lines: if full { vec![ChatLine { from: "Magnus".into(), text: "3: hi".into() }] } else { vec![] },
            }),
            EventKind::Online(Online::Token { state: if full { TokenState::LacksScope } else { TokenState::Refused } }),
            EventKind::Online(Online::Asked { ask: OnlineAsk::TakebackNo, standing: full }),
            EventKind::Online(Online::Failed { why: if full { FailedWhy::Refused } else { FailedWhy::NoGame } }),
            EventKind::Pair(Pair::SameSide { partner: "B".into(), side: Color::White }),
            EventKind::Pair(Pair::TimeControl {
                partner: "B".into(),
                ours: full.then(|| "300+2".into()),
                theirs: full.then(|| "600+5".into()),
            }),
            EventKind::Pair(Pair::TableClock {
                partner: "B".into(),
                ours: full.then_some(tactus_trace::TableClock::Here),
                theirs: full.then_some(tactus_trace::TableClock::Partner),
            }),
            EventKind::Pair(Pair::OtherGame { partner: "B".into() }),
            EventKind::Pair(Pair::Twin { board: "A".into() }),
            EventKind::Pair(Pair::Agreed { partner: "B".into() }),
            EventKind::Pair(Pair::GoesOn {
                to_move: Color::Black,
                carrying: full,
                clocks: full.then_some(Restarted::Run),
            }),
            EventKind::DrawDeclined { side: Color::White },
            EventKind::Pairing(Box::new(tactus_trace::Pairing {
                tournament: full.then(|| "Hall Open 2025".into()),
                round: 3,
                board: 12,
                white: tactus_trace::Player {
                    name: "Kowalczyk, Irina".into(),
                    title: full.then_some(tactus_trace::Title::Wgm),
                    elo: full.then_some(2312),
                    fide_id: full.then_some(1_120_000),
                    federation: full.then(|| "POL".parse().unwrap()),
                },
                black: tactus_trace::Player {
                    name: "Volkov, Dmitri".into(),
                    title: None,
                    elo: None,
                    fide_id: None,
                    federation: None,
                },
            })),
            EventKind::TakeBackAsked { ply: 5 },
            EventKind::TakeBack {
                ply: 5,
                taken: vec!["e5".into(), "Nf3".into()],
                white_ms: o(290_000),
                black_ms: o(295_000),
            },
            EventKind::OpponentFix {
                ply: 8,
                slip: Slip::NotThatOne { sq: Square::B8, piece: placed.piece, instead: full.then_some(fix(true)) },
                fix: vec![fix(full)],
            },
            EventKind::OpponentFix {
                ply: 8,
                slip: Slip::Misplaced {
                    sq: Square::G6,
                    piece: full.then_some(placed.piece),
                    belongs: full.then_some(Square::F6),
                },
                fix: Vec::new(),
            },
            EventKind::OpponentFix { ply: 8, slip: Slip::Missing { sq: Square::F6, piece: placed.piece }, fix: vec![] },
            EventKind::OpponentFix {
                ply: 8,
                slip: Slip::OtherMove { san: "Nc6".into(), uci: "b8c6".into() },
                fix: vec![fix(true)],
            },
            EventKind::OpponentFix { ply: 8, slip: Slip::Halfway { next: fix(true) }, fix: vec![fix(true)] },
        ]);
    }
    kinds.into_iter().enumerate().map(|(i, kind)| Event { t: i as u64 * 1000, kind }).collect()
}

/// Real games' events, through the core: clean, hostile and irregular handling.
fn real_events() -> Vec<Event> {
    let mut out = Vec::new();
    for (seed, profile) in [(81, Profile::Clean), (82, Profile::Hostile), (83, Profile::Irregular)] {
        out.extend(played(seed, 120, seed == 82, profile, Some("300+3")).events);
    }
    out
}

/// Names in order of first appearance: `event: 'name'` in events.ts.
fn ts_kinds(text: &str) -> BTreeSet<String> {
    text.lines().filter_map(|l| l.trim().strip_prefix("event: '")?.split('\'').next().map(str::to_string)).collect()
}

/// The kinds docs/events.md lists: the first column of its tables headed
/// `` | `event` | ``.
fn documented_kinds(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("| `event` |") {
            in_table = true;
            continue;
        }
        if !line.starts_with('|') {
            in_table = false;
        }
        if !in_table || line.starts_with("|---") {
            continue;
        }
        let first = line.split('|').nth(1).unwrap_or("");
        for name in first.split('`').skip(1).step_by(2) {
            out.insert(name.to_string());
        }
    }
    out
}

/// Type-checks a TypeScript file with the page's compiler settings; the
/// compiler's complaints when it fails.
fn typecheck(dir: &Path, body: &str) -> Result<(), String> {
    let src = web().join("src");
    let file = format!(
        "import type {{ CoreEvent }} from '{0}/events';\n\
         import type {{ ArbiterUpdate, BoardData, BoardUpdate, ErrorReply, HallData, LichessData, ResetUpdate, RoundData, SpokenUpdate }} from '{0}/api';\n\
         {body}\n",
        src.display()
    );
    std::fs::write(dir.join("samples.ts"), file).unwrap();
    let config = r#"{"compilerOptions": {"target": "ES2020", "module": "ESNext", "moduleResolution": "Bundler",
        "lib": ["ES2020", "DOM"], "strict": true, "noEmit": true, "skipLibCheck": true, "isolatedModules": true},
        "files": ["samples.ts"]}"#;
    std::fs::write(dir.join("tsconfig.json"), config).unwrap();
    let tsc = web().join("node_modules/typescript/bin/tsc");
    assert!(tsc.exists(), "{} is missing: run `cd web && npm ci` (./setup does)", tsc.display());
    let out = Command::new("node")
        .arg(&tsc)
        .arg("-p")
        .arg(dir.join("tsconfig.json"))
        .output()
        .expect("node runs (apt-get install nodejs; ./setup installs it)");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// `const NAME: TYPE = <json>;`
fn typed(name: &str, ty: &str, json: &serde_json::Value) -> String {
    format!("export const {name}: {ty} = {};\n", serde_json::to_string_pretty(json).unwrap())
}

#[test]
fn every_kind_of_event_is_in_the_page_s_union_and_the_document() {
    let samples = every_kind();
    let rust: BTreeSet<String> = samples.iter().map(|e| kind_name(&e.kind).to_string()).collect();
    let ts = ts_kinds(&std::fs::read_to_string(web().join("src/events.ts")).unwrap());
    let docs_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/events.md");
    let docs = documented_kinds(&std::fs::read_to_string(docs_path).unwrap());
    assert_eq!(rust, ts, "the kinds the core writes and the kinds web/src/events.ts knows");
    assert_eq!(rust, docs, "the kinds the core writes and the kinds docs/events.md lists");

    let dir = tempfile::tempdir().unwrap();
    let mut events: Vec<serde_json::Value> = samples.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    events.extend(real_events().iter().map(|e| serde_json::to_value(e).unwrap()));
    let body = typed("events", "CoreEvent[]", &serde_json::Value::Array(events));
    typecheck(dir.path(), &body).unwrap_or_else(|e| panic!("the core's events against web/src/events.ts:\n{e}"));

    // The check bites: a field the union does not have, a kind it does not
    // know, a required field left out.
    for (bad, says) in [
        (
            r#"[{"t": 0, "event": "complete", "ply": 1, "side": "white", "san": "e4", "uci": "e2e4", "clock": 5}]"#,
            "clock",
        ),
        (r#"[{"t": 0, "event": "resign"}]"#, "resign"),
        (r#"[{"t": 0, "event": "penalty", "article": "12", "side": "white"}]"#, "ms"),
    ] {
        let body = typed("events", "CoreEvent[]", &serde_json::from_str(bad).unwrap());
        let e = typecheck(dir.path(), &body).expect_err(bad);
        assert!(e.contains(says), "{bad}: {e}");
    }
}

fn school() -> TeamMatch {
    TeamMatch {
        name: "Schools cup".into(),
        home: Team { name: "Oakfield".into(), boards: vec!["b1".into(), "b2".into(), "b3".into()] },
        away: Team { name: "Riverside".into(), boards: Vec::new() },
        white_on_odd_boards_for: HomeAway::Home,
    }
}

/// A round as a relay's (`tactus relay --round-trf`, which reads the file)
/// shows it: every field of a board filled on one, none on the other.
struct Round;

impl RoundDesk for Round {
    fn view(&self) -> RoundView {
        let player = |name: &str, full: bool| tactus_trace::Player {
            name: name.into(),
            title: full.then_some(Title::Gm),
            elo: full.then_some(2601),
            fide_id: full.then_some(4_100_018),
            federation: full.then(|| "RUS".parse().unwrap()),
        };
        let board = |number: u32, full: bool| RoundBoard {
            number,
            white: player("Volkov, Dmitri", full),
            black: player("Smith, John", false),
            id: full.then(|| format!("b{number}")),
            problem: (!full).then(|| "the ids of boards b2, x2 all end in 2: give them others".into()),
            shown: full,
            game: full.then_some(Outcome::BlackWins),
            arbiter: full.then_some(Outcome::BlackWinsByForfeit),
            result: full.then_some(Outcome::BlackWinsByForfeit),
        };
        RoundView {
            file: "open.trf".into(),
            round: Some(1),
            tournament: Some("Hall Open 2025".into()),
            layout: Some("TRF-16".into()),
            error: Some("open.trf: line 17, column 48: the name runs past its field".into()),
            boards: vec![board(1, true), board(2, false)],
            unpaired: vec![
                RoundUnpaired { name: "Ivanova, Anna".into(), rank: 5, code: Some("H".into()) },
                RoundUnpaired { name: "Tan, Wei".into(), rank: 10, code: None },
            ],
        }
    }

    fn trf(&self) -> Result<(String, Vec<u8>), RoundError> {
        Err(RoundError::NoRound)
    }

    fn set_result(&self, _: u32, _: Option<Outcome>) -> Result<(), RoundError> {
        Err(RoundError::NoRound)
    }

    fn reload(&self, _: Option<u32>) -> Result<(), RoundError> {
        Err(RoundError::NoRound)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_s_replies_and_updates_are_what_the_page_s_types_say() {
    let hall = SharedHall::new(Hall::new("club").with_matches(vec![school()]));
    let (tx, _controls) = mpsc::channel(8);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // The hall pushed to a Lichess broadcast: a board Lichess refused, one
    // without a number.
    let lichess = LichessView {
        rounds: vec!["AbCd1234=1-100".into()],
        pushes: 12,
        bytes: 34_567,
        last_ok_unix_ms: Some(1_795_471_915_411),
        paused_until_unix_ms: None,
        failing: Some("Lichess answered HTTP 502".into()),
        boards: vec![
            LichessBoard { board: "b1".into(), number: Some(1), round: Some("AbCd1234".into()), error: None },
            LichessBoard {
                board: "x9".into(),
                number: Some(9),
                round: Some("AbCd1234".into()),
                error: Some("no".into()),
            },
            LichessBoard { board: "alpha".into(), number: None, round: None, error: Some("no number".into()) },
        ],
    };
    let state = AppState::new(hall.clone(), tx)
        .with_token("tok")
        .with_lichess(watch::channel(lichess).1)
        .with_round(std::sync::Arc::new(Round));
    tokio::spawn(serve(listener, state, &CancellationToken::new()));
    let mut live = Events::open(addr).await;

    // b1: a finished game with rulings; b2: one going on, with spoken lines
    // and an arbiter's note; b3: never heard from; x9: not in the match.
    let over = played(91, 200, false, Profile::Irregular, Some("300+3"));
    let going = played(92, 30, true, Profile::Hostile, Some("5400+30"));
    for (id, game) in [("b1", &over), ("b2", &going), ("x9", &going)] {
        // Board 2's players have FIDE IDs, a title and ratings.
        let players = Tags {
            white_fide_id: Some(1_503_014),
            white_title: Some(Title::Wim),
            white_elo: Some(2345),
            black_elo: Some(1800),
            // Paired with a board not heard from: shown as its own game.
            pair: Some(Paired { with: "b9".into(), plays: Color::White }),
            ..Tags::from(&game.header)
        };
        hall.set_tags(id, if id == "b2" { players } else { Tags::from(&game.header) });
        // With the board's words, as the daemon sends them.
        let mut scribe = Scribe::new(Words::new(Lang::Pl, Style::Natural));
        for ev in &game.events {
            hall.apply(id, ev, scribe.write(ev).as_deref());
        }
    }
    hall.spoken("b2", 1234, "Knight f3");
    let note = r#"{"side": "black", "claim": "fifty", "accept": false}"#;
    let auth = [("Authorization", "Bearer tok"), ("Content-Type", "application/json")];
    assert_eq!(request(addr, "POST", "/api/game/b2/claim", &auth, note).await.status, 200);
    // A relay's board replaced by a snapshot: a reset.
    let mut snapshot = hall.read(|h| h.feed("x9").cloned()).unwrap();
    snapshot.epoch += 1;
    hall.replace(BoardFeed { seq: 1, ..snapshot });

    let mut updates: Vec<(String, serde_json::Value)> = Vec::new();
    let want = 4; // board, spoken, arbiter, reset
    let mut names = BTreeSet::new();
    while names.len() < want {
        let (name, data) = live.next_within(Duration::from_secs(10)).await;
        names.insert(name.clone());
        updates.push((name, data));
    }
    let of = |n: &str| {
        serde_json::Value::Array(updates.iter().filter(|(name, _)| name == n).map(|(_, d)| d.clone()).collect())
    };
    let reply = |path: &str| {
        let path = path.to_string();
        async move { serde_json::from_str::<serde_json::Value>(&get(addr, &path).await.body).unwrap() }
    };
    let hall_json = reply("/api/hall").await;
    assert_eq!(hall_json["matches"][0]["boards"].as_array().unwrap().len(), 3);
    let mut body = typed("hall", "HallData", &hall_json);
    for id in ["b1", "b2", "b3", "x9"] {
        body.push_str(&typed(&format!("game_{id}"), "BoardData", &reply(&format!("/api/game/{id}")).await));
    }
    body.push_str(&typed("missing", "ErrorReply", &reply("/api/game/nope").await));
    let lichess_json = reply("/api/lichess").await;
    assert_eq!(lichess_json["boards"][2]["number"], serde_json::Value::Null);
    body.push_str(&typed("lichess", "LichessData", &lichess_json));
    let round_json = reply("/api/round").await;
    assert_eq!(round_json["boards"][0]["result"], "-+");
    body.push_str(&typed("round", "RoundData", &round_json));
    body.push_str(&typed("board", "BoardUpdate[]", &of("board")));
    body.push_str(&typed("spoken", "SpokenUpdate[]", &of("spoken")));
    body.push_str(&typed("arbiter", "ArbiterUpdate[]", &of("arbiter")));
    body.push_str(&typed("reset", "ResetUpdate[]", &of("reset")));
    let dir = tempfile::tempdir().unwrap();
    typecheck(dir.path(), &body).unwrap_or_else(|e| panic!("the server's JSON against web/src/api.ts:\n{e}"));

    // The check bites: the field names of the page that once was.
    let old = serde_json::json!({"board_no": 1, "side": "home", "match": "Schools cup"});
    let mut wrong = hall_json.clone();
    wrong["boards"][0]["team"] = old;
    let e = typecheck(dir.path(), &typed("hall", "HallData", &wrong)).unwrap_err();
    assert!(e.contains("board_no"), "{e}");
}

/// The whole page type-checks with its own settings (`npm run typecheck`):
/// a change to the events or the replies that the page's code no longer
/// handles fails here, not only in a browser.
#[test]
fn the_page_type_checks() {
    let tsc = web().join("node_modules/typescript/bin/tsc");
    assert!(tsc.exists(), "{} is missing: run `cd web && npm ci` (./setup does)", tsc.display());
    let out = Command::new("node")
        .arg(&tsc)
        .arg("--noEmit")
        .arg("-p")
        .arg(web().join("tsconfig.json"))
        .output()
        .expect("node runs (apt-get install nodejs; ./setup installs it)");
    assert!(
        out.status.success(),
        "web/src does not type-check:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
