//! What a relay takes from the broker, checked before the hall holds it: a
//! board's state is rebuilt from its moves on the relay's own position
//! (SAN worked out here, never copied), text is cleaned and capped, numbers
//! are bounded. Even a board that holds the hall key only gets into the
//! feed what can be checked; without a hall key this is all that stands
//! between a stranger and `/games.pgn`.

use std::collections::VecDeque;

use tactus_core::{EngineEval, Event, EventKind, Online, Pair, Slip};
use tactus_trace::PairingError;

use crate::feed::{
    BoardFeed, Change, Clocks, EngineView, FeedMove, MoveName, SPOKEN_KEPT, Spoken, Tags, Told, clean, fen_of,
    parse_position,
};
use crate::players::{MAX_ELO, MAX_FIDE_ID};
use crate::wire::check_name;

/// The most moves a board's record may hold: more than any game has.
pub const MAX_MOVES: usize = 4000;
/// The most rulings (irregularities, penalties, claims, observations) a state may carry.
pub const MAX_RULINGS: usize = 1000;
/// A clock reading or a penalty beyond a day is not a chess clock's.
pub const MAX_CLOCK_MS: i64 = 24 * 3_600_000;
/// The longest tag value kept (names, event, site, …).
pub const MAX_TAG: usize = 200;
/// The longest text kept: a ruling's words, a spoken line.
pub const MAX_TEXT: usize = 500;
/// No run of a board makes more changes than this.
pub const MAX_SEQ: u64 = 1 << 40;
/// How far ahead of the relay's clock a board's run (`epoch`, its start in
/// Unix ms) may be: further means a wrong clock, or a forgery that would
/// pin the board.
pub const MAX_EPOCH_AHEAD_MS: u64 = 24 * 3_600_000;

