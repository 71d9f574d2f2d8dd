//! A small UCI engine that misbehaves on request, for testing how tactus
//! copes: it plays the first legal move, or crashes, hangs, answers
//! `bestmove (none)` or `0000`, an illegal move, or garbage.
//!
//! ```text
//! tactus-fake-uci [--go MODE] [--startup MODE] [--once FILE] [--ignore-quit]
//!   --go MODE       move (default), crash, hang, none, null, illegal, garbage, flood
//!   --startup MODE  ok (default), crash, hang, garbage
//!   --once FILE     misbehave only while FILE does not exist (it is created
//!                   on misbehaving), so a restarted engine behaves
//!   --ignore-quit   stay after `quit` and after the input closes
//! ```

use std::io::{BufRead, Write};
use std::path::PathBuf;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

struct Args {
    go: String,
    startup: String,
    once: Option<PathBuf>,
    ignore_quit: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { go: "move".into(), startup: "ok".into(), once: None, ignore_quit: false };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--go" => args.go = it.next().ok_or("--go needs a mode")?,
            "--startup" => args.startup = it.next().ok_or("--startup needs a mode")?,
            "--once" => args.once = Some(it.next().ok_or("--once needs a file")?.into()),
            "--ignore-quit" => args.ignore_quit = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// Whether to misbehave now (and remember that it did, with `--once`).
fn misbehave(args: &Args) -> bool {
    match &args.once {
        None => true,
        Some(file) if file.exists() => false,
        Some(file) => std::fs::write(file, b"misbehaved\n").is_ok(),
    }
}

fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

fn garbage(out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(b"\xff\xfe\x00 not utf-8\n")?;
    out.write_all(&vec![b'x'; 100_000])?;
    out.write_all(b"\ninfo depth banana score cp\nbestmove\x07\nid name\noption name\ninfo pv e2e4 e7e5 zz\n")?;
    for i in 0..1000 {
        writeln!(out, "random chatter {i}")?;
    }
    Ok(())
}

fn position(tokens: &[&str], mode: CastlingMode) -> Option<Chess> {
    let (mut pos, rest) = match *tokens.first()? {
        "startpos" => (Chess::default(), &tokens[1..]),
        "fen" => {
            let end = tokens.iter().position(|t| *t == "moves").unwrap_or(tokens.len());
            let fen: Fen = tokens[1..end].join(" ").parse().ok()?;
            (fen.into_position(mode).ok()?, &tokens[end..])
        }
        _ => return None,
    };
    for m in rest.iter().skip(1) {
        let m = m.parse::<UciMove>().ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(m);
    }
    Some(pos)
}

fn main() -> std::io::Result<()> {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tactus-fake-uci: {e}");
            std::process::exit(2);
        }
    };
    eprintln!("tactus-fake-uci starting");
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut pos = Chess::default();
    let mut mode = CastlingMode::Standard;
    for line in stdin.lock().lines() {
        let line = line?;
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.first().copied() {
            Some("uci") => {
                match args.startup.as_str() {
                    "crash" if misbehave(&args) => std::process::exit(3),
                    "hang" if misbehave(&args) => hang(),
                    "garbage" if misbehave(&args) => garbage(&mut out)?,
                    _ => {}
                }
                writeln!(out, "id name tactus fake engine")?;
                writeln!(out, "id author tactus")?;
                writeln!(out, "option name Hash type spin default 16 min 1 max 1024")?;
                writeln!(out, "option name UCI_Chess960 type check default false")?;
                writeln!(out, "uciok")?;
            }
            Some("isready") => writeln!(out, "readyok")?,
            Some("setoption") => {
                if line.contains("UCI_Chess960 value true") {
                    mode = CastlingMode::Chess960;
                } else if line.contains("UCI_Chess960 value false") {
                    mode = CastlingMode::Standard;
                }
            }
            Some("position") => pos = position(&tokens[1..], mode).unwrap_or_default(),
            Some("go") => {
                let first = pos.legal_moves().first().map(|m| UciMove::from_move(*m, mode).to_string());
                let first = first.unwrap_or_else(|| "(none)".into());
                let bad = args.go != "move" && misbehave(&args);
                match args.go.as_str() {
                    "crash" if bad => std::process::exit(3),
                    "hang" if bad => hang(),
                    "none" if bad => writeln!(out, "bestmove (none)")?,
                    "null" if bad => writeln!(out, "bestmove 0000")?,
                    "illegal" if bad => writeln!(out, "bestmove a1a8")?,
                    "garbage" if bad => {
                        garbage(&mut out)?;
                        writeln!(out, "info depth 1 score cp 12 nodes 1 time 0 pv {first}")?;
                        writeln!(out, "bestmove {first}")?;
                    }
                    "flood" if bad => loop {
                        writeln!(out, "info string flooding the pipe with nonsense")?;
                    },
                    _ => {
                        writeln!(out, "info depth 1 score cp 12 nodes 1 time 0 pv {first}")?;
                        writeln!(out, "bestmove {first}")?;
                    }
                }
            }
            Some("quit") if !args.ignore_quit => return Ok(()),
            _ => {}
        }
        out.flush()?;
    }
    if args.ignore_quit {
        hang();
    }
    Ok(())
}
