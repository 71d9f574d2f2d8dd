//! The Laws, article by article, on small hand-made traces.
//!
//! A script is a list of tokens, each 300 ms after the last unless it says
//! otherwise: `e2-` lifts, `e4+` places, `W`/`B` press the clock, `=n` sets
//! the promotion selector, `~40` waits 40 ms before the next token instead,
//! `!claim:black` claims an illegal move, `end` ends the recording.

mod common;

use common::Data;
use shakmaty::{Color, Role, Square};
use tactus_core::{Article, EndReason, Event, EventKind, Policy, Reason, Session, Supervision};
use tactus_trace::{Claim, Entry, Header, Input, Record, Variant};

struct Run {
    events: Vec<Event>,
    session: Session,
}

impl Run {
    fn sans(&self) -> Vec<String> {
        self.session.game().played.iter().map(|p| p.info.san.clone()).collect()
    }

    fn rulings(&self) -> Vec<(Article, Color, u32)> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Irregularity(i) => Some((i.article, i.side, i.ply)),
                _ => None,
            })
            .collect()
    }

    fn kinds(&self, name: &str) -> Vec<&Event> {
        self.events.iter().filter(|e| serde_json::to_value(e).unwrap()["event"] == name).collect()
    }

    /// The mover's clock after the press that completed `ply`.
    fn clock_after(&self, ply: u32) -> Option<i64> {
        self.events.iter().find_map(|e| match &e.kind {
            EventKind::Complete { ply: p, clock_ms, .. } if *p == ply => *clock_ms,
            _ => None,
        })
    }

    /// The touches: square, ply, binding.
    fn touches(&self) -> Vec<(Square, u32, Option<Article>)> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Touch { sq, ply, binding, .. } => Some((*sq, *ply, *binding)),
                _ => None,
            })
            .collect()
    }

    fn ending(&self) -> Option<(String, EndReason, Article)> {
        self.events.iter().find_map(|e| match &e.kind {
            EventKind::GameOver { result, reason, article, .. } => Some((result.to_string(), *reason, *article)),
            _ => None,
        })
    }
}

fn header(fen: Option<&str>, variant: Variant, tc: Option<&str>) -> Header {
    Header { variant, start_fen: fen.map(str::to_string), time_control: tc.map(str::to_string), ..Header::default() }
}

fn run_with(header: Header, policy: Policy, script: &str) -> Run {
    let mut session = Session::new(&header, policy).expect("valid header");
    let mut events: Vec<Event> = session.drain().collect();
    let mut t = 1000;
    let mut gap = 300;
    for token in script.split_whitespace() {
        if let Some(ms) = token.strip_prefix('~') {
            gap = ms.parse().unwrap();
            continue;
        }
        t += gap;
        gap = 300;
        let record = match token {
            "W" => Record::Clock(Color::White),
            "B" => Record::Clock(Color::Black),
            "end" => Record::End,
            _ if token.starts_with('=') => {
                Record::Input(Input::Promote(Role::from_char(token.chars().nth(1).unwrap()).unwrap()))
            }
            _ if token.starts_with("!claim:") => Record::Input(Input::Claim {
                side: if token.ends_with("white") { Color::White } else { Color::Black },
                claim: Claim::Illegal,
            }),
            _ => {
                let (sq, on) = token.split_at(2);
                Record::Edge { sq: Square::from_ascii(sq.as_bytes()).unwrap(), on: on == "+", piece: None }
            }
        };
        session.handle(Entry { t, record });
        events.extend(session.drain());
    }
    // The board goes on for a second after the script: timers due by then run.
    session.advance(t + 1000);
    events.extend(session.drain());
    Run { events, session }
}

fn run(script: &str) -> Run {
    run_with(header(None, Variant::Standard, Some("5400+30")), Policy::default(), script)
}

fn run_fen(fen: &str, script: &str) -> Run {
    run_with(header(Some(fen), Variant::Standard, Some("5400+30")), Policy::default(), script)
}

fn run_960(fen: &str, script: &str) -> Run {
    run_with(header(Some(fen), Variant::Chess960, Some("5400+30")), Policy::default(), script)
}

// ----- Article 4.3: touch-move -------------------------------------------------

#[test]
fn quiet_moves_are_made_and_completed() {
    let r = run("e2- e4+ W e7- e5+ B g1- f3+ W");
    assert_eq!(r.sans(), ["e4", "e5", "Nf3"]);
    assert!(r.rulings().is_empty());
    assert_eq!(r.kinds("complete").len(), 3);
}

#[test]
fn touch_events_mark_the_binding_touch() {
    let r = run("e2- e4+ W");
    let touch = r.kinds("touch")[0];
    match &touch.kind {
        EventKind::Touch { sq, binding, ply, .. } => {
            assert_eq!((*sq, *binding, *ply), (Square::E2, Some(Article::A4_3_1), 1));
        }
        _ => unreachable!(),
    }
}

#[test]
fn first_touched_piece_that_could_move_must_move_4_3_1() {
    let r = run("g1- ~1200 g1+ e2- e4+ W");
    assert_eq!(r.sans(), ["e4"]);
    assert_eq!(r.rulings(), [(Article::A4_3_1, Color::White, 1)]);
}

