//! The game record in PGN: the header's tags, SAN, a `[%clk h:mm:ss]`
//! comment after every move when there is a clock, rulings as comments, and
//! the result. One writer for the replay, the daemon and the broadcast feed.

use std::fmt::Write as _;

use shakmaty::{Color, Position};
pub use tactus_trace::MateVerdict;
use tactus_trace::{Federation, GameResult, Header, Pairing, Player, Title};

use crate::event::{Article, EndReason, Irregularity};
use crate::game::Game;
use crate::serde_chess::color_str;

/// `h:mm:ss`, rounded down; never negative.
pub fn clock_text(ms: i64) -> String {
    tactus_clock::Hms::down(ms).to_string()
}

/// A remark the record keeps at a ply, as data: the words are the writer's
/// ([`Commentary`]), the core has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A ruling, as its `irregularity` event has it.
    Ruling(Irregularity),
    /// Time added to `side`'s clock; written as notation: `7.5.5 black +1:00`.
    Penalty { article: Article, side: Color, ms: i64 },
    /// A result settled on who can still checkmate.
    Settled(Settled),
}

/// How a result was settled on who can still checkmate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// A dead position (5.2.2): neither side can checkmate by any series of
    /// legal moves.
    Dead,
    /// `loser`'s flag fell (6.9) or `loser` made a second illegal move
    /// (7.5.5), and the opponent's search found it can mate (a win), cannot
    /// (a draw), or did not settle it within its limit (the loss stands).
    Lost { article: Article, loser: Color, opponent: MateVerdict },
}

impl Settled {
    pub fn article(self) -> Article {
        match self {
            Settled::Dead => Article::A5_2_2,
            Settled::Lost { article, .. } => article,
        }
    }
}

/// The words of the record's remarks: the speech crate's, in the language
/// the record is written in. The article goes before each, as notation.
pub trait Commentary {
    /// A ruling.
    fn ruling(&self, ruling: &Irregularity) -> String;
    /// How a result was settled on who can still checkmate.
    fn settled(&self, settled: &Settled) -> String;
}

