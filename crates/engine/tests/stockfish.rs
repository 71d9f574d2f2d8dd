//! Against the real Stockfish of Debian (`apt-get install stockfish`).
//! Every test fails, loudly, when it is missing.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use tactus_engine::protocol::{ClockTimes, Command, Go, OptionKind, Score};
use tactus_engine::{
    Ended, Engine, EngineConfig, EngineError, Level, Line, Opponent, OpponentConfig, Source, conduct::Stance,
};

const STOCKFISH: &str = "/usr/games/stockfish";

fn stockfish() -> EngineConfig {
    assert!(
        std::path::Path::new(STOCKFISH).exists(),
        "{STOCKFISH} is missing: these tests need Debian's stockfish package (apt-get install stockfish; ./setup installs it)"
    );
    EngineConfig::new(STOCKFISH)
}

fn line(fen: &str) -> Line {
    Line::from_fen(fen, CastlingMode::Standard).unwrap()
}

async fn opponent(level: u8) -> Opponent {
    let mut o = Opponent::start(OpponentConfig::new(stockfish(), Level::new(level).unwrap())).await.unwrap();
    o.new_game(false).await.unwrap();
    o
}

#[tokio::test]
async fn handshake_and_options() {
    let mut engine = Engine::start(&stockfish()).await.unwrap();
    assert!(engine.id().name.starts_with("Stockfish"), "{:?}", engine.id());
    for name in ["Skill Level", "UCI_Elo", "UCI_LimitStrength", "MultiPV", "UCI_Chess960", "SyzygyPath", "Hash"] {
        assert!(engine.option(name).is_some(), "Stockfish offers {name}");
    }
    assert!(matches!(engine.option("skill level").unwrap().kind, OptionKind::Spin(s) if (s.min(), s.max()) == (0, 20)));
    engine.set_option("Hash", "32").await.unwrap();
    engine.set_option("Clear Hash", "").await.unwrap();
    let err = engine.set_option("Skill Level", "21").await.unwrap_err();
    assert!(matches!(err, EngineError::BadOption { .. }), "{err}");
    assert!(err.to_string().contains("Skill Level") && err.to_string().contains("0 to 20"), "{err}");
    let err = engine.set_option("Contempt", "0").await.unwrap_err();
    assert!(matches!(err, EngineError::UnknownOption { .. }), "{err}");
    engine.sync().await.unwrap();
    assert!(matches!(engine.quit().await.unwrap(), Ended::Quit(status) if status.success()));
}

#[tokio::test]
async fn configured_options_that_stockfish_lacks_are_refused_at_start() {
    let mut config = stockfish();
    config.options.push(("Threads".into(), "1".into()));
    assert!(Engine::start(&config).await.is_ok());
    config.options.push(("Ponderous".into(), "true".into()));
    let err = Engine::start(&config).await.unwrap_err();
    assert!(err.to_string().contains("Ponderous"), "{err}");
}