#[test]
fn touching_a_piece_with_no_legal_move_binds_nothing_4_5() {
    let r = run("a1- ~800 a1+ e2- e4+ W");
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
}

#[test]
fn a_rook_that_could_only_castle_binds_nothing_4_3_1_4_4_2() {
    // Chess960: the rook g1 has no move but castling, a move of the king
    // that a rook touched first may not make (4.4.2).
    let r = run_960("nrbnqkrb/pppppppp/8/8/8/8/PPPPPPPP/NRBNQKRB w KQkq - 0 1", "g1- ~500 g1+ b2- b4+ W");
    assert_eq!(r.sans(), ["b4"]);
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
}

#[test]
fn touched_piece_put_back_then_moved_is_fine() {
    let r = run("g1- ~900 g1+ g1- f3+ W");
    assert_eq!(r.sans(), ["Nf3"]);
    assert!(r.rulings().is_empty());
}

#[test]
fn an_opponent_piece_touched_that_could_be_taken_must_be_taken_4_3_2() {
    // 1. e4 d5: White touches d5 (capturable by exd5), puts it back, plays Nf3.
    let r = run("e2- e4+ W d7- d5+ B d5- ~700 d5+ g1- f3+ W");
    assert_eq!(r.sans(), ["e4", "d5", "Nf3"]);
    assert_eq!(r.rulings(), [(Article::A4_3_2, Color::White, 3)]);
}

#[test]
fn own_and_opponent_piece_touched_must_capture_with_it_4_3_3() {
    // After 1. e4 d5 White touches e4 then d5, then plays e4-e5 instead of exd5.
    let r = run("e2- e4+ W d7- d5+ B e4- d5- ~600 d5+ e5+ W");
    assert_eq!(r.sans(), ["e4", "d5", "e5"]);
    assert_eq!(r.rulings(), [(Article::A4_3_3, Color::White, 3)]);
}

// ----- captures in any order -------------------------------------------------

const SCANDI: &str = "e2- e4+ W d7- d5+ B";

#[test]
fn capture_with_the_captured_piece_lifted_first() {
    let r = run(&format!("{SCANDI} d5- e4- d5+ W"));
    assert_eq!(r.sans(), ["e4", "d5", "exd5"]);
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
}

#[test]
fn capture_with_the_captured_piece_lifted_after() {
    let r = run(&format!("{SCANDI} e4- d5- d5+ W"));
    assert_eq!(r.sans(), ["e4", "d5", "exd5"]);
}

#[test]
fn capture_as_a_quick_swap_20_ms_off() {
    let r = run(&format!("{SCANDI} e4- d5- ~20 d5+ W"));
    assert_eq!(r.sans(), ["e4", "d5", "exd5"]);
}

#[test]
fn choosing_between_two_captures_by_which_square_was_emptied() {
    // 1. e4 d5 2. Nc3 Nf6: the knight on c3 can take nothing; the pawn e4 can
    // take d5 only. Take the knight route: after 3. Nf3 e6 4. Nd4?? — simpler:
    // the pawn on e4 may take d5 or f5.
    let r = run("e2- e4+ W d7- d5+ B g1- f3+ W f7- f5+ B f5- e4- f5+ W");
    assert_eq!(r.sans(), ["e4", "d5", "Nf3", "f5", "exf5"]);
    let r = run("e2- e4+ W d7- d5+ B g1- f3+ W f7- f5+ B d5- e4- d5+ W");
    assert_eq!(r.sans(), ["e4", "d5", "Nf3", "f5", "exd5"]);
}

#[test]
fn two_captures_that_fit_equally_are_reported_not_guessed_silently() {
    // Both d5 and f5 lifted and put back, the pawn lands on d5 last.
    let r = run("e2- e4+ W d7- d5+ B g1- f3+ W f7- f5+ B e4- f5- d5- ~50 f5+ ~50 d5+ W");
    assert_eq!(r.sans().len(), 5);
    assert_eq!(r.kinds("ambiguous").len(), 1, "{:#?}", r.events);
}

// ----- Article 4.4: castling -----------------------------------------------------

const READY_TO_CASTLE: &str = "r3k2r/pppqbppp/2np1n2/4p3/2B1P1b1/2NP1N2/PPPQBPPP/R3K2R w KQkq - 0 1";

#[test]
fn castling_king_first() {
    let r = run_fen("r3k2r/pppq1ppp/2npbn2/4p3/2B1P3/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 1", "e1- g1+ h1- f1+ W");
    assert_eq!(r.sans(), ["O-O"]);
    assert!(r.rulings().is_empty());
}

#[test]
fn castling_with_both_hands() {
    let r =
        run_fen("r3k2r/pppq1ppp/2npbn2/4p3/2B1P3/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 1", "e1- ~50 a1- ~200 d1+ ~30 c1+ W");
    assert_eq!(r.sans(), ["O-O-O"]);
    assert!(r.rulings().is_empty());
}

