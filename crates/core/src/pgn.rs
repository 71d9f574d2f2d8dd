//! The game record in PGN: the header's tags, SAN, a `[%clk h:mm:ss]`
//! comment after every move when there is a clock, rulings as comments, and
//! the result. One writer for the replay, the daemon and the broadcast feed.

use std::fmt::Write as _;

use shakmaty::{Color, Position};
use tactus_trace::Header;

use crate::event::{Article, EndReason, Irregularity};
use crate::game::Game;
use crate::serde_chess::color_str;

/// `h:mm:ss`, rounded down (what a clock face shows); never negative.
pub fn clock_text(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A ruling as the record keeps it: `7.5.1 white: illegal move …`.
pub fn ruling_note(i: &Irregularity) -> String {
    format!("{} {}: {}", i.article.as_str(), color_str(i.side), i.detail)
}

/// Time added to a clock as the record keeps it: `7.5.5 black +1:00`.
pub fn penalty_note(article: Article, beneficiary: Color, ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{} {} +{}:{:02}", article.as_str(), color_str(beneficiary), s / 60, s % 60)
}

/// Why a game ended on who can still mate, as the record keeps it:
/// `6.9 white's flag fell, but black cannot checkmate by any series of
/// legal moves: draw`. `loser` is the side whose flag fell or who made the
/// second illegal move; `None` for a dead position (5.2.2).
pub fn mate_note(article: Article, loser: Option<Color>, result_draw: bool, undetermined: bool) -> String {
    let why = match loser {
        None => "dead position: neither side can checkmate by any series of legal moves".to_string(),
        Some(loser) => {
            let what = if article == Article::A6_9 { "'s flag fell" } else { "'s second illegal move" };
            let (l, o) = (color_str(loser), color_str(!loser));
            if result_draw {
                format!("{l}{what}, but {o} cannot checkmate by any series of legal moves: draw")
            } else if undetermined {
                format!(
                    "{l}{what}; whether {o} can checkmate was not settled within the search's limit: the loss stands"
                )
            } else {
                format!("{l}{what}, and {o} can still checkmate: {o} wins")
            }
        }
    };
    format!("{} {why}", article.as_str())
}

/// The tags of one game, in the order they are written.
#[derive(Debug, Clone, Default)]
pub struct Tags<'a> {
    pub event: Option<&'a str>,
    pub site: Option<&'a str>,
    pub date: Option<&'a str>,
    pub round: Option<&'a str>,
    pub white: Option<&'a str>,
    pub black: Option<&'a str>,
    pub result: &'a str,
    /// After the seven-tag roster (team tags, say).
    pub extra: Vec<(&'a str, String)>,
    pub chess960: bool,
    /// The start position when it is not the standard one.
    pub setup_fen: Option<String>,
    pub time_control: Option<&'a str>,
    pub end: Option<EndReason>,
    pub ply_count: Option<usize>,
}

/// One move of the movetext.
#[derive(Debug, Clone)]
pub struct Written<'a> {
    pub san: &'a str,
    pub clock_ms: Option<i64>,
    /// Rulings at this ply before the move that stood, as comment text.
    pub before: Vec<String>,
    /// Rulings and remarks on the move, as comment text.
    pub comments: Vec<String>,
    /// An illegal move that stood under A.5.2: it has no SAN, and nothing
    /// after it can be replayed from the start.
    pub stood_illegal: bool,
}

fn tag(out: &mut String, name: &str, value: &str) {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ");
    let _ = writeln!(out, "[{name} \"{escaped}\"]");
}

/// The tag section, the seven-tag roster first, then a blank line.
pub fn write_tags(out: &mut String, t: &Tags) {
    tag(out, "Event", t.event.unwrap_or("?"));
    tag(out, "Site", t.site.unwrap_or("?"));
    tag(out, "Date", t.date.unwrap_or("????.??.??"));
    tag(out, "Round", t.round.unwrap_or("?"));
    tag(out, "White", t.white.unwrap_or("?"));
    tag(out, "Black", t.black.unwrap_or("?"));
    tag(out, "Result", t.result);
    for (name, value) in &t.extra {
        tag(out, name, value);
    }
    if t.chess960 {
        tag(out, "Variant", "Chess960");
    }
    if let Some(fen) = &t.setup_fen {
        tag(out, "SetUp", "1");
        tag(out, "FEN", fen);
    }
    if let Some(tc) = t.time_control {
        tag(out, "TimeControl", tc);
    }
    if let Some(reason) = t.end {
        let termination = match reason {
            EndReason::FlagFall => "time forfeit",
            EndReason::IllegalMoves => "rules infraction",
            _ => "normal",
        };
        tag(out, "Termination", termination);
    }
    if let Some(n) = t.ply_count {
        tag(out, "PlyCount", &n.to_string());
    }
    out.push('\n');
}

/// A PGN comment: braces in the text would end it early.
fn comment(parts: &[String]) -> String {
    format!("{{{}}}", parts.join(" ").replace(['{', '}'], ""))
}