#[tokio::test]
async fn finds_mate_in_one_and_reports_it() {
    let mut engine = Engine::start(&stockfish()).await.unwrap();
    // Scholar's mate: Qxf7#.
    let l = line("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
    let search = engine.search(&l, Go { depth: Some(6), ..Go::default() }).await.unwrap();
    let best = search.best.unwrap();
    assert_eq!(best.to_uci(CastlingMode::Standard).to_string(), "f3f7");
    assert_eq!(search.score(), Some(Score::Mate(1)));
    assert!(search.depth.is_some() && search.nodes.is_some());
}

#[tokio::test]
async fn a_mated_position_gives_no_move_and_no_error() {
    let mut engine = Engine::start(&stockfish()).await.unwrap();
    let l = line("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let search = engine.search(&l, Go { depth: Some(5), ..Go::default() }).await.unwrap();
    assert_eq!(search.best, None);
}

#[tokio::test]
async fn clock_times_and_multipv() {
    let mut engine = Engine::start(&stockfish()).await.unwrap();
    engine.set_option("MultiPV", "3").await.unwrap();
    let mut l = Line::new(Chess::default());
    l.push_uci("d2d4").unwrap();
    let clock = ClockTimes { white_ms: 60_000, black_ms: 1_500, white_inc_ms: 0, black_inc_ms: 100, moves_to_go: None };
    let search = engine.search(&l, Go { clock: Some(clock), ..Go::default() }).await.unwrap();
    assert!(l.position().is_legal(search.best.unwrap()));
    assert_eq!(search.lines.iter().map(|pv| pv.multipv).collect::<Vec<_>>(), vec![1, 2, 3]);
    // Best first.
    assert!(search.lines[0].score.to_cp() >= search.lines[2].score.to_cp());
}

#[tokio::test]
async fn a_search_abandoned_midway_is_stopped_before_the_next() {
    let mut engine = Engine::start(&stockfish()).await.unwrap();
    let l = Line::new(Chess::default());
    let long = Go { movetime_ms: Some(60_000), ..Go::default() };
    // Dropped while Stockfish thinks for a minute.
    assert!(tokio::time::timeout(Duration::from_millis(200), engine.search(&l, long)).await.is_err());
    let search = engine.search(&l, Go { depth: Some(3), ..Go::default() }).await.unwrap();
    assert!(l.position().is_legal(search.best.unwrap()));
    assert!(search.elapsed < Duration::from_secs(60));
}

/// Stockfish's own FEN (`d`) after our `position` command, as a position.
fn stockfish_position(commands: &[String], mode: CastlingMode) -> Chess {
    let mut child = Process::new(stockfish().program).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for c in commands {
        writeln!(stdin, "{c}").unwrap();
    }
    writeln!(stdin, "d\nquit").unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let fen = out.lines().map_while(Result::ok).find_map(|l| l.strip_prefix("Fen: ").map(str::to_owned)).unwrap();
    child.wait().unwrap();
    fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
}

fn same(a: &Chess, b: &Chess) -> bool {
    a.to_setup(EnPassantMode::Legal) == b.to_setup(EnPassantMode::Legal)
}

#[test]
fn stockfish_reads_our_position_commands_as_we_mean_them() {
    // Castling, en passant and promotion.
    let mut l = Line::new(Chess::default());
    for m in ["e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7d6", "g1f3", "f8e7", "f1c4", "e8g8", "e1g1", "a7a5"] {
        l.push_uci(m).unwrap();
    }
    let sf = stockfish_position(&[Command::position(&l).to_string()], CastlingMode::Standard);
    assert!(same(&sf, l.position()), "{}", Fen::from_position(&sf, EnPassantMode::Legal));

    let mut promo = line("8/4P1k1/8/8/8/8/1p4K1/8 w - - 0 1");
    for m in ["e7e8q", "b2b1n"] {
        promo.push_uci(m).unwrap();
    }
    let sf = stockfish_position(&[Command::position(&promo).to_string()], CastlingMode::Standard);
    assert!(same(&sf, promo.position()));
}

/// The first Chess960 game of the corpus (Maverick–Stockfish,
/// cutechess-cli), up to a few moves after White's queen-side castling.
fn chess960_game() -> Line {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/chess960-cutechess.pgn");
    let pgn = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let game = pgn.split("[Event ").nth(1).unwrap();
    let fen = game.lines().find_map(|l| l.strip_prefix("[FEN \"")).unwrap().trim_end_matches("\"]");
    let mut line = Line::from_fen(fen, CastlingMode::Chess960).unwrap();
    let movetext: String =
        game.lines().filter(|l| !l.starts_with('[') && !l.ends_with(']')).collect::<Vec<_>>().join(" ");
    let mut depth = 0;
    let cleaned: String = movetext
        .chars()
        .filter(|c| {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect();
    for token in cleaned.split_whitespace().filter(|t| !t.ends_with('.')).take(46) {
        let san: San = token.parse().unwrap();
        let m = san.to_move(line.position()).unwrap();
        line.push(m).unwrap();
    }
    line
}

#[test]
fn stockfish_reads_chess960_castling_king_takes_rook() {
    let l = chess960_game();
    assert_eq!(l.moves().iter().filter(|m| m.is_castle()).count(), 2, "the game castles on both sides");
    let command = Command::position(&l).to_string();
    assert!(command.contains(" e1d1"), "O-O-O is king takes rook: {command}");
    let sf = stockfish_position(&["setoption name UCI_Chess960 value true".into(), command], CastlingMode::Chess960);
    assert!(same(&sf, l.position()), "{}", Fen::from_position(&sf, EnPassantMode::Legal));
}

#[tokio::test]
async fn plays_chess960_after_castling() {
    let mut o = opponent(10).await;
    o.new_game(true).await.unwrap();
    let l = chess960_game();
    let choice =
        o.choose(&l, Some(ClockTimes { white_ms: 2000, black_ms: 2000, ..ClockTimes::default() })).await.unwrap();
    assert!(l.position().is_legal(choice.mv));
    assert_eq!(choice.restarts, 0);
}

#[tokio::test]
async fn a_killed_stockfish_is_restarted_and_the_move_still_comes() {
    let mut o = opponent(10).await;
    let pid = o.engine_pid().unwrap();
    let mut l = Line::new(Chess::default());
    l.push_uci("e2e4").unwrap();
    let kill = async {
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
    };
    let (choice, ()) = tokio::join!(o.choose(&l, None), kill);
    let choice = choice.unwrap();
    assert!(l.position().is_legal(choice.mv));
    assert_eq!(choice.restarts, 1);
    assert_ne!(o.engine_pid(), Some(pid));
}

#[tokio::test]
async fn the_weakest_level_picks_among_lines_and_at_random() {
    let mut o = opponent(0).await;
    let mut l = Line::new(Chess::default());
    let mut sources = Vec::new();
    for _ in 0..40 {
        if l.position().is_game_over() {
            break;
        }
        let choice = o.choose(&l, None).await.unwrap();
        assert!(l.position().is_legal(choice.mv));
        assert_eq!(choice.stance, Stance::Play, "level 0 never resigns nor offers draws");
        sources.push(choice.source);
        l.push(choice.mv).unwrap();
    }
    assert!(sources.contains(&Source::Random), "{sources:?}");
    assert!(sources.iter().any(|s| matches!(s, Source::Line(_))), "{sources:?}");
    assert!(sources.contains(&Source::Engine), "{sources:?}");
}

#[tokio::test]
async fn a_hint_is_at_full_strength_whatever_the_level() {
    let mut o = opponent(0).await;
    let l = line("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
    for _ in 0..3 {
        let hint = o.hint(&l, Duration::from_millis(300)).await.unwrap();
        assert_eq!(hint.san, "Qxf7#");
        assert_eq!(hint.score, Some(Score::Mate(1)));
    }
    // The level is back for the engine's own moves.
    let choice = o.choose(&l, None).await.unwrap();
    assert!(l.position().is_legal(choice.mv));
}

#[tokio::test]
async fn a_strong_level_resigns_a_hopeless_position() {
    let mut o = opponent(10).await;
    // The engine (Black) has a bare king against king and queen.
    let mut l = line("4k3/8/8/8/8/8/3QK3/8 b - - 0 1");
    let mut stance = Stance::Play;
    for _ in 0..6 {
        let choice = o.choose(&l, None).await.unwrap();
        stance = choice.stance;
        if stance == Stance::Resign {
            break;
        }
        l.push(choice.mv).unwrap();
        // White keeps the queen: a king move.
        let reply = l
            .position()
            .legal_moves()
            .into_iter()
            .find(|m| m.role() == shakmaty::Role::King)
            .or_else(|| l.position().legal_moves().first().copied())
            .unwrap();
        l.push(reply).unwrap();
    }
    assert_eq!(stance, Stance::Resign);
}

#[tokio::test]
async fn every_level_plays_legal_moves_within_its_limits() {
    let mut o = opponent(0).await;
    let mut l = Line::new(Chess::default());
    l.push_uci("e2e4").unwrap();
    for n in 0..=10 {
        o.set_level(Level::new(n).unwrap());
        let clock =
            ClockTimes { white_ms: 300_000, black_ms: 300_000, white_inc_ms: 0, black_inc_ms: 0, moves_to_go: None };
        let choice = o.choose(&l, Some(clock)).await.unwrap();
        assert!(l.position().is_legal(choice.mv), "level {n}");
        assert_eq!(choice.restarts, 0, "level {n}");
    }
}

#[tokio::test]
async fn syzygy_path_is_handed_to_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = OpponentConfig::new(stockfish(), Level::MAX);
    config.syzygy = Some(dir.path().to_owned());
    let mut o = Opponent::start(config).await.unwrap();
    let l = line("8/8/8/4k3/8/8/3QK3/8 w - - 0 1");
    assert!(o.choose(&l, None).await.is_ok());
}
