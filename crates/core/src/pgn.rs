//! The game record in PGN: the header's tags, SAN, a `[%clk h:mm:ss]`
//! comment after every move when there is a clock, rulings as comments, and
//! the result.

use std::fmt::Write as _;

use shakmaty::{Color, Position};
use tactus_trace::Header;

use crate::event::EndReason;
use crate::game::Game;

/// `h:mm:ss`, rounded down (what a clock face shows); never negative.
pub fn clock_text(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn tag(out: &mut String, name: &str, value: &str) {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    let _ = writeln!(out, "[{name} \"{escaped}\"]");
}

/// Writes one game. `round_date_site` fall back to PGN's unknown markers.
pub fn write(header: &Header, game: &Game) -> String {
    let mut out = String::new();
    let result = game.ending.map_or("*", |e| e.result.as_str());
    let or_unknown = |v: &Option<String>, unknown: &'static str| v.clone().unwrap_or_else(|| unknown.to_string());
    tag(&mut out, "Event", &or_unknown(&header.event, "?"));
    tag(&mut out, "Site", &or_unknown(&header.site, "?"));
    tag(&mut out, "Date", &or_unknown(&header.date, "????.??.??"));
    tag(&mut out, "Round", &or_unknown(&header.round, "?"));
    tag(&mut out, "White", &or_unknown(&header.white, "?"));
    tag(&mut out, "Black", &or_unknown(&header.black, "?"));
    tag(&mut out, "Result", result);
    if game.mode == shakmaty::CastlingMode::Chess960 {
        tag(&mut out, "Variant", "Chess960");
    }
    if !game.standard_start() || game.mode == shakmaty::CastlingMode::Chess960 {
        tag(&mut out, "SetUp", "1");
        tag(&mut out, "FEN", &game.start_fen());
    }
    if let Some(tc) = &header.time_control {
        tag(&mut out, "TimeControl", tc);
    }
    if let Some(ending) = game.ending {
        let termination = match ending.reason {
            EndReason::FlagFall => "time forfeit",
            EndReason::IllegalMoves => "rules infraction",
            _ => "normal",
        };
        tag(&mut out, "Termination", termination);
    }
    tag(&mut out, "PlyCount", &game.played.len().to_string());
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let start = game.start();
    let mut number = start.fullmoves().get();
    let mut turn = start.turn();
    let mut need_number = true;
    let mut stood = false;
    for played in &game.played {
        if played.stood_illegal && !stood {
            // An illegal move that stood (A.5.2) has no SAN, and what follows
            // cannot be replayed from the start: the rest goes in a comment.
            stood = true;
            tokens.push(format!(
                "{{{} {}: an illegal move that stood (A.5.2); the game went on:",
                number_text(number, turn),
                played.info.san
            ));
        } else if turn == Color::White || need_number {
            tokens.push(number_text(number, turn));
        }
        if !stood || !played.stood_illegal {
            tokens.push(played.info.san.clone());
        }
        let mut comment = Vec::new();
        if let Some(ms) = played.clock_ms {
            comment.push(format!("[%clk {}]", clock_text(ms)));
        }
        comment.extend(played.comments.iter().map(|c| c.replace(['{', '}'], "")));
        if !comment.is_empty() {
            if stood {
                tokens.push(format!("({})", comment.join(" ")));
            } else {
                tokens.push(format!("{{{}}}", comment.join(" ")));
            }
        }
        need_number = !comment.is_empty() && !stood;
        if turn == Color::Black {
            number += 1;
        }
        turn = !turn;
    }
    if stood {
        tokens.push("}".to_string());
    }
    tokens.push(result.to_string());
    wrap(&mut out, &tokens);
    out
}

fn number_text(number: u32, turn: Color) -> String {
    match turn {
        Color::White => format!("{number}."),
        Color::Black => format!("{number}..."),
    }
}

/// Export format: lines of at most 79 characters.
fn wrap(out: &mut String, tokens: &[String]) {
    let mut line = String::new();
    for token in tokens {
        for word in token.split(' ') {
            if !line.is_empty() && line.len() + 1 + word.len() > 79 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push_str("\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_text_rounds_down() {
        assert_eq!(clock_text(5_403_968), "1:30:03");
        assert_eq!(clock_text(59_999), "0:00:59");
        assert_eq!(clock_text(-5), "0:00:00");
    }
}
