//! A small UCI engine that misbehaves on request, for testing how tactus
//! copes: it plays the first legal move, or crashes, hangs, falls silent,
//! answers `bestmove (none)` or `0000`, an illegal move, or garbage, floods
//! its output, or offers options no engine should.
//!
//! ```text
//! tactus-fake-uci [--go MODE] [--startup MODE] [--say LINE]… [--times N FILE] [--ignore-quit]
//!   --go MODE       move (default), crash, hang, silent, none, null, illegal, garbage, flood
//!                   (silent: answers `isready` but never `go`, nor `stop`)
//!   --startup MODE  ok (default), crash, hang, garbage, nonsense
//!                   (nonsense: options with every kind of impossible value)
//!   --say LINE      write LINE among the options, before `uciok` (repeatable)
//!   --times N FILE  misbehave only N times, counted in FILE (one line, the
//!                   process id, each time) so restarted engines share the
//!                   count and a test knows which processes misbehaved
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
    say: Vec<String>,
    times: Option<(usize, PathBuf)>,
    ignore_quit: bool,
}

/// Arguments the fake engine does not take.
#[derive(Debug, thiserror::Error)]
enum BadArgs {
    #[error("{flag} needs {what}")]
    Missing { flag: &'static str, what: &'static str },
    #[error("unknown argument {0}")]
    Unknown(String),
}

fn parse_args() -> Result<Args, BadArgs> {
    let mut args = Args { go: "move".into(), startup: "ok".into(), say: Vec::new(), times: None, ignore_quit: false };
    let mut it = std::env::args().skip(1);
    let missing = |flag, what| BadArgs::Missing { flag, what };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--go" => args.go = it.next().ok_or(missing("--go", "a mode"))?,
            "--startup" => args.startup = it.next().ok_or(missing("--startup", "a mode"))?,
            "--say" => args.say.push(it.next().ok_or(missing("--say", "a line"))?),
            "--times" => {
                let n = it.next().and_then(|n| n.parse().ok()).ok_or(missing("--times", "a count"))?;
                args.times = Some((n, it.next().ok_or(missing("--times", "a file"))?.into()));
            }
            "--ignore-quit" => args.ignore_quit = true,
            other => return Err(BadArgs::Unknown(other.to_owned())),
        }
    }
    Ok(args)
}

/// Whether to misbehave now (and count it, with `--times`).
fn misbehave(args: &Args) -> bool {
    let Some((n, file)) = &args.times else { return true };
    let done = std::fs::read_to_string(file).map(|s| s.lines().count()).unwrap_or(0);
    if done >= *n {
        return false;
    }
    let mut log = std::fs::OpenOptions::new().create(true).append(true).open(file);
    log.as_mut().is_ok_and(|f| writeln!(f, "{}", std::process::id()).is_ok())
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
    // Numbers at and beyond every bound a field could have.
    out.write_all(b"info depth 99999999999 seldepth -1 multipv 4294967295 score cp -2147483648 nodes -5 time 18446744073709551616 pv e2e4\n")?;
    out.write_all(b"info score mate -2147483648 lowerbound upperbound string\ninfo multipv 0 depth 0 score mate 0 pv 0000\ninfo string\n")?;
    for i in 0..1000 {
        writeln!(out, "random chatter {i}")?;
    }
    Ok(())
}

/// Options with every kind of impossible value, each line as an engine
/// might write it.
fn nonsense(out: &mut impl Write) -> std::io::Result<()> {
    for line in [
        "option name Skill Level type spin default 10 min 20 max 0",
        "option name UCI_Elo type spin default 99999 min 3000 max 1000",
        "option name UCI_LimitStrength type check default maybe",
        "option name MultiPV type spin default -3 min -9223372036854775808 max 9223372036854775807",
        "option name Huge type spin default 16 min 1 max 99999999999999999999999",
        "option name Threads type spin default one min zero max many",
        "option name Contempt type spin min 5 max 5 default -100000",
        "option name Move Overhead type spin",
        "option name Style type combo default Nowhere",
        "option type spin default 1 min 0 max 2",
        "option name type type type spin default min max var",
        "option name Nothing type colour default red",
    ] {
        writeln!(out, "{line}")?;
    }
    let vars: String = (0..1500).map(|i| format!(" var v{i}")).collect();
    writeln!(out, "option name Many type combo default v0{vars}")?;
    writeln!(out, "option name Long type string default {}", "y".repeat(20_000))?;
    out.write_all(b"option name Bytes\xff\xfe type spin default 1 min 0 max \xff\n")?;
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
                    "nonsense" if misbehave(&args) => nonsense(&mut out)?,
                    _ => {}
                }
                writeln!(out, "id name tactus fake engine")?;
                writeln!(out, "id author tactus")?;
                writeln!(out, "option name Hash type spin default 16 min 1 max 1024")?;
                writeln!(out, "option name UCI_Chess960 type check default false")?;
                for said in &args.say {
                    writeln!(out, "{said}")?;
                }
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
                    "silent" if bad => {}
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