/// The movetext from a position whose move number and side to move are
/// given; `trailing` are rulings after the last move (at a ply whose move was
/// never played); it ends with the result and a blank line.
pub fn write_movetext<'a>(
    out: &mut String,
    mut number: u32,
    mut turn: Color,
    moves: impl IntoIterator<Item = Written<'a>>,
    trailing: &[String],
    result: &str,
) {
    let mut tokens: Vec<String> = Vec::new();
    let mut need_number = true;
    let mut off_record: Vec<String> = Vec::new();
    for m in moves {
        let number_text = match turn {
            Color::White => format!("{number}."),
            Color::Black => format!("{number}..."),
        };
        if m.stood_illegal || !off_record.is_empty() {
            // The rest goes in one comment: it cannot be replayed from the start.
            if off_record.is_empty() {
                off_record
                    .push(format!("{number_text} {}: an illegal move that stood (A.5.2); the game went on:", m.san));
            } else {
                off_record.push(format!("{number_text} {}", m.san));
            }
        } else {
            if !m.before.is_empty() {
                tokens.push(comment(&m.before));
                need_number = true;
            }
            if turn == Color::White || need_number {
                tokens.push(number_text);
            }
            tokens.push(m.san.to_string());
            let mut after: Vec<String> = Vec::new();
            if let Some(ms) = m.clock_ms {
                after.push(format!("[%clk {}]", clock_text(ms)));
            }
            after.extend(m.comments.iter().cloned());
            need_number = !after.is_empty();
            if need_number {
                tokens.push(comment(&after));
            }
        }
        if turn == Color::Black {
            number += 1;
        }
        turn = !turn;
    }
    if !off_record.is_empty() {
        tokens.push(comment(&off_record));
    }
    if !trailing.is_empty() {
        tokens.push(comment(trailing));
    }
    tokens.push(result.to_string());
    wrap(out, &tokens);
}

/// Writes one game.
pub fn write(header: &Header, game: &Game) -> String {
    let mut out = String::new();
    let result = game.ending.map_or("*", |e| e.result.as_str());
    let chess960 = game.mode == shakmaty::CastlingMode::Chess960;
    let tags = Tags {
        event: header.event.as_deref(),
        site: header.site.as_deref(),
        date: header.date.as_deref(),
        round: header.round.as_deref(),
        white: header.white.as_deref(),
        black: header.black.as_deref(),
        result,
        extra: Vec::new(),
        chess960,
        setup_fen: (chess960 || !game.standard_start()).then(|| game.start_fen()),
        time_control: header.time_control.as_deref(),
        end: game.ending.map(|e| e.reason),
        ply_count: Some(game.played.len()),
    };
    write_tags(&mut out, &tags);
    let start = game.start();
    let moves = game.played.iter().map(|p| Written {
        san: &p.info.san,
        clock_ms: p.clock_ms,
        before: p.before.clone(),
        comments: p.comments.clone(),
        stood_illegal: p.stood_illegal,
    });
    write_movetext(&mut out, start.fullmoves().get(), start.turn(), moves, game.pending_notes(), result);
    out
}

/// Export format: lines of at most 79 characters, never breaking inside a
/// `[%clk h:mm:ss]` (readers that look for it on one line still find it) nor
/// between a move number and its move.
fn wrap(out: &mut String, tokens: &[String]) {
    let mut line = String::new();
    let mut words = tokens.iter().flat_map(|t| t.split(' '));
    while let Some(first) = words.next() {
        let joined;
        let numbered = first.ends_with('.') && first.starts_with(|c: char| c.is_ascii_digit());
        let word = match (first.ends_with("[%clk") || numbered).then(|| words.next()).flatten() {
            Some(time) => {
                joined = format!("{first} {time}");
                joined.as_str()
            }
            None => first,
        };
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

    #[test]
    fn lines_never_break_inside_a_clock() {
        let moves: Vec<Written> = (0..60)
            .map(|_| Written {
                san: "Nf3",
                clock_ms: Some(5_400_000),
                before: Vec::new(),
                comments: Vec::new(),
                stood_illegal: false,
            })
            .collect();
        let mut out = String::new();
        write_movetext(&mut out, 1, Color::White, moves, &[], "*");
        for line in out.lines() {
            assert!(line.len() <= 79, "{line}");
            assert!(!line.trim_end().ends_with("[%clk"), "{line}");
            assert!(!line.trim_end().ends_with('.'), "a move number is kept with its move: {line}");
        }
        assert_eq!(out.matches("[%clk 1:30:00]").count(), 60);
    }

    #[test]
    fn after_an_illegal_move_that_stood_the_rest_is_a_comment() {
        let m = |san, stood_illegal| Written {
            san,
            clock_ms: None,
            before: Vec::new(),
            comments: Vec::new(),
            stood_illegal,
        };
        let mut out = String::new();
        write_movetext(&mut out, 1, Color::White, [m("e4", false), m("Ke8-e6", true), m("d4", false)], &[], "*");
        let one_line = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(one_line, "1. e4 {1... Ke8-e6: an illegal move that stood (A.5.2); the game went on: 2. d4} *");
    }
}
