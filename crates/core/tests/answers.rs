//! Every input a player can give is answered, if only with why it changes
//! nothing now (issue 20, 3 and 6): the last move before any, a hint the
//! engine cannot give, the promotion selector, a claim with nothing to
//! claim, a draw offered out of turn (9.1.2.1), a square where the board
//! differs from the game, and questions after the game has ended.

mod common;

use common::{Game, sq};
use shakmaty::{Color, Piece};
use tactus_core::{EventKind, NotNow, OnBoard};
use tactus_trace::{Claim, Input, Request};

fn not_now(g: &Game, from: usize) -> Vec<NotNow> {
    g.events[from..]
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::NotNow { why } => Some(why),
            _ => None,
        })
        .collect()
}

fn ask(g: &mut Game, what: Request) -> usize {
    let mark = g.events.len();
    g.input(Input::Request(what));
    mark
}

#[test]
fn the_last_move_asked_for_before_any_is_answered_that_none_was_played() {
    let mut g = Game::new(None);
    let mark = ask(&mut g, Request::LastMove);
    assert_eq!(not_now(&g, mark), [NotNow::NoMoveYet]);
}

#[test]
fn a_hint_the_engine_cannot_give_is_answered_with_why() {
    let mut g = Game::new(None);
    let mark = ask(&mut g, Request::Hint);
    assert_eq!(not_now(&g, mark), [NotNow::NoEngine]);

    let mut g = Game::new(Some(Color::Black));
    // The player on move: the engine answers, through its own input.
    let mark = ask(&mut g, Request::Hint);
    assert_eq!(not_now(&g, mark), []);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    let mark = ask(&mut g, Request::Hint);
    assert_eq!(not_now(&g, mark), [NotNow::EngineThinking]);
    g.choose("e7e5");
    let mark = ask(&mut g, Request::Hint);
    assert_eq!(not_now(&g, mark), [NotNow::CarryOutFirst]);
}

/// A press while the engine is on move completes nothing: it is told what
/// the game waits for.
#[test]
fn a_press_while_the_engine_is_on_move_is_answered() {
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    let mark = g.events.len();
    g.press(Color::White);
    assert_eq!(not_now(&g, mark), [NotNow::EngineThinking]);
    g.choose("e7e5");
    let mark = g.events.len();
    g.press(Color::White);
    assert_eq!(not_now(&g, mark), [NotNow::CarryOutFirst]);
    g.carry("e7", "e5");
    assert_eq!(g.sans(), ["e4", "e5"]);
}

#[test]
fn the_promotion_selector_is_answered_with_its_piece() {
    let mut g = Game::new(None);
    let mark = g.events.len();
    g.input(Input::Promote(shakmaty::Role::Knight));
    assert_eq!(g.count(mark, |k| *k == EventKind::PromotionChoice { role: shakmaty::Role::Knight }), 1);
}

#[test]
fn a_claim_with_no_illegal_move_standing_is_answered() {
    let mut g = Game::new(None);
    let mark = g.events.len();
    g.input(Input::Claim { side: Color::White, claim: Claim::Illegal });
    assert_eq!(not_now(&g, mark), [NotNow::NothingToClaim]);
}

/// 9.1.2.1: a draw is offered after one's move, before one's press; an
/// offer at another time stands all the same, and is said to be early or
/// late. The engine's offer comes with its move.
#[test]
fn a_draw_offered_out_of_turn_stands_and_is_marked() {
    let irregular = |g: &Game, from: usize| -> Vec<bool> {
        g.events[from..]
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::DrawOffer { irregular, .. } => Some(irregular),
                _ => None,
            })
            .collect()
    };
    // Before making the move.
    let mut g = Game::new(None);
    g.press(Color::Black);
    let mark = g.events.len();
    g.input(Input::DrawOffer { side: Color::White });
    assert_eq!(irregular(&g, mark), [true]);
    // After the move, before the press: as the Laws ask.
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    let mark = g.events.len();
    g.input(Input::DrawOffer { side: Color::White });
    assert_eq!(irregular(&g, mark), [false]);
    // On the opponent's time.
    let mut g = Game::new(None);
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    let mark = g.events.len();
    g.input(Input::DrawOffer { side: Color::White });
    assert_eq!(irregular(&g, mark), [true]);
    // The engine, with its move.
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("e7e5");
    let mark = g.events.len();
    g.input(Input::DrawOffer { side: Color::Black });
    assert_eq!(irregular(&g, mark), [false]);
}

fn square(g: &Game, from: usize) -> (Option<Piece>, Option<OnBoard>) {
    g.events[from..]
        .iter()
        .find_map(|e| match e.kind {
            EventKind::OnSquare { piece, board, .. } => Some((piece, board)),
            _ => None,
        })
        .expect("a square answered")
}

