//! How tactus copes with an engine that crashes, hangs, answers nonsense or
//! will not leave, with the crate's misbehaving test engine
//! (`tactus-fake-uci`) and a shell script that ignores SIGTERM.

use std::path::{Path, PathBuf};
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};
use tactus_engine::protocol::Go;
use tactus_engine::{
    Ended, Engine, EngineConfig, EngineError, Level, Line, Opponent, OpponentConfig, OpponentError, Source, Timeouts,
};

const FAKE: &str = env!("CARGO_BIN_EXE_tactus-fake-uci");

fn fake(args: &[&str]) -> EngineConfig {
    let mut config = EngineConfig::new(FAKE);
    config.args = args.iter().map(|s| s.to_string()).collect();
    config
}

/// A fake engine misbehaving once, and a marker file that makes the
/// restarted one behave.
fn once(dir: &Path, args: &[&str]) -> EngineConfig {
    let marker: PathBuf = dir.join("misbehaved");
    let mut all: Vec<&str> = args.to_vec();
    let marker = marker.to_str().unwrap().to_owned();
    all.extend(["--times", "1"]);
    let mut config = fake(&all);
    config.args.push(marker);
    config
}

fn after_e4() -> Line {
    let mut line = Line::new(Chess::default());
    line.push_uci("e2e4").unwrap();
    line
}

async fn opponent(config: EngineConfig) -> Opponent {
    let mut o = Opponent::start(OpponentConfig::new(config, Level::MAX)).await.unwrap();
    o.new_game(false).await.unwrap();
    o
}

/// Asks once; the first engine misbehaves, the second answers.
async fn survives(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opponent(once(dir.path(), args)).await;
    let first_pid = o.engine_pid();
    let line = after_e4();
    let choice = o.choose(&line, None).await.unwrap_or_else(|e| panic!("{args:?}: {e}"));
    assert!(line.position().is_legal(choice.mv));
    assert_eq!(choice.restarts, 1, "{args:?}");
    assert_eq!(choice.source, Source::Engine);
    assert!(dir.path().join("misbehaved").exists(), "{args:?}: the fake never misbehaved");
    assert_ne!(o.engine_pid(), first_pid, "{args:?}: a new process answers");
    // The restarted engine goes on with the game.
    let mut line = line;
    line.push(choice.mv).unwrap();
    line.push(line.position().legal_moves()[0]).unwrap();
    assert_eq!(o.choose(&line, None).await.unwrap().restarts, 0);
}

#[tokio::test]
async fn a_crashed_engine_is_restarted_and_asked_again() {
    survives(&["--go", "crash"]).await;
}

#[tokio::test]
async fn a_hung_engine_is_restarted_and_asked_again() {
    survives(&["--go", "hang"]).await;
}

#[tokio::test]
async fn an_engine_flooding_its_output_is_restarted() {
    survives(&["--go", "flood"]).await;
}

#[tokio::test]
async fn bestmove_none_with_legal_moves_is_asked_again() {
    survives(&["--go", "none"]).await;
}

#[tokio::test]
async fn bestmove_0000_with_legal_moves_is_asked_again() {
    survives(&["--go", "null"]).await;
}

#[tokio::test]
async fn an_illegal_bestmove_is_asked_again() {
    survives(&["--go", "illegal"]).await;
}

#[tokio::test]
async fn a_crash_during_the_handshake_is_reported_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let config = once(dir.path(), &["--startup", "crash"]);
    let err = Opponent::start(OpponentConfig::new(config.clone(), Level::MAX)).await.unwrap_err();
    assert!(matches!(err, OpponentError::Engine(EngineError::Exited { .. })), "{err}");
    assert!(err.to_string().contains("tactus-fake-uci"), "{err}");
    // Started again, the engine (now past its one crash) plays.
    let mut o = Opponent::start(OpponentConfig::new(config, Level::MAX)).await.unwrap();
    assert!(o.choose(&after_e4(), None).await.is_ok());
}

#[tokio::test]
async fn garbage_is_ignored_and_memory_stays_bounded() {
    let mut engine = Engine::start(&fake(&["--startup", "garbage", "--go", "garbage"])).await.unwrap();
    assert_eq!(engine.id().name, "tactus fake engine");
    let line = after_e4();
    let search = engine.search(&line, Go { depth: Some(1), ..Go::default() }).await.unwrap();
    assert!(line.position().is_legal(search.best.unwrap()));
    // The 100 000-byte line was dropped, not kept.
    assert_eq!(search.lines.len(), 1);
    assert!(matches!(engine.quit().await.unwrap(), Ended::Quit(_)));
}

#[tokio::test]
async fn an_engine_that_never_recovers_is_given_up_with_the_reason() {
    let mut o = opponent(fake(&["--go", "crash"])).await;
    let err = o.choose(&after_e4(), None).await.unwrap_err();
    let OpponentError::GaveUp { restarts, last } = &err else { panic!("{err}") };
    assert_eq!(*restarts, 2);
    assert!(matches!(last, EngineError::Exited { .. }), "{err}");
    assert!(err.to_string().contains("tactus-fake-uci exited"), "{err}");
}