#[test]
fn rook_first_castling_is_castling_flagged_4_4_2() {
    let _ = READY_TO_CASTLE;
    let r = run_fen("r3k2r/pppq1ppp/2npbn2/4p3/2B1P3/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 1", "h1- f1+ e1- g1+ W");
    assert_eq!(r.sans(), ["O-O"]);
    assert_eq!(r.rulings(), [(Article::A4_4_2, Color::White, 1)]);
}

// ----- en passant and promotion ----------------------------------------------------

#[test]
fn en_passant_in_either_order() {
    let fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2";
    for script in ["f7- f5+ B e5- f5- f6+ W", "f7- f5+ B f5- e5- f6+ W", "f7- f5+ B e5- f6+ f5- W"] {
        let r = run_fen(fen, script);
        assert_eq!(r.sans(), ["f5", "exf6"], "{script}");
        assert!(r.rulings().is_empty());
    }
}

const PROMOTE: &str = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1";

#[test]
fn promotion_without_touching_down_is_a_queen() {
    let r = run_fen(PROMOTE, "e7- e8+ W");
    assert_eq!(r.sans(), ["e8=Q"]);
}

#[test]
fn promotion_with_the_pawn_touching_down_and_the_selector() {
    let r = run_fen(PROMOTE, "e7- e8+ e8- =n e8+ W");
    assert_eq!(r.sans(), ["e8=N+"]);
}

#[test]
fn promotion_with_the_new_piece_placed_before_the_pawn_leaves_4_6_2() {
    let r = run_fen(PROMOTE, "=r e8+ e7- W");
    assert_eq!(r.sans(), ["e8=R"]);
    assert!(r.rulings().is_empty());
}

// ----- Chess960 castling (Guidelines II.3.2) -----------------------------------------

#[test]
fn chess960_castling_by_every_method() {
    // King f1, rooks b1 and h1: O-O puts the king on g1, the rook on f1.
    let fen = "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1";
    for script in [
        "f1- g1- f1+ g1+ W",         // king off, rook to f1, king to g1 (recommended)
        "f1- g1- ~40 g1+ ~40 f1+ W", // a swap, king set down first
        "g1- f1- ~40 f1+ ~40 g1+ W", // both hands, rook first: one castling (II.3.2.1)
    ] {
        let r = run_960(fen, script);
        assert_eq!(r.sans(), ["O-O"], "{script}");
        assert!(r.rulings().is_empty(), "{script}: {:?}", r.rulings());
    }
    // The rook set down before the king is touched: rook first (4.4.2).
    let r = run_960("1r2k2r/pppppppp/8/8/8/8/PPPPPPPP/1R2K2R w HBhb - 0 1", "h1- f1+ e1- g1+ W");
    assert_eq!(r.sans(), ["O-O"]);
    assert_eq!(r.rulings(), [(Article::A4_4_2, Color::White, 1)]);
}

#[test]
fn chess960_king_only_and_rook_only_castling() {
    // King on e1 with the rook already on f1: O-O moves the king alone.
    let r = run_960("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", "e1- g1+ W");
    assert_eq!(r.sans(), ["O-O"]);
    // King already on g1 with the rook on h1: O-O moves the rook alone.
    let r = run_960("4k3/8/8/8/8/8/8/6KR w H - 0 1", "h1- f1+ W");
    assert_eq!(r.sans(), ["O-O"]);
    // King on b1, rook on a1: O-O-O, a double move.
    let r = run_960("4k3/8/8/8/8/8/8/RK6 w A - 0 1", "b1- c1+ a1- d1+ W");
    assert_eq!(r.sans(), ["O-O-O"]);
}

// ----- handling that is not an irregularity --------------------------------------------

#[test]
fn own_piece_knocked_off_and_put_back_is_only_displaced() {
    let r = run("e2- d2- ~400 d2+ e4+ W");
    assert_eq!(r.sans(), ["e4"]);
    assert!(r.rulings().is_empty());
    assert_eq!(r.kinds("displaced").len(), 1);
}

#[test]
fn contact_bounce_is_not_a_move() {
    let r = run("e2- ~2 e2+ ~2 e2- ~3 e2+ ~2 e2- e4+ ~2 e4- ~3 e4+ W");
    assert_eq!(r.sans(), ["e4"]);
    assert_eq!(r.kinds("touch").len(), 1);
    assert_eq!(r.kinds("move").len(), 1);
}

#[test]
fn a_slide_over_squares_is_not_a_move_onto_them() {
    // Qd1-h5 slid over e2? No: the d1 queen slides d1-e2?—use a rook on an open file.
    let r = run_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1- ~40 a2+ ~50 a2- ~10 a3+ ~60 a3- ~10 a5+ W");
    assert_eq!(r.sans(), ["Ra5"]);
    assert_eq!(r.kinds("move").len(), 1, "passing squares announced: {:#?}", r.kinds("move"));
    assert!(r.kinds("observation").is_empty());
}