#[test]
fn a_square_is_answered_as_the_board_shows_it_where_it_differs_from_the_game() {
    let pawn = Piece::from_char('P').unwrap();
    let mut g = Game::new(None);
    g.press(Color::Black);
    // The move stands on the board, not yet pressed.
    g.carry("e2", "e4");
    let mark = ask(&mut g, Request::Square(sq("e4")));
    assert_eq!(square(&g, mark), (None, Some(OnBoard::Piece(pawn))));
    let mark = ask(&mut g, Request::Square(sq("e2")));
    assert_eq!(square(&g, mark), (Some(pawn), Some(OnBoard::Empty)));
    let mark = ask(&mut g, Request::Square(sq("d2")));
    assert_eq!(square(&g, mark), (Some(pawn), None), "where they agree, the game alone");
    let mark = ask(&mut g, Request::Pieces { side: Color::White, role: Some(shakmaty::Role::Pawn) });
    let board = g.events[mark..].iter().find_map(|e| match &e.kind {
        EventKind::Pieces { board, .. } => Some(board.clone()),
        _ => None,
    });
    let on_board: Vec<_> = ["a2", "b2", "c2", "d2", "f2", "g2", "h2", "e4"].map(sq).into();
    let mut on_board = on_board;
    on_board.sort();
    assert_eq!(board, Some(Some(on_board)), "the pawns as the board shows them");
    let mark = ask(&mut g, Request::Pieces { side: Color::White, role: Some(shakmaty::Role::Knight) });
    assert!(
        g.count(mark, |k| matches!(k, EventKind::Pieces { board: None, .. })) == 1,
        "the knights stand as in the game"
    );

    // The engine's knight put on a wrong square while its move is carried out.
    let mut g = Game::new(Some(Color::Black));
    g.press(Color::Black);
    g.carry("e2", "e4");
    g.press(Color::White);
    g.choose("g8f6");
    g.carry("g8", "h6");
    let mark = ask(&mut g, Request::Square(sq("h6")));
    assert_eq!(square(&g, mark), (None, Some(OnBoard::Piece(Piece::from_char('n').unwrap()))));
}

#[test]
fn after_the_end_questions_are_answered_and_presses_told_the_game_is_over() {
    let mut g = Game::new(None);
    g.press(Color::Black);
    for (from, to, side) in [("f2", "f3", Color::White), ("e7", "e5", Color::Black), ("g2", "g4", Color::White)] {
        g.carry(from, to);
        g.press(side);
    }
    g.carry("d8", "h4");
    g.press(Color::Black);
    assert!(g.session.finished(), "Qh4#");
    let mark = ask(&mut g, Request::LastMove);
    assert_eq!(g.count(mark, |k| matches!(k, EventKind::LastMove { mv } if mv.san == "Qh4#")), 1);
    let mark = ask(&mut g, Request::Square(sq("h4")));
    assert_eq!(square(&g, mark), (Piece::from_char('q'), None));
    let mark = g.events.len();
    g.input(Input::Promote(shakmaty::Role::Queen));
    g.input(Input::Request(Request::Hint));
    g.input(Input::DrawOffer { side: Color::White });
    assert_eq!(not_now(&g, mark), [NotNow::GameOver; 3]);
}

/// While the opponent's move is announced and not yet carried out, the
/// game's position is the one before it: a question about the board is
/// answered at once with that move as still to be carried out (issue 30,
/// 4) — the whole board always, a square when the move changes it — for
/// an engine, an online player and a partner board alike.
#[test]
fn questions_while_the_opponents_move_is_carried_out_say_it_is_still_to_go() {
    use tactus_trace::Header;
    for (online, partner) in [(false, false), (true, false), (false, true)] {
        let header = Header {
            time_control: Some("300+2".into()),
            engine: Some(Color::Black),
            online,
            partner,
            ..Header::default()
        };
        let mut g = Game::with(header, |p| p);
        g.press(Color::Black);
        g.carry("e2", "e4");
        g.press(Color::White);
        g.choose("b8c6");
        let pending = |kind: &EventKind| match kind {
            EventKind::Position { pending, .. } | EventKind::OnSquare { pending, .. } => {
                pending.as_ref().map(|mv| mv.san.clone())
            }
            _ => None,
        };
        for (what, still) in [
            (Request::Position, Some("Nc6")),
            (Request::Square(sq("c6")), Some("Nc6")),
            (Request::Square(sq("b8")), Some("Nc6")),
            (Request::Square(sq("e4")), None),
        ] {
            let mark = ask(&mut g, what);
            let answers: Vec<Option<String>> = g.events[mark..].iter().map(|e| pending(&e.kind)).collect();
            assert_eq!(answers, [still.map(str::to_owned)], "{what:?} (online {online}, partner {partner})");
            assert_eq!(g.events[mark].t, g.events.last().unwrap().t, "answered at once");
        }
        // Half done: the knight in the hand. Still to go.
        g.feed(200, tactus_trace::Record::Edge { sq: sq("b8"), on: false, piece: None });
        g.wait(500);
        let mark = ask(&mut g, Request::Position);
        assert_eq!(g.events[mark..].iter().map(|e| pending(&e.kind)).collect::<Vec<_>>(), [Some("Nc6".to_owned())]);
        g.feed(200, tactus_trace::Record::Edge { sq: sq("c6"), on: true, piece: None });
        g.wait(500);
        assert_eq!(g.sans(), ["e4", "Nc6"]);
        // Carried out: the position after it, nothing pending.
        let mark = ask(&mut g, Request::Position);
        assert!(matches!(&g.events[mark].kind, EventKind::Position { pending: None, fen } if fen.contains("r1bqkbnr")));
    }
}

/// No hint comes from a player far away, online or on the partner board:
/// asked for, the answer is at once that no engine plays.
#[test]
fn a_hint_against_a_player_far_away_is_answered_that_no_engine_plays() {
    use tactus_trace::Header;
    for (online, partner) in [(true, false), (false, true)] {
        let header = Header { engine: Some(Color::Black), online, partner, ..Header::default() };
        let mut g = Game::with(header, |p| p);
        let mark = ask(&mut g, Request::Hint);
        assert_eq!(not_now(&g, mark), [NotNow::NoEngine], "online {online}, partner {partner}");
    }
}
