//! An engine that misbehaves, through the daemon on the simulated board:
//! options no engine should offer, a crash or a silence that outlasts the
//! engine's quick restarts. The game never stalls, and the player hears
//! once that the engine stopped and once that it is back. The engine is
//! the engine crate's `tactus-fake-uci`, started by a script that gives it
//! the misbehaviour.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};

use serde_json::Value;

mod common;
use common::moves::carried_out;
use common::{EventStream, fake_engine, shell_script, tactus_run, tempdir};

/// The daemon playing White's opponent with the fake engine run with
/// `args`; its log goes to `log.txt` in `state`.
struct Game {
    child: Child,
    stdin: ChildStdin,
    events: EventStream,
    state: PathBuf,
}

impl Game {
    fn start(state: &Path, args: &[&str], engine: &str) -> Game {
        let script = state.join("engine.sh");
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        shell_script(&script, &format!("exec '{}' {}", fake_engine().display(), quoted.join(" ")));
        let config = state.join("tactus.toml");
        std::fs::write(
            &config,
            format!(
                "[game]\ntime_control = \"-\"\n\n[engine]\npath = \"{}\"\nplays = \"black\"\n{engine}\n",
                script.display()
            ),
        )
        .unwrap();
        let mut child = tactus_run(&config, state)
            .args(["--board", "sim"])
            .stdin(Stdio::piped())
            .stderr(std::fs::File::create(state.join("log.txt")).unwrap())
            .spawn()
            .unwrap();
        let events = EventStream::of(&mut child);
        let stdin = child.stdin.take().unwrap();
        events.next("start");
        Game { child, stdin, events, state: state.to_owned() }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// White plays `from`-`to` and presses the clock; the engine's answer.
    fn white_plays(&mut self, from: &str, to: &str) -> Value {
        self.type_line(&format!("{from}- {to}+"));
        self.type_line("w");
        self.events.next("complete");
        self.events.next("opponent_move")
    }

    /// Carries out the engine's move from its steps.
    fn carry_out(&mut self, chosen: &Value) {
        self.type_line(&carried_out(chosen));
        assert_eq!(self.events.next("complete")["uci"], chosen["uci"]);
    }

    /// Ends the game (the board's input closes); the daemon's log.
    fn end(self) -> (Vec<Value>, String) {
        let Game { mut child, stdin, events, state } = self;
        drop(stdin);
        assert!(child.wait().unwrap().success(), "the daemon ends cleanly");
        let log = std::fs::read_to_string(state.join("log.txt")).unwrap();
        (events.seen.take(), log)
    }
}

fn of_engine<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind && e["device"] == "engine").collect()
}

const MIN_ABOVE_MAX: &str = "option name Skill Level type spin default 10 min 20 max 0";

#[test]
fn an_option_with_min_above_max_is_refused_at_start() {
    let state = tempdir("min-max-start");
    let mut game = Game::start(&state, &["--say", MIN_ABOVE_MAX], "level = 5");
    let chosen = game.white_plays("e2", "e4");
    assert_eq!(chosen["side"], "black");
    let (_, log) = game.end();
    assert!(
        log.lines().any(|l| l.contains("engine.sh") && l.contains("Skill Level") && l.contains("min 20")),
        "the log names the engine and the option it refused:\n{log}"
    );
}

#[test]
fn an_option_with_min_above_max_is_refused_when_the_level_changes() {
    let state = tempdir("min-max-level");
    let mut game = Game::start(&state, &["--say", MIN_ABOVE_MAX], "level = 10");
    let chosen = game.white_plays("e2", "e4");
    game.carry_out(&chosen);
    game.type_line("level 5");
    assert_eq!(game.events.next("engine_level")["level"], 5);
    let chosen = game.white_plays("d2", "d4");
    assert_eq!(chosen["side"], "black", "the engine still moves after level 5");
    game.end();
}

/// White's first move meets an engine that fails `times` times (more than
/// its quick restarts) with `mode`: the engine is asked again on a timer of
/// its own, with no other input, and moves; the player hears once that it
/// stopped (and `why`, as a code) and once that it is back. The processes
/// that failed are gone.
fn asked_again_on_its_own(name: &str, mode: &str, why: &str) {
    let state = tempdir(name);
    let failed = state.join("failed");
    let failed_arg = failed.to_str().unwrap();
    let mut game = Game::start(&state, &["--go", mode, "--times", "3", failed_arg], "level = 10\nthink_ms = 50");
    game.type_line("e2- e4+");
    game.type_line("w");
    let lost = game.events.next("device_lost");
    assert_eq!(lost["device"], "engine", "{lost}");
    assert_eq!(lost["why"], why, "{lost}");
    // The program's own report is a diagnostic; the sentence is the speech's.
    assert!(lost["diagnostic"].as_str().unwrap().contains("engine.sh"), "the engine is named: {lost}");
    let detail = lost["detail"].as_str().unwrap();
    assert!(detail.starts_with("The engine has stopped") && !detail.contains("engine.sh"), "{lost}");
    assert_eq!(game.events.next("device_back")["device"], "engine");
    let chosen = game.events.next("opponent_move");
    assert_eq!(chosen["side"], "black");
    // It goes on with the game.
    game.carry_out(&chosen);
    game.white_plays("d2", "d4");
    let (events, _) = game.end();
    assert_eq!(of_engine(&events, "device_lost").len(), 1, "the stop is said once");
    assert_eq!(of_engine(&events, "device_back").len(), 1, "the return is said once");
    let pids: Vec<String> = std::fs::read_to_string(&failed).unwrap().lines().map(str::to_owned).collect();
    assert_eq!(pids.len(), 3, "three engines failed: {pids:?}");
    for pid in pids {
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "the failed engine {pid} was ended");
    }
}

#[test]
fn a_crashed_engine_is_asked_again_on_its_own() {
    asked_again_on_its_own("crash", "crash", "exited");
}

#[test]
fn an_engine_that_never_answers_go_is_killed_and_asked_again() {
    asked_again_on_its_own("silent", "silent", "no_answer");
}