#[test]
fn a_piece_set_down_and_moved_on_is_one_move_with_an_observation() {
    let r = run("g2- g3+ ~600 g3- g4+ W");
    assert_eq!(r.sans(), ["g4"]);
    assert!(r.rulings().is_empty(), "never an irregularity");
    assert_eq!(r.kinds("observation").len(), 1);
    let moves = r.kinds("move");
    assert_eq!(moves.len(), 2);
    assert!(matches!(&moves[1].kind, EventKind::Move { correction: true, .. }));
}

#[test]
fn a_move_taken_back_before_the_press_is_withdrawn() {
    let r = run("e2- e4+ ~600 e4- e2+ ~600 d2- d4+ W");
    assert_eq!(r.sans(), ["d4"]);
    assert_eq!(r.kinds("withdrawn").len(), 1);
}

#[test]
fn move_is_announced_within_the_settle_time() {
    let r = run("e2- e4+ ~5000 W");
    let mv = r.kinds("move")[0];
    // e4 placed at t = 1600; debounce 10 + settle 100.
    assert_eq!(mv.t, 1600 + 110);
}

// ----- Article 6.2: the press, at blitz speed -----------------------------------------

/// 90 minutes and 30 s a move: a clock reading after a press is
/// 5 400 000 − time used + 30 000.
const START_MS: i64 = 5_400_000;
const INCREMENT_MS: i64 = 30_000;

#[test]
fn a_press_a_few_ms_before_the_piece_lands_completes_the_move_6_2_1() {
    // e2 lifted at 1300, the press at 1800, the pawn lands on e4 30 ms later.
    let r = run("e2- ~500 W ~30 e4+");
    assert_eq!(r.sans(), ["e4"]);
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
    // The mover's clock stopped at the press, not when the pawn landed.
    assert_eq!(r.clock_after(1), Some(START_MS - 1800 + INCREMENT_MS));
    assert_eq!(r.session.clock().unwrap().running(), Some(Color::Black));
}

#[test]
fn a_press_whose_piece_never_lands_is_ruled_once_the_grace_has_passed_7_5_1() {
    // The press at 1600 with the pawn in the hand; it goes back to e2 a second later.
    let r = run("e2- W ~1000 e2+");
    assert_eq!(r.rulings(), [(Article::A7_5_1, Color::White, 1)]);
    let ruling = r.kinds("irregularity")[0];
    assert_eq!(ruling.t, 1600 + Policy::default().press_grace_ms, "ruled when the grace ran out");
    // The clock did not switch: White moves again, on White's time (7.5.1).
    assert_eq!(r.session.clock().unwrap().running(), Some(Color::White));
}

#[test]
fn a_piece_that_lands_on_an_illegal_square_after_the_press_is_ruled_7_5_1() {
    let r = run("b1- W ~20 b3+");
    assert_eq!(r.rulings(), [(Article::A7_5_1, Color::White, 1)]);
    let reason = r.events.iter().find_map(|e| match &e.kind {
        EventKind::Irregularity(i) => Some(i.reason),
        _ => None,
    });
    assert_eq!(reason, Some(Reason::NotAMoveOfThatPiece));
}

#[test]
fn a_press_with_nothing_moved_is_ruled_at_once_7_5_3() {
    let r = run("W");
    let ruling = r.kinds("irregularity")[0];
    assert_eq!(ruling.t, 1300, "nothing was in the hand: no grace");
}

#[test]
fn the_opponent_replies_before_the_press_6_2_2() {
    // The example: 1. e4 pressed; Black plays e5 and, before Black
    // presses, White already plays Nf3; then Black presses, then White.
    let r = run("e2- e4+ W e7- e5+ ~300 g1- f3+ ~300 B ~300 W");
    assert_eq!(r.sans(), ["e4", "e5", "Nf3"]);
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
    // Each clock exactly as the presses say: White pressed at 1900; Black's
    // clock ran from there to Black's press at 3400; White's to 3700.
    assert_eq!(r.clock_after(1), Some(START_MS - 1900 + INCREMENT_MS));
    assert_eq!(r.clock_after(2), Some(START_MS - (3400 - 1900) + INCREMENT_MS));
    assert_eq!(r.clock_after(3), Some(START_MS - 1900 + INCREMENT_MS - (3700 - 3400) + INCREMENT_MS));
    // White's knight, lifted before Black pressed, was White's touch (1.3).
    assert!(r.touches().contains(&(Square::G1, 3, Some(Article::A4_3_1))), "{:?}", r.touches());
}

#[test]
fn the_opponent_takes_hold_of_their_piece_while_the_press_is_still_coming() {
    let r = run("e2- e4+ ~300 e7- ~100 W ~300 e5+ ~300 B");
    assert_eq!(r.sans(), ["e4", "e5"]);
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
    assert_eq!(r.clock_after(1), Some(START_MS - 2000 + INCREMENT_MS));
    assert!(r.touches().contains(&(Square::E7, 2, Some(Article::A4_3_1))), "a touch that binds Black");
}