#[tokio::test]
async fn a_hang_during_the_handshake_times_out() {
    let mut config = fake(&["--startup", "hang"]);
    config.timeouts = Timeouts { handshake: Duration::from_millis(500), ..Timeouts::default() };
    let err = Engine::start(&config).await.unwrap_err();
    assert!(matches!(err, EngineError::Timeout { awaited: "uciok", .. }), "{err}");
    assert!(err.calls_for_restart());
}

#[tokio::test]
async fn no_move_in_a_mated_position_is_no_error() {
    let mut engine = Engine::start(&fake(&[])).await.unwrap();
    let mated: Chess = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let search = engine.search(&Line::new(mated), Go { depth: Some(1), ..Go::default() }).await.unwrap();
    assert_eq!(search.best, None);
}

#[tokio::test]
async fn a_missing_engine_is_named() {
    let err = Engine::start(&EngineConfig::new("/nonexistent/engine")).await.unwrap_err();
    assert!(matches!(err, EngineError::Spawn { .. }));
    assert!(err.to_string().contains("/nonexistent/engine"), "{err}");
}

#[tokio::test]
async fn an_engine_ignoring_quit_gets_sigterm() {
    let engine = Engine::start(&fake(&["--ignore-quit"])).await.unwrap();
    assert!(matches!(engine.quit().await.unwrap(), Ended::Terminated(_)));
}

#[tokio::test]
async fn an_engine_ignoring_sigterm_gets_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("stubborn.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ntrap '' TERM\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name stubborn'; echo uciok;;\n    isready) echo readyok;;\n  esac\ndone\nexec sleep 3600\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = Engine::start(&EngineConfig::new(&script)).await.unwrap();
    assert_eq!(engine.id().name, "stubborn");
    assert!(matches!(engine.quit().await.unwrap(), Ended::Killed(_)));
}

#[tokio::test]
async fn options_with_impossible_values_are_refused_or_brought_into_range() {
    let engine = Engine::start(&fake(&["--startup", "nonsense"])).await.unwrap();
    // Refused: a range upside down, bounds that are no numbers or too big.
    for refused in ["Skill Level", "UCI_Elo", "Huge", "Threads", "Move Overhead", "Nothing"] {
        assert!(engine.option(refused).is_none(), "{refused} is refused");
    }
    // Kept: a default brought into its range, the choices capped.
    let Some(contempt) = engine.option("Contempt") else { panic!("Contempt is kept") };
    let tactus_engine::protocol::OptionKind::Spin(spin) = &contempt.kind else { panic!("{contempt:?}") };
    assert_eq!((spin.min(), spin.default(), spin.max()), (5, 5, 5));
    let Some(many) = engine.option("Many") else { panic!("Many is kept") };
    let tactus_engine::protocol::OptionKind::Combo { choices, .. } = &many.kind else { panic!("{many:?}") };
    assert_eq!(choices.len(), tactus_engine::protocol::MAX_COMBO_CHOICES);
    engine.quit().await.unwrap();
}

/// The engine: `Skill Level` from 20 down to 0. Every level plays,
/// from the start and after a change mid-game.
#[tokio::test]
async fn an_option_with_min_above_max_plays_at_every_level() {
    let said = "option name Skill Level type spin default 10 min 20 max 0";
    for level in 0..=10 {
        let config = OpponentConfig::new(fake(&["--say", said]), Level::new(level).unwrap());
        let mut o = Opponent::start(config).await.unwrap_or_else(|e| panic!("level {level}: {e}"));
        o.new_game(false).await.unwrap();
        let line = after_e4();
        let choice = o.choose(&line, None).await.unwrap_or_else(|e| panic!("level {level}: {e}"));
        assert!(line.position().is_legal(choice.mv));
        o.set_level(Level::new(10 - level).unwrap());
        assert!(o.choose(&line, None).await.is_ok(), "level {} after {level}", 10 - level);
        let _ = o.quit().await;
    }
}

#[tokio::test]
async fn nonsense_options_and_nonsense_answers_play_at_every_level() {
    let mut o = opponent(fake(&["--startup", "nonsense", "--go", "garbage"])).await;
    let mut line = after_e4();
    for level in 0..=10 {
        o.set_level(Level::new(level).unwrap());
        let choice = o.choose(&line, None).await.unwrap_or_else(|e| panic!("level {level}: {e}"));
        line.push(choice.mv).unwrap();
        line.push(line.position().legal_moves()[0]).unwrap();
    }
}

#[tokio::test]
async fn an_engine_silent_after_go_is_stopped_killed_and_replaced() {
    survives(&["--go", "silent"]).await;
}
