//! `tactus`: the sensor chessboard daemon and its tools.

mod bench;
mod calibrate;
mod config;
mod daemon;
mod demo;
mod doctor;
mod journal;
mod notify;
mod relay;
mod replay_cmd;
mod say;
mod voice;

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
    Relay(relay::Args),
    /// Replay a sensor trace: the game record (PGN) and the arbiter's events.
    Replay(replay_cmd::Args),
    /// Speak a phrase, a move or an event, for trying languages, styles and voices.
    Say(say::Args),
    /// Play a real recorded game through the core at real speed (no hardware needed).
    Demo(demo::Args),
    /// Measure replay throughput and move-recognition latency.
    Bench(bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => daemon::run(*args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Relay(args) => relay::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Say(args) => say::run(args),
        Command::Bench(args) => bench::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tactus: {e:#}");
            ExitCode::from(2)
        }
    }
}