#[test]
fn a_touch_before_the_press_binds_the_opponent_not_the_mover_4_3_1() {
    // After e4 stands, Black touches the knight g8 and lets go; White
    // presses; Black then plays e5. The knight could move: Black breached
    // 4.3.1. Nothing against White, though a black piece was lifted in
    // White's time.
    let r = run("e2- e4+ ~300 g8- ~400 g8+ ~300 W e7- e5+ B");
    assert_eq!(r.sans(), ["e4", "e5"]);
    assert_eq!(r.rulings(), [(Article::A4_3_1, Color::Black, 2)]);
}

#[test]
fn a_recapture_made_before_the_press_taking_the_piece_off_first() {
    // 1. e4 d5 2. exd5 Qxd5: Black takes White's pawn off d5, then brings
    // the queen, all before White has pressed for exd5.
    let r = run("e2- e4+ W d7- d5+ B e4- d5- d5+ ~300 d5- d8- d5+ ~300 W ~300 B");
    assert_eq!(r.sans(), ["e4", "d5", "exd5", "Qxd5"]);
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
}

#[test]
fn the_promotion_selector_set_during_the_reply_is_the_replys() {
    // Black promotes on a1 and has not pressed when White promotes on g8 and
    // sets the selector to a bishop: Black's pawn became a queen (the default
    // when Black's move stood), White's a bishop.
    let r = run_fen("8/6P1/2k5/8/8/7K/p7/8 b - - 0 1", "a2- a1+ ~300 g7- g8+ g8- =b g8+ ~300 B ~300 W");
    assert_eq!(r.sans(), ["a1=Q", "g8=B"]);
    assert!(r.rulings().is_empty(), "{:?}", r.rulings());
}

#[test]
fn a_reply_that_fits_two_moves_is_reported_as_ambiguous() {
    // 1. e4 d5 2. Nf3 f5: before Black presses, White lifts e4, f5 and d5
    // and puts a pawn on each of f5 and d5: exd5 and exf5 fit equally.
    let r = run("e2- e4+ W d7- d5+ B g1- f3+ W f7- f5+ ~300 e4- f5- d5- ~50 f5+ ~50 d5+ ~300 B ~300 W");
    assert_eq!(r.sans().len(), 5, "{:?}", r.sans());
    let ambiguous = r.kinds("ambiguous");
    assert_eq!(ambiguous.len(), 1, "{:#?}", r.events);
    assert!(matches!(&ambiguous[0].kind, EventKind::Ambiguous { ply: 5, .. }));
}

// ----- Article 7: irregularities ---------------------------------------------------

#[test]
fn illegal_move_is_penalised_and_the_offender_moves_again_7_5_1() {
    // Nb1-b3 is not a knight move; the players put it back and play Nc3.
    let r = run("b1- b3+ W b3- b1+ b1- c3+ W");
    assert_eq!(r.sans(), ["Nc3"]);
    assert_eq!(r.rulings(), [(Article::A7_5_1, Color::White, 1)]);
    let penalty = r.kinds("penalty");
    assert!(matches!(penalty[0].kind, EventKind::Penalty { side: Color::Black, ms: 120_000, .. }));
    let irregularity = r.kinds("irregularity")[0];
    match &irregularity.kind {
        EventKind::Irregularity(i) => {
            assert_eq!(i.reason, Reason::NotAMoveOfThatPiece);
            assert_eq!(i.fix.len(), 1, "put the knight back on b1");
            assert_eq!((i.fix[0].from, i.fix[0].to), (Some(Square::B3), Some(Square::B1)));
        }
        _ => unreachable!(),
    }
}

#[test]
fn the_record_keeps_a_ruling_and_its_penalty_before_the_move_that_stood() {
    let r = run("b1- b3+ W b3- b1+ b1- c3+ W");
    let text = tactus_core::pgn::write(&header(None, Variant::Standard, Some("5400+30")), r.session.game(), &Data);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("{7.5.1 white not_a_move_of_that_piece Nb1-b3 7.5.5 black +2:00} 1. Nc3"), "{text}");
}

#[test]
fn the_clock_does_not_switch_on_an_illegal_move() {
    let r = run("b1- b3+ W b3- b1+ b1- c3+ W");
    // White's clock ran from 0 to the second press (3400), less nothing, plus
    // 30 s increment; Black got two minutes.
    let complete = r.kinds("complete")[0];
    match &complete.kind {
        EventKind::Complete { clock_ms, opponent_ms, .. } => {
            assert_eq!(*clock_ms, Some(5_400_000 - 3400 + 30_000));
            assert_eq!(*opponent_ms, Some(5_400_000 + 120_000));
        }
        _ => unreachable!(),
    }
}

#[test]
fn rapid_and_blitz_penalties_are_one_minute_a_3() {
    let h = header(None, Variant::Standard, Some("180+2"));
    let r = run_with(h, Policy::default(), "b1- b3+ W b3- b1+ b1- c3+ W");
    assert!(matches!(r.kinds("penalty")[0].kind, EventKind::Penalty { ms: 60_000, .. }));
}