impl Note {
    /// The remark as a comment's text: `7.5.1 …`, `7.5.5 black +1:00`.
    pub fn text(&self, words: &dyn Commentary) -> String {
        match self {
            Note::Ruling(r) => format!("{} {}", r.article.as_str(), words.ruling(r)),
            Note::Penalty { article, side, ms } => {
                let s = ms.max(&0) / 1000;
                format!("{} {} +{}:{:02}", article.as_str(), color_str(*side), s / 60, s % 60)
            }
            Note::Settled(settled) => format!("{} {}", settled.article().as_str(), words.settled(settled)),
        }
    }
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
            off_record.extend(m.before.iter().cloned());
            off_record.push(format!("{number_text} {}", m.san));
            off_record.extend(m.comments.iter().cloned());
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

/// A player's `…Title`, `…Elo`, `…FideId` and `…Federation` tags, each
/// only when known (broadcasts read them: Lichess finds a player by FIDE ID).
pub fn player_tags(
    side: Color,
    title: Option<Title>,
    elo: Option<u16>,
    fide_id: Option<u32>,
    federation: Option<Federation>,
) -> impl Iterator<Item = (&'static str, String)> {
    let [title_tag, elo_tag, id_tag, federation_tag] = match side {
        Color::White => ["WhiteTitle", "WhiteElo", "WhiteFideId", "WhiteFederation"],
        Color::Black => ["BlackTitle", "BlackElo", "BlackFideId", "BlackFederation"],
    };
    [
        title.map(|t| (title_tag, t.as_str().to_string())),
        elo.map(|e| (elo_tag, e.to_string())),
        fide_id.map(|id| (id_tag, id.to_string())),
        federation.map(|f| (federation_tag, f.to_string())),
    ]
    .into_iter()
    .flatten()
}

/// The tags a round's pairing adds: each player's, then `Board`.
pub fn pairing_tags(pairing: &Pairing) -> Vec<(&'static str, String)> {
    let player = |side, p: &Player| player_tags(side, p.title, p.elo, p.fide_id, p.federation);
    let mut tags: Vec<_> = player(Color::White, &pairing.white).chain(player(Color::Black, &pairing.black)).collect();
    tags.push(("Board", pairing.board.to_string()));
    tags
}

/// Writes one game, its remarks in `words`: the header's tags, or the
/// round's pairing's where the hall sent one.
pub fn write(header: &Header, game: &Game, words: &dyn Commentary) -> String {
    let mut out = String::new();
    let result = GameResult::pgn(game.ending.map(|e| e.result));
    let chess960 = game.mode == shakmaty::CastlingMode::Chess960;
    let pairing = game.pairing.as_ref();
    let round = pairing.map(|p| p.round.to_string());
    let tags = Tags {
        event: pairing.and_then(|p| p.tournament.as_deref()).or(header.event.as_deref()),
        site: header.site.as_deref(),
        date: header.date.as_deref(),
        round: round.as_deref().or(header.round.as_deref()),
        white: pairing.map(|p| p.white.name.as_str()).or(header.white.as_deref()),
        black: pairing.map(|p| p.black.name.as_str()).or(header.black.as_deref()),
        result,
        extra: pairing.map(pairing_tags).unwrap_or_default(),
        chess960,
        setup_fen: (chess960 || !game.standard_start()).then(|| game.start_fen()),
        time_control: header.time_control.as_deref(),
        end: game.ending.map(|e| e.reason),
        ply_count: Some(game.played.len()),
    };
    write_tags(&mut out, &tags);
    let start = game.start();
    let texts = |notes: &[Note]| notes.iter().map(|n| n.text(words)).collect::<Vec<String>>();
    let moves = game.played.iter().map(|p| Written {
        san: &p.info.san,
        clock_ms: p.clock_ms,
        before: texts(&p.before),
        comments: texts(&p.comments),
        stood_illegal: p.stood_illegal,
    });
    let trailing = texts(game.pending_notes());
    write_movetext(&mut out, start.fullmoves().get(), start.turn(), moves, &trailing, result);
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
        let m = |san, stood_illegal, comments: &[&str]| Written {
            san,
            clock_ms: None,
            before: Vec::new(),
            comments: comments.iter().map(|c| c.to_string()).collect(),
            stood_illegal,
        };
        let ruling = "7.5.1 (the ruling, in the record's words)";
        let moves = [m("e4", false, &[]), m("Ke8-e6", true, &[ruling]), m("d4", false, &[])];
        let mut out = String::new();
        write_movetext(&mut out, 1, Color::White, moves, &[], "*");
        let one_line = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(one_line, format!("1. e4 {{1... Ke8-e6 {ruling} 2. d4}} *"));
    }

    /// The record's remarks: a penalty as notation, a ruling and a verdict
    /// in the words given, each after its article.
    #[test]
    fn notes_are_notation_and_the_words_given() {
        struct Plain;
        impl Commentary for Plain {
            fn ruling(&self, r: &Irregularity) -> String {
                format!("ruling {:?}", r.reason)
            }
            fn settled(&self, settled: &Settled) -> String {
                format!("{settled:?}")
            }
        }
        let penalty = Note::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 60_000 };
        assert_eq!(penalty.text(&Plain), "7.5.5 black +1:00");
        let settled = Settled::Lost { article: Article::A6_9, loser: Color::White, opponent: MateVerdict::CannotMate };
        assert_eq!(
            Note::Settled(settled).text(&Plain),
            "6.9 Lost { article: A6_9, loser: White, opponent: CannotMate }"
        );
        assert_eq!(Note::Settled(Settled::Dead).text(&Plain), "5.2.2 Dead");
        let ruling = Irregularity {
            article: Article::A7_5_3,
            side: Color::White,
            ply: 3,
            reason: crate::event::Reason::NoMove,
            stands: false,
            attempt: None,
            touched: None,
            fix: Vec::new(),
        };
        assert_eq!(Note::Ruling(ruling).text(&Plain), "7.5.3 ruling NoMove");
    }
}
