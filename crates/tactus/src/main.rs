//! `tactus`: the sensor chessboard daemon and its tools.

mod atomic_file;
mod bench;
mod calibrate;
mod config;
mod daemon;
mod demo;
mod doctor;
mod log;
mod notify;
mod relay;
mod replay_cmd;
mod round;
mod say;
mod signals;
mod sink;
mod speech_bench;
mod terminal;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "tactus", version, about = "A sensor chessboard as arbiter, voice and broadcast station")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the daemon: scan the board, keep the game, speak, journal every edge.
    Run(Box<daemon::Args>),
    /// Check GPIO, I²C, the sound card, espeak-ng, the clock and permissions, and say how to fix each.
    Doctor(doctor::Args),
    /// Map the matrix's wires to squares, one piece at a time, into the config.
    Calibrate(calibrate::Args),
    /// Follow a hall's boards on its MQTT broker and serve them together, with the arbiter's view.
    Relay(Box<relay::Args>),
    /// Replay a sensor trace: the game record (PGN) and the arbiter's events.
    Replay(replay_cmd::Args),
    /// Speak a phrase, a move or an event, for trying languages, styles and voices.
    Say(say::Args),
    /// Play a real recorded game through the core at real speed (no hardware needed).
    Demo(demo::Args),
    /// Measure replay throughput and move-recognition latency.
    Bench(bench::Args),
}

/// Exit status when the board is missing (sysexits' EX_UNAVAILABLE):
/// a service manager may try again later; other errors exit with 2.
const NO_BOARD: u8 = 69;

/// The error and its causes on one line, each said once (a cause whose
/// words the error already contains is not repeated).
fn describe(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// Output cut short by its reader (`tactus replay … | head`) is not an error.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    log::init();
    let result = match cli.command {
        Command::Run(args) => daemon::run(*args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Relay(args) => relay::run(*args),
        Command::Doctor(args) => doctor::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Say(args) => say::run(args),
        Command::Bench(args) => bench::run(args),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{}", describe(&e));
            if e.downcast_ref::<daemon::NoBoard>().is_some() { ExitCode::from(NO_BOARD) } else { ExitCode::from(2) }
        }
    };
    // The daemon's last lines, unless nobody reads them.
    terminal::flush(std::time::Instant::now() + LAST_LINES);
    code
}

/// How long the daemon's last lines may take to be read, after its shutdown
/// (within the 2 s SIGTERM is given).
const LAST_LINES: std::time::Duration = std::time::Duration::from_millis(300);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_says_each_cause_once() {
        let inner = anyhow::anyhow!("line 1: trace format version 2 is not supported");
        let e = inner.context("g.trace.jsonl: line 1: trace format version 2 is not supported");
        assert_eq!(describe(&e), "g.trace.jsonl: line 1: trace format version 2 is not supported");
        let e = anyhow::anyhow!("No such file or directory").context("cannot open x");
        assert_eq!(describe(&e), "cannot open x: No such file or directory");
    }
}