#[test]
fn leaving_the_king_in_check_is_illegal() {
    // 1. e4 e5 2. Qh5 Nc6?? ... Black king pinned case: after 1. e4 f6 2. Qh5+, g6 is
    // legal but Nc6 leaves the king in check.
    let r = run("e2- e4+ W f7- f6+ B d1- h5+ W b8- c6+ B c6- b8+ g7- g6+ B");
    assert_eq!(r.sans(), ["e4", "f6", "Qh5+", "g6"]);
    // The touched knight has no legal move while the king is in check: no 4.3.1.
    assert_eq!(r.rulings(), [(Article::A7_5_1, Color::Black, 4)]);
    let reason = r.events.iter().find_map(|e| match &e.kind {
        EventKind::Irregularity(i) if i.article == Article::A7_5_1 => Some(i.reason),
        _ => None,
    });
    assert_eq!(reason, Some(Reason::LeavesKingInCheck));
}

#[test]
fn the_replacing_move_must_be_made_with_the_touched_piece_7_5_1_and_4_3() {
    // The knight b1 has legal moves; after its illegal move White plays e4.
    let r = run("b1- b3+ W b3- b1+ e2- e4+ W");
    assert_eq!(r.sans(), ["e4"]);
    assert_eq!(r.rulings(), [(Article::A7_5_1, Color::White, 1), (Article::A4_3_1, Color::White, 1)]);
}

#[test]
fn clock_pressed_without_a_move_7_5_3() {
    let r = run("W e2- e4+ W");
    assert_eq!(r.sans(), ["e4"]);
    assert_eq!(r.rulings(), [(Article::A7_5_3, Color::White, 1)]);
    assert_eq!(r.kinds("penalty").len(), 1);
}

#[test]
fn a_second_illegal_act_loses_7_5_5() {
    let r = run("W b1- b3+ W");
    assert_eq!(r.rulings(), [(Article::A7_5_3, Color::White, 1), (Article::A7_5_1, Color::White, 1)]);
    assert_eq!(r.ending(), Some(("0-1".into(), EndReason::IllegalMoves, Article::A7_5_5)));
}

#[test]
fn a_second_illegal_act_draws_when_the_opponent_cannot_mate() {
    let r = run_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "W W");
    assert_eq!(r.ending(), Some(("1/2-1/2".into(), EndReason::IllegalMoves, Article::A7_5_5)));
}

#[test]
fn unsupervised_an_illegal_move_stands_unless_claimed_a_5_2() {
    let h = header(None, Variant::Standard, Some("180+2"));
    let policy = Policy { supervision: Supervision::Unsupervised, ..Policy::default() };
    // Not claimed: Black replies and the game goes on from the illegal position.
    let r = run_with(h.clone(), policy.clone(), "b1- b3+ W e7- e5+ B");
    assert_eq!(r.sans(), ["Nb1-b3", "e5"]);
    assert_eq!(r.rulings(), [(Article::A7_5_1, Color::White, 1)]);
    let stands = |r: &Run| -> Vec<bool> {
        r.kinds("irregularity").iter().map(|e| matches!(&e.kind, EventKind::Irregularity(i) if i.stands)).collect()
    };
    assert_eq!(stands(&r), [true], "the ruling says, as data, that the move stands unless claimed");
    assert!(r.kinds("penalty").is_empty());
    // Supervised, the same move is ruled at once: it does not stand.
    assert_eq!(stands(&run("b1- b3+ W")), [false]);
    // Claimed before Black moves: restored, one minute to Black, White moves again.
    let r = run_with(h, policy, "b1- b3+ W !claim:black b3- b1+ b1- c3+ W");
    assert_eq!(r.sans(), ["Nc3"]);
    assert!(matches!(r.kinds("penalty")[0].kind, EventKind::Penalty { side: Color::Black, ms: 60_000, .. }));
}

#[test]
fn a_piece_left_on_the_wrong_square_is_reported_with_the_fix() {
    // After 1. e4 a white piece is set on an empty square and left there.
    let r = run("e2- e4+ W ~100 h2- ~100 h5+ ~6000 h5- h2+ e7- e5+ B");
    let mismatch = r.kinds("board_mismatch");
    assert_eq!(mismatch.len(), 1);
    match &mismatch[0].kind {
        EventKind::BoardMismatch { fix, .. } => {
            assert_eq!((fix[0].from, fix[0].to), (Some(Square::H5), Some(Square::H2)));
        }
        _ => unreachable!(),
    }
    assert_eq!(r.kinds("board_ok").len(), 1);
    assert_eq!(r.sans(), ["e4", "e5"]);
}

// ----- Articles 5, 6 and 9: the end of the game ---------------------------------------