/// Why a relay refuses what a board sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("change number {0} is beyond {MAX_SEQ}")]
    Seq(u64),
    #[error(
        "its run started at {epoch} (Unix ms), more than a day after this relay's clock ({now_unix_ms}): is a clock wrong?"
    )]
    EpochAhead { epoch: u64, now_unix_ms: u64 },
    #[error("{what} {ms} ms is beyond a day")]
    Clock { what: &'static str, ms: i64 },
    /// A position that cannot be read (its text cleaned and cut).
    #[error("{0:?} is not a position")]
    Position(String),
    /// A move that is not UCI (its text cleaned and cut).
    #[error("{0:?} is not a move in UCI")]
    Uci(String),
    #[error("a board mismatch larger than the board")]
    Mismatch,
    #[error("an engine move of more steps than any move has")]
    Steps,
    #[error("a fix larger than the board")]
    Fix,
    #[error("a take-back of no moves, or of more moves than a game has")]
    TakeBack,
    #[error("{0} is not an engine level")]
    Level(u8),
    #[error("an answer with more pieces than the board holds")]
    Pieces,
    #[error("{0} moves: more than {MAX_MOVES}")]
    Moves(usize),
    #[error("{0} rulings: more than {MAX_RULINGS}")]
    Rulings(usize),
    /// Move `index` (from 1) of a state numbered `ply`, where `expected` was due.
    #[error("move {index} is numbered ply {ply}, not {expected}")]
    Numbering { index: usize, ply: u32, expected: u64 },
    /// An event of this kind among a state's rulings.
    #[error("a {0} event among the rulings")]
    NotARuling(String),
    #[error(transparent)]
    Pairing(#[from] PairingError),
}

/// Checks a board's run and change number against the relay's clock.
pub(crate) fn numbers(epoch: u64, seq: u64, now_unix_ms: u64) -> Result<(), Refused> {
    if seq > MAX_SEQ {
        return Err(Refused::Seq(seq));
    }
    if epoch > now_unix_ms.saturating_add(MAX_EPOCH_AHEAD_MS) {
        return Err(Refused::EpochAhead { epoch, now_unix_ms });
    }
    Ok(())
}

fn tags(t: Tags) -> Tags {
    let c = |v: Option<String>| v.map(|v| clean(&v, MAX_TAG)).filter(|v| !v.is_empty());
    Tags {
        white: c(t.white),
        black: c(t.black),
        event: c(t.event),
        site: c(t.site),
        round: c(t.round),
        date: c(t.date),
        time_control: c(t.time_control),
        white_fide_id: t.white_fide_id.filter(|&id| (1..=MAX_FIDE_ID).contains(&id)),
        white_title: t.white_title,
        white_elo: t.white_elo.filter(|&elo| (1..=MAX_ELO).contains(&elo)),
        black_fide_id: t.black_fide_id.filter(|&id| (1..=MAX_FIDE_ID).contains(&id)),
        black_title: t.black_title,
        black_elo: t.black_elo.filter(|&elo| (1..=MAX_ELO).contains(&elo)),
        white_federation: t.white_federation,
        black_federation: t.black_federation,
        board: t.board.filter(|&n| (1..=tactus_trace::MAX_BOARD).contains(&n)),
        pair: t.pair.filter(|p| check_name("partner board", &p.with).is_ok()),
    }
}

fn clock(what: &'static str, ms: i64) -> Result<i64, Refused> {
    if ms.abs() > MAX_CLOCK_MS {
        return Err(Refused::Clock { what, ms });
    }
    Ok(ms)
}

/// The most moves one take-back is believed to take back: a long game's.
const MAX_TAKEN: usize = 1200;

fn opt_clock(what: &'static str, ms: Option<i64>) -> Result<Option<i64>, Refused> {
    ms.map(|ms| clock(what, ms)).transpose()
}

fn fen(f: &str, chess960: bool) -> Result<String, Refused> {
    parse_position(f, chess960).map(|p| fen_of(&p)).ok_or_else(|| Refused::Position(clean(f, 100)))
}

fn uci(u: &str) -> Result<(), Refused> {
    u.parse::<shakmaty::uci::UciMove>().map(|_| ()).map_err(|_| Refused::Uci(clean(u, 16)))
}

/// A move an answer says is still to be carried out, checked as a move.
fn pending(mv: Option<tactus_core::MoveInfo>) -> Result<Option<tactus_core::MoveInfo>, Refused> {
    mv.map(|mut mv| {
        uci(&mv.uci)?;
        mv.san = clean(&mv.san, 32);
        Ok(mv)
    })
    .transpose()
}

/// One core event from a board: text cleaned, numbers bounded, positions
/// and results checked.
pub(crate) fn event(ev: Event, chess960: bool) -> Result<Event, Refused> {
    let kind = match ev.kind {
        EventKind::Start { fen: f, chess960, time_control, white_ms, black_ms } => EventKind::Start {
            fen: fen(&f, chess960)?,
            chess960,
            time_control: time_control.map(|tc| clean(&tc, MAX_TAG)),
            white_ms: opt_clock("white_ms", white_ms)?,
            black_ms: opt_clock("black_ms", black_ms)?,
        },
        EventKind::Move { mut mv, correction } => {
            uci(&mv.uci)?;
            mv.san = clean(&mv.san, 32);
            EventKind::Move { mv, correction }
        }
        EventKind::LastMove { mut mv } => {
            uci(&mv.uci)?;
            mv.san = clean(&mv.san, 32);
            EventKind::LastMove { mv }
        }
        EventKind::Withdrawn { ply, san } => EventKind::Withdrawn { ply, san: clean(&san, 32) },
        EventKind::Complete { ply, side, san, uci: u, clock_ms, opponent_ms } => {
            uci(&u)?;
            EventKind::Complete {
                ply,
                side,
                san: clean(&san, 32),
                uci: u,
                clock_ms: opt_clock("clock_ms", clock_ms)?,
                opponent_ms: opt_clock("opponent_ms", opponent_ms)?,
            }
        }
        kind @ EventKind::Irregularity(_) => kind,
        EventKind::Pairing(p) => {
            p.check()?;
            EventKind::Pairing(p)
        }
        EventKind::Penalty { article, side, ms } => EventKind::Penalty { article, side, ms: clock("penalty", ms)? },
        EventKind::Observation { article, side, ply, first, then } => {
            EventKind::Observation { article, side, ply, first: clean(&first, 32), then: clean(&then, 32) }
        }
        EventKind::Ambiguous { ply, candidates, chosen } => EventKind::Ambiguous {
            ply,
            candidates: candidates.iter().take(16).map(|c| clean(c, 32)).collect(),
            chosen: clean(&chosen, 32),
        },
        EventKind::BoardMismatch { missing, extra, fix } => {
            // At most every square of the board, each once.
            if missing.len() > 64 || extra.len() > 64 || fix.len() > 128 {
                return Err(Refused::Mismatch);
            }
            EventKind::BoardMismatch { missing, extra, fix }
        }
        EventKind::OpponentMove { mut mv, steps, eval, left, website } => {
            uci(&mv.uci)?;
            mv.san = clean(&mv.san, 32);
            if steps.len() > 8 || left.as_ref().is_some_and(|l| l.len() > 8) {
                return Err(Refused::Steps);
            }
            let eval = eval.map(|e| EngineEval {
                line: e.line.iter().take(tactus_trace::PV_MAX).map(|m| clean(m, 32)).collect(),
                ..e
            });
            EventKind::OpponentMove { mv, steps, eval, left, website }
        }
        EventKind::OpponentFix { ply, slip, fix } => {
            if fix.len() > 128 {
                return Err(Refused::Fix);
            }
            let slip = match slip {
                Slip::OtherMove { san, uci: u } => {
                    uci(&u)?;
                    Slip::OtherMove { san: clean(&san, 32), uci: u }
                }
                slip => slip,
            };
            EventKind::OpponentFix { ply, slip, fix }
        }
        EventKind::Hint { mut mv } => {
            uci(&mv.uci)?;
            mv.san = clean(&mv.san, 32);
            EventKind::Hint { mv }
        }
        EventKind::DeviceLost { device, why, diagnostic } => {
            EventKind::DeviceLost { device, why, diagnostic: diagnostic.map(|d| clean(&d, MAX_TEXT)) }
        }
        EventKind::NotUnderstood { typed } => EventKind::NotUnderstood { typed: clean(&typed, MAX_TEXT) },
        EventKind::Online(online) => EventKind::Online(vet_online(online)?),
        EventKind::Pair(pair) => EventKind::Pair(vet_pair(pair)),
        EventKind::TakeBack { ply, taken, white_ms, black_ms } => {
            if taken.is_empty() || taken.len() > MAX_TAKEN {
                return Err(Refused::TakeBack);
            }
            EventKind::TakeBack {
                ply,
                taken: taken.iter().map(|m| clean(m, 32)).collect(),
                white_ms: opt_clock("white_ms", white_ms)?,
                black_ms: opt_clock("black_ms", black_ms)?,
            }
        }
        EventKind::EngineLevel { level } if level > 10 => return Err(Refused::Level(level)),
        EventKind::ClockSet { white_ms, black_ms } => {
            EventKind::ClockSet { white_ms: clock("white_ms", white_ms)?, black_ms: clock("black_ms", black_ms)? }
        }
        EventKind::Time { white_ms, black_ms, white_moves, black_moves, running } => EventKind::Time {
            white_ms: clock("white_ms", white_ms)?,
            black_ms: clock("black_ms", black_ms)?,
            white_moves,
            black_moves,
            running,
        },
        EventKind::TimeWarning { side, remaining_ms } => {
            EventKind::TimeWarning { side, remaining_ms: clock("remaining_ms", remaining_ms)? }
        }
        EventKind::Position { fen: f, pending: p } => {
            EventKind::Position { fen: fen(&f, chess960)?, pending: pending(p)? }
        }
        EventKind::OnSquare { sq, piece, board, pending: p } => {
            EventKind::OnSquare { sq, piece, board, pending: pending(p)? }
        }
        EventKind::Pieces { pieces, .. } | EventKind::OnRank { pieces, .. } | EventKind::OnFile { pieces, .. }
            if pieces.len() > 64 =>
        {
            return Err(Refused::Pieces);
        }
        kind @ (EventKind::Pieces { .. }
        | EventKind::OnRank { .. }
        | EventKind::OnFile { .. }
        | EventKind::MovesToControl { .. }
        | EventKind::EngineLevel { .. }
        | EventKind::GameOver { .. }
        | EventKind::Touch { .. }
        | EventKind::Claimable { .. }
        | EventKind::Displaced { .. }
        | EventKind::BoardOk
        | EventKind::SensorFault { .. }
        | EventKind::SensorOk { .. }
        | EventKind::Paused
        | EventKind::Resumed
        | EventKind::DeviceBack { .. }
        | EventKind::DrawOffer { .. }
        | EventKind::DrawDeclined { .. }
        | EventKind::PromotionChoice { .. }
        | EventKind::NotNow { .. }
        | EventKind::TakeBackAsked { .. }) => kind,
    };
    Ok(Event { t: ev.t, kind })
}

/// What an online game's server says: its texts cleaned and capped.
fn vet_online(online: Online) -> Result<Online, Refused> {
    let short = |s: &str| clean(s, 64);
    Ok(match online {
        Online::Playing { game, opponent, ai_level, side } => {
            Online::Playing { game: short(&game), opponent: short(&opponent), ai_level, side }
        }
        Online::Challenge { id, player, incoming, clock } => {
            Online::Challenge { id: short(&id), player: short(&player), incoming, clock: clock.map(|c| short(&c)) }
        }
        Online::ChallengeGone { id, declined } => Online::ChallengeGone { id: short(&id), declined },
        Online::Refused { ply, uci: u, san, why } => {
            uci(&u)?;
            Online::Refused { ply, uci: u, san: clean(&san, 32), why }
        }
        Online::Ended { status } => Online::Ended { status },
        Online::NotPlayed { game, reason } => Online::NotPlayed { game: short(&game), reason },
        Online::Failed { why } => Online::Failed { why },
        Online::Chat { from, text } => Online::Chat { from: short(&from), text: clean(&text, MAX_TEXT) },
        Online::ChatLines { lines } => Online::ChatLines {
            lines: lines
                .into_iter()
                .take(64)
                .map(|l| tactus_core::ChatLine { from: short(&l.from), text: clean(&l.text, MAX_TEXT) })
                .collect(),
        },
        online @ (Online::TakebackOffer { .. }
        | Online::ChatHeld { .. }
        | Online::Token { .. }
        | Online::Asked { .. }
        | Online::TakebackDeclined
        | Online::TakenBack { .. }
        | Online::OpponentGone { .. }
        | Online::RateLimited { .. }) => online,
    })
}

/// What a board's partner link said: names and time controls capped.
fn vet_pair(pair: Pair) -> Pair {
    let name = |s: &str| clean(s, 64);
    let tc = |tc: Option<String>| tc.map(|t| clean(&t, MAX_TAG));
    match pair {
        Pair::SameSide { partner, side } => Pair::SameSide { partner: name(&partner), side },
        Pair::TimeControl { partner, ours, theirs } => {
            Pair::TimeControl { partner: name(&partner), ours: tc(ours), theirs: tc(theirs) }
        }
        Pair::TableClock { partner, ours, theirs } => Pair::TableClock { partner: name(&partner), ours, theirs },
        Pair::OtherGame { partner } => Pair::OtherGame { partner: name(&partner) },
        Pair::Twin { board } => Pair::Twin { board: name(&board) },
        Pair::Agreed { partner } => Pair::Agreed { partner: name(&partner) },
        goes_on @ Pair::GoesOn { .. } => goes_on,
    }
}

/// A core event and the board's words for it: the event checked, the
/// words cleaned and capped (a board's words are shown, never parsed).
pub(crate) fn told(told: Told, chess960: bool) -> Result<Told, Refused> {
    Ok(Told { event: event(told.event, chess960)?, text: told.text.map(|t| clean(&t, MAX_TEXT)) })
}

/// One change from a board's `events` topic, checked.
pub(crate) fn change(change: Change, chess960: bool) -> Result<Change, Refused> {
    Ok(match change {
        Change::Event(t) => Change::Event(told(t, chess960)?),
        Change::Spoken(s) => Change::Spoken(Spoken { t: s.t, text: clean(&s.text, MAX_TEXT) }),
        Change::Tags(t) => Change::Tags(tags(t)),
    })
}

/// A board's retained state, rebuilt from what can be checked: the start
/// position, then each move from its UCI on the relay's own position (its
/// SAN worked out here, the position after it too), the rulings, clocks and
/// result checked, text cleaned. Arbiter notes are the relay's own: a
/// board's are dropped.
pub(crate) fn state(board: &str, claimed: BoardFeed) -> Result<BoardFeed, Refused> {
    let start_fen = fen(&claimed.start_fen, claimed.chess960)?;
    if claimed.moves.len() > MAX_MOVES {
        return Err(Refused::Moves(claimed.moves.len()));
    }
    if claimed.irregularities.len() > MAX_RULINGS {
        return Err(Refused::Rulings(claimed.irregularities.len()));
    }
    let mut feed = BoardFeed {
        epoch: claimed.epoch,
        seq: claimed.seq,
        tags: tags(claimed.tags),
        fen: start_fen.clone(),
        start_fen,
        chess960: claimed.chess960,
        engine: claimed.engine.map(|v| EngineView {
            ply: v.ply,
            // Read as SAN, or cleaned and cut, when it was deserialised.
            san: v.san,
            eval: EngineEval {
                line: v.eval.line.iter().take(tactus_trace::PV_MAX).map(|m| clean(m, 32)).collect(),
                ..v.eval
            },
        }),
        ..BoardFeed::new(board)
    };
    let first_ply = claimed.moves.first().map_or(1, |m| m.ply);
    for (i, m) in claimed.moves.iter().enumerate() {
        let expected = u64::from(first_ply) + i as u64;
        if u64::from(m.ply) != expected {
            return Err(Refused::Numbering { index: i + 1, ply: m.ply, expected });
        }
        let (san, off_record) = feed.play(m.uci, || MoveName::Told(m.uci.to_string()));
        let clock_ms = opt_clock("clock_ms", m.clock_ms)?;
        feed.moves.push(FeedMove { ply: m.ply, san, uci: m.uci, clock_ms, off_record });
    }
    let c = claimed.clocks;
    feed.clocks = Clocks {
        white_ms: opt_clock("white_ms", c.white_ms)?,
        black_ms: opt_clock("black_ms", c.black_ms)?,
        running: c.running,
        at_t: c.at_t,
        at_unix_ms: None,
    };
    feed.paused = claimed.paused;
    feed.result = claimed.result;
    feed.end_reason = claimed.end_reason;
    feed.end_text = claimed.end_text.map(|t| clean(&t, MAX_TEXT));
    for t in claimed.irregularities {
        let ruling = matches!(
            t.event.kind,
            EventKind::Irregularity(_)
                | EventKind::Penalty { .. }
                | EventKind::Claimable { .. }
                | EventKind::Observation { .. }
        );
        if !ruling {
            let name = serde_json::to_value(&t.event).ok().and_then(|v| v["event"].as_str().map(str::to_string));
            return Err(Refused::NotARuling(name.unwrap_or_default()));
        }
        feed.irregularities.push(told(t, feed.chess960)?);
    }
    let skip = claimed.spoken.len().saturating_sub(SPOKEN_KEPT);
    feed.spoken = claimed
        .spoken
        .into_iter()
        .skip(skip)
        .map(|s| Spoken { t: s.t, text: clean(&s.text, MAX_TEXT) })
        .collect::<VecDeque<_>>();
    feed.last_t = claimed.last_t;
    Ok(feed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;
    use tactus_core::Article;

    fn mv(ply: u32, san: &str, uci: &str) -> FeedMove {
        FeedMove { ply, san: MoveName::read(san), uci: uci.parse().unwrap(), clock_ms: None, off_record: false }
    }

    #[test]
    fn a_state_is_rebuilt_from_its_moves() {
        let claimed = BoardFeed {
            moves: vec![mv(1, "e4", "e2e4"), mv(2, "1-0\"] {evil}", "e7e5"), mv(3, "Qh5", "d1h5")],
            fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
            tags: Tags {
                white: Some("Ann\n[Result \"1-0\"]".into()),
                white_fide_id: Some(1_503_014),
                white_elo: Some(9999),
                black_fide_id: Some(0),
                black_title: Some(crate::players::Title::Wgm),
                ..Tags::default()
            },
            arbiter_notes: vec![crate::feed::ArbiterNote { t: 1, text: "forged".into() }],
            ..BoardFeed::new("x")
        };
        let feed = state("b1", claimed).unwrap();
        assert_eq!(feed.id, "b1", "the topic names the board");
        let sans: Vec<String> = feed.moves.iter().map(|m| m.san.to_string()).collect();
        assert_eq!(sans, ["e4", "e5", "Qh5"], "SAN is worked out, never copied");
        assert_eq!(feed.fen, "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2");
        assert_eq!(feed.tags.white.as_deref(), Some("Ann [Result \"1-0\"]"), "no newline reaches a tag");
        let t = &feed.tags;
        assert_eq!((t.white_fide_id, t.white_elo), (Some(1_503_014), None), "no rating beyond any player's");
        assert_eq!((t.black_fide_id, t.black_title), (None, Some(crate::players::Title::Wgm)), "no FIDE ID 0");
        assert!(feed.arbiter_notes.is_empty());
        let paired = |with: &str| {
            let pair = Some(crate::feed::Paired { with: with.into(), plays: Color::White });
            let claimed = BoardFeed { tags: Tags { pair, ..Tags::default() }, ..BoardFeed::new("x") };
            state("b1", claimed).unwrap().tags.pair.map(|p| p.with)
        };
        assert_eq!(paired("b2").as_deref(), Some("b2"));
        assert_eq!(paired("b2/#"), None, "a partner is a board's name");
        let pgn = feed.pgn(None);
        assert_eq!(pgn.lines().filter(|l| l.starts_with("[Result ")).count(), 1, "{pgn}");
        assert!(pgn.contains("[White \"Ann [Result \\\"1-0\\\"]\"]"), "{pgn}");
    }

    #[test]
    fn a_state_that_cannot_be_checked_is_refused() {
        let bad = |f: &dyn Fn(&mut BoardFeed)| {
            let mut claimed = BoardFeed { moves: vec![mv(1, "e4", "e2e4")], ..BoardFeed::new("b") };
            f(&mut claimed);
            state("b", claimed).unwrap_err()
        };
        assert!(bad(&|c| c.start_fen = "nonsense".into()).to_string().contains("not a position"));
        assert!(bad(&|c| c.moves.push(mv(5, "e5", "e7e5"))).to_string().contains("ply 5"));
        assert!(bad(&|c| c.clocks.white_ms = Some(i64::MAX)).to_string().contains("beyond a day"));
        assert!(bad(&|c| c.moves = vec![mv(1, "e4", "e2e4"); MAX_MOVES + 1]).to_string().contains("more than"));
        let ruling = |c: &mut BoardFeed| c.irregularities.push(Event { t: 0, kind: EventKind::Paused }.into());
        assert!(bad(&ruling).to_string().contains("paused"));
        // A result other than the three, or a move that is not UCI, does
        // not even make a state.
        let mut json = serde_json::to_value(BoardFeed::new("b")).unwrap();
        json["result"] = "1-0\n\n[Event \"x\"]".into();
        let e = serde_json::from_value::<BoardFeed>(json).unwrap_err().to_string();
        assert!(e.contains("unknown result"), "{e}");
        let mut json =
            serde_json::to_value(BoardFeed { moves: vec![mv(1, "e4", "e2e4")], ..BoardFeed::new("b") }).unwrap();
        json["moves"][0]["uci"] = "e2e4\n1-0".into();
        let e = serde_json::from_value::<BoardFeed>(json).unwrap_err().to_string();
        assert!(e.contains("UCI"), "{e}");
    }

    #[test]
    fn an_illegal_move_keeps_the_board_s_squares_not_its_words() {
        let claimed = BoardFeed { moves: vec![mv(1, "{ 1-0 }", "e1e3")], ..BoardFeed::new("b") };
        let feed = state("b", claimed).unwrap();
        assert_eq!(feed.moves[0].san.to_string(), "Ke1-e3");
        assert!(feed.moves[0].off_record);
    }

    #[test]
    fn events_are_checked_and_cleaned() {
        let over = |r: &str| {
            let json = format!(
                r#"{{"t": 1, "event": "game_over", "result": "{r}", "reason": "resignation", "article": "5.1.2"}}"#
            );
            serde_json::from_str::<Event>(&json)
                .map_err(|e| e.to_string())
                .and_then(|ev| event(ev, false).map_err(|e| e.to_string()))
        };
        assert!(over("1-0").is_ok());
        assert!(over("1-0 {x}").is_err(), "a result is one of three words");
        let penalty =
            Event { t: 1, kind: EventKind::Penalty { article: Article::A12, side: Color::White, ms: i64::MAX } };
        assert!(event(penalty, false).unwrap_err().to_string().contains("beyond a day"));
        let spoken = change(Change::Spoken(Spoken { t: 1, text: "a\u{1b}[2Jb".repeat(400) }), false).unwrap();
        let Change::Spoken(s) = spoken else { unreachable!() };
        assert!(s.text.chars().count() <= MAX_TEXT && !s.text.contains('\u{1b}'));
    }

    #[test]
    fn runs_and_change_numbers_are_bounded() {
        let now = 1_800_000_000_000;
        assert!(numbers(now, 5, now).is_ok());
        assert!(numbers(now + 3_600_000, 5, now).is_ok(), "an hour of clock difference is tolerated");
        assert!(numbers(u64::MAX, 5, now).unwrap_err().to_string().contains("clock"));
        assert!(numbers(now, u64::MAX, now).is_err());
    }
}
