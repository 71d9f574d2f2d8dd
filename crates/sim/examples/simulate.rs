//! Writes the trace of a random game to standard output and what an arbiter
//! must rule to standard error:
//!
//!     cargo run -p tactus-sim --example simulate -- hostile 42 [chess960]

use std::io::{self, Write};

use tactus_sim::{Profile, random_game, simulate};
use tactus_trace::TraceWriter;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let profile: Profile = args.next().as_deref().unwrap_or("realistic").parse()?;
    let seed: u64 = args.next().as_deref().unwrap_or("1").parse()?;
    let chess960 = args.next().as_deref() == Some("chess960");

    let spec = random_game(seed, 200, chess960);
    let (trace, expect) = simulate(&spec, profile, seed);
    let mut out = TraceWriter::new(io::BufWriter::new(io::stdout().lock()));
    out.write_header(&spec.header())?;
    for entry in &trace {
        out.write_entry(entry)?;
    }
    out.into_inner().flush()?;
    eprintln!("moves: {}", expect.moves_san.join(" "));
    for irr in &expect.irregularities {
        eprintln!("irregularity: ply {} {} {:?}", irr.ply, irr.article, irr.side);
    }
    eprintln!("result: {}", expect.result.as_deref().unwrap_or("*"));
    Ok(())
}