#[test]
fn checkmate_ends_the_game_5_1_1() {
    let r = run("f2- f3+ W e7- e5+ B g2- g4+ W d8- h4+ B");
    assert_eq!(r.sans(), ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(r.ending(), Some(("0-1".into(), EndReason::Checkmate, Article::A5_1_1)));
}

#[test]
fn a_mating_move_is_complete_at_once_even_without_the_press_6_2_1() {
    let r = run("f2- f3+ W e7- e5+ B g2- g4+ W d8- h4+ end");
    assert_eq!(r.ending(), Some(("0-1".into(), EndReason::Checkmate, Article::A5_1_1)));
}

#[test]
fn stalemate_5_2_1() {
    let r = run_fen("7k/5Q2/8/8/8/8/8/K7 w - - 0 1", "f7- g6+ W");
    assert_eq!(r.ending(), Some(("1/2-1/2".into(), EndReason::Stalemate, Article::A5_2_1)));
}

#[test]
fn dead_position_5_2_2() {
    let r = run_fen("7k/8/8/8/8/8/6r1/7K w - - 0 1", "g2- h1- g2+ W");
    assert_eq!(r.sans(), ["Kxg2"]);
    assert_eq!(r.ending(), Some(("1/2-1/2".into(), EndReason::InsufficientMaterial, Article::A5_2_2)));
}

#[test]
fn threefold_is_claimable_and_fivefold_ends_the_game_9_2_9_6_1() {
    let cycle = "g1- f3+ W g8- f6+ B f3- g1+ W f6- g8+ B ";
    let r = run(&cycle.repeat(2));
    assert_eq!(r.kinds("claimable").len(), 1, "third occurrence after two cycles");
    assert!(r.ending().is_none());
    let r = run(&cycle.repeat(4));
    assert_eq!(r.ending(), Some(("1/2-1/2".into(), EndReason::FivefoldRepetition, Article::A9_6_1)));
}

#[test]
fn seventy_five_moves_end_the_game_but_a_mate_on_that_move_wins_9_6_2() {
    let r = run_fen("7k/8/8/8/8/8/R7/K7 w - - 149 100", "a2- b2+ W");
    assert_eq!(r.ending(), Some(("1/2-1/2".into(), EndReason::SeventyFiveMoves, Article::A9_6_2)));
    let r = run_fen("7k/8/6K1/8/8/8/R7/8 w - - 149 100", "a2- a8+ W");
    assert_eq!(r.ending(), Some(("1-0".into(), EndReason::Checkmate, Article::A5_1_1)));
}

#[test]
fn fifty_moves_become_claimable_9_3() {
    let r = run_fen("7k/8/8/8/8/8/R7/K7 w - - 99 80", "a2- b2+ W");
    assert!(r.ending().is_none());
    assert_eq!(r.kinds("claimable").len(), 1);
}

#[test]
fn flag_fall_loses_6_9() {
    let h = header(None, Variant::Standard, Some("60"));
    let r = run_with(h, Policy::default(), "e2- e4+ W ~70000 e7- e5+ B");
    assert_eq!(r.ending(), Some(("1-0".into(), EndReason::FlagFall, Article::A6_9)));
    assert_eq!(r.sans(), ["e4"]);
    let over = r.kinds("game_over")[0];
    assert_eq!(over.t, 1900 + 60_000, "the flag falls exactly when Black's minute is used up");
}

#[test]
fn flag_fall_draws_when_the_opponent_cannot_mate_6_9() {
    let h = header(Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), Variant::Standard, Some("60"));
    let r = run_with(h, Policy::default(), "~61000 a1- a2+ W");
    assert_eq!(r.ending(), Some(("1/2-1/2".into(), EndReason::FlagFall, Article::A6_9)));
}

#[test]
fn an_unknown_start_is_an_error_naming_the_field() {
    let h = header(Some("not a fen"), Variant::Standard, None);
    let e = Session::new(&h, Policy::default()).err().unwrap();
    assert!(e.to_string().contains("start_fen"), "{e}");
    let h = header(None, Variant::Standard, Some("40/"));
    let e = Session::new(&h, Policy::default()).err().unwrap();
    assert!(e.to_string().contains("time_control"), "{e}");
}

#[test]
fn a_paused_clock_is_started_by_the_player_not_to_move() {
    let h = header(None, Variant::Standard, Some("300"));
    let mut session = Session::new(&h, Policy::default()).unwrap();
    let feed = |s: &mut Session, t, record| s.handle(Entry { t, record });
    feed(&mut session, 1000, Record::Input(Input::Pause));
    feed(&mut session, 5000, Record::Clock(Color::White));
    assert_eq!(session.clock().unwrap().running(), None, "the mover's press does not start a stopped clock");
    feed(&mut session, 6000, Record::Clock(Color::Black));
    assert_eq!(session.clock().unwrap().running(), Some(Color::White));
    assert_eq!(session.clock().unwrap().remaining(Color::White, 6000), 299_000, "the pause cost nothing");
    let kinds: Vec<_> = session.drain().map(|e| serde_json::to_value(&e).unwrap()["event"].clone()).collect();
    assert!(kinds.contains(&"resumed".into()), "{kinds:?}");
}

// ----- a stuck sensor is reported, and the game goes on -----------------------

#[test]
fn a_sensor_stuck_on_is_reported_and_the_game_goes_on() {
    // The empty h3 reads occupied, long before the move: a stuck reed.
    let r = run("h3+ ~5000 e2- e4+ W e7- e5+ B g1- f3+ W");
    assert_eq!(r.sans(), ["e4", "e5", "Nf3"]);
    assert!(r.rulings().is_empty(), "not an illegal move: {:?}", r.rulings());
    let fault = r.kinds("sensor_fault");
    assert_eq!(fault.len(), 1);
    assert!(matches!(fault[0].kind, EventKind::SensorFault { sq: Square::H3, reading: true }));
}

#[test]
fn a_sensor_stuck_off_is_not_a_touch_and_recovers_when_it_reads_again() {
    // The pawn on a2 reads empty, long before the knight moves.
    let r = run("a2- ~5000 g1- f3+ W e7- e5+ B a2+ d2- d4+ W");
    assert_eq!(r.sans(), ["Nf3", "e5", "d4"]);
    assert!(r.rulings().is_empty(), "a dead sensor binds no touch-move: {:?}", r.rulings());
    assert_eq!(r.kinds("sensor_fault").len(), 1);
    assert_eq!(r.kinds("sensor_ok").len(), 1);
}

#[test]
fn a_knocked_piece_is_not_a_stuck_sensor() {
    // d2 is knocked off during the move and left off: displaced (7.4.1), not a fault.
    let r = run("e2- d2- e4+ W");
    assert_eq!(r.sans(), ["e4"]);
    assert!(r.kinds("sensor_fault").is_empty());
    assert_eq!(r.rulings(), [(Article::A7_4_1, Color::White, 1)]);
}

#[test]
fn the_arbiter_sets_the_move_counter_6_10_2() {
    let h = header(None, Variant::Standard, Some("40/7200:3600"));
    let mut session = Session::new(&h, Policy::default()).unwrap();
    let feed = |s: &mut Session, t, record| s.handle(Entry { t, record });
    let edge = |sq: &str, on| Record::Edge { sq: Square::from_ascii(sq.as_bytes()).unwrap(), on, piece: None };
    feed(&mut session, 1000, edge("e2", false));
    feed(&mut session, 1500, edge("e4", true));
    feed(&mut session, 2000, Record::Clock(Color::White));
    // The clock had miscounted: White has really made 39 moves.
    feed(&mut session, 2500, Record::Input(Input::SetMoves { white_moves: 39, black_moves: 39 }));
    feed(&mut session, 3000, edge("e7", false));
    feed(&mut session, 3500, edge("e5", true));
    feed(&mut session, 4000, Record::Clock(Color::Black));
    feed(&mut session, 5000, edge("g1", false));
    feed(&mut session, 5500, edge("f3", true));
    feed(&mut session, 6000, Record::Clock(Color::White));
    let clock = session.clock().unwrap();
    assert_eq!(clock.moves(Color::White), 40);
    // White used 2000 + 2000 ms; the 40th move brings the next hour.
    assert_eq!(clock.remaining(Color::White, 6000), 7_200_000 - 4000 + 3_600_000);
}

#[test]
fn time_warnings_come_while_the_player_thinks() {
    let h = header(None, Variant::Standard, Some("180+2"));
    let policy = Policy { time_warnings: vec![120_000, 60_000], ..Policy::default() };
    // White thinks 2 min 30 s over the first move: warned at 2:00 and at 1:00 left, before pressing.
    let r = run_with(h, policy, "~150000 e2- e4+ W");
    let warnings: Vec<(u64, i64)> = r
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::TimeWarning { side: Color::White, remaining_ms } => Some((e.t, remaining_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(warnings, [(60_000, 120_000), (120_000, 60_000)]);
}

#[test]
fn a_piece_lifted_and_held_at_the_press_is_not_a_stuck_sensor() {
    let r = run("e2- W");
    assert!(r.kinds("sensor_fault").is_empty());
    assert_eq!(r.rulings(), [(Article::A7_5_1, Color::White, 1)]);
}

#[test]
fn a_time_warning_comes_again_after_time_is_added() {
    let h = header(None, Variant::Standard, Some("100"));
    let policy = Policy { time_warnings: vec![60_000], ..Policy::default() };
    let mut session = Session::new(&h, policy).unwrap();
    let add = Record::Input(Input::AddTime { side: Color::White, ms: 120_000 });
    session.handle(Entry { t: 45_000, record: add });
    session.handle(Entry { t: 200_000, record: Record::Input(Input::Request(tactus_trace::Request::Time)) });
    let warnings: Vec<u64> =
        session.drain().filter(|e| matches!(e.kind, EventKind::TimeWarning { .. })).map(|e| e.t).collect();
    // 100 s: warned at 40 s; 55 s left at 45 s, +120 s = 175 s: warned again at 160 s.
    assert_eq!(warnings, [40_000, 160_000]);
}

#[test]
fn an_incorrect_claim_costs_one_minute_in_blitz_9_5_3() {
    let h = header(None, Variant::Standard, Some("180+2"));
    let mut session = Session::new(&h, Policy::default()).unwrap();
    let claim = Input::Claim { side: Color::White, claim: Claim::Threefold };
    session.handle(Entry { t: 1000, record: Record::Input(claim) });
    let penalty = session.drain().find_map(|e| match e.kind {
        EventKind::Penalty { article: Article::A9_5_3, side, ms } => Some((side, ms)),
        _ => None,
    });
    assert_eq!(penalty, Some((Color::Black, 60_000)));
}
