//! Answers to the questions a player asks at the board (D.2.6.1, D.2.10.4;
//! the `request` input of docs/trace-format.md): a pure function of the
//! position, the last move and the clocks, so every question has one answer
//! wherever it is asked from.

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Piece, Position, Role};
use tactus_clock::TimeControl;
use tactus_trace::Request;

use crate::event::{EventKind, MoveInfo, Placed, ToControl};

/// The clocks as they read when the question is asked. Without a clock the
/// times are zero and the move counts come from the game.
#[derive(Debug, Clone, Copy)]
pub struct Clocks<'a> {
    pub white_ms: i64,
    pub black_ms: i64,
    /// Moves each side has completed.
    pub white_moves: u32,
    pub black_moves: u32,
    pub running: Option<Color>,
    pub control: Option<&'a TimeControl>,
}

/// King first: the order a player takes stock of an army in.
const ROLES: [Role; 6] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

/// The event that answers `question`; `None` only for the last move of a
/// game in which nothing has been played yet.
pub fn answer(pos: &Chess, last: Option<&MoveInfo>, clocks: &Clocks<'_>, question: Request) -> Option<EventKind> {
    let board = pos.board();
    let placed = |squares: Bitboard| -> Vec<Placed> {
        squares.into_iter().filter_map(|sq| board.piece_at(sq).map(|piece| Placed { sq, piece })).collect()
    };
    Some(match question {
        Request::Time => EventKind::Time {
            white_ms: clocks.white_ms,
            black_ms: clocks.black_ms,
            white_moves: clocks.white_moves,
            black_moves: clocks.black_moves,
            running: clocks.running,
        },
        Request::Position => {
            EventKind::Position { fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(), pending: None }
        }
        Request::LastMove => EventKind::LastMove { mv: last?.clone() },
        // The engine answers it, through an `Input::Hint`.
        Request::Hint => return None,
        Request::Pieces { side, role } => {
            let roles = role.map_or(ROLES.to_vec(), |r| vec![r]);
            let pieces = roles.iter().flat_map(|&role| placed(board.by_piece(Piece { color: side, role }))).collect();
            EventKind::Pieces { side, role, pieces, board: None }
        }
        Request::Rank(rank) => EventKind::OnRank { rank, pieces: placed(board.occupied() & Bitboard::from_rank(rank)) },
        Request::File(file) => EventKind::OnFile { file, pieces: placed(board.occupied() & Bitboard::from_file(file)) },
        Request::Square(sq) => EventKind::OnSquare { sq, piece: board.piece_at(sq), board: None, pending: None },
        Request::MovesToControl => EventKind::MovesToControl {
            white: to_control(clocks.control, clocks.white_moves),
            black: to_control(clocks.control, clocks.black_moves),
        },
    })
}

fn to_control(control: Option<&TimeControl>, moves: u32) -> ToControl {
    match control.and_then(|tc| tc.next_control(moves)) {
        Some(c) => ToControl {
            moves,
            left: Some(c.at_move.saturating_sub(moves)),
            added_ms: Some(i64::try_from(c.added_ms).unwrap_or(i64::MAX)),
        },
        None => ToControl { moves, left: None, added_ms: None },
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, File, Rank, Square};

    use super::*;

    /// After 1.e4 e5 2.Nf3 Nc6 3.Bb5 a6: White to move.
    const RUY: &str = "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4";

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn clocks(control: Option<&TimeControl>, white_moves: u32, black_moves: u32) -> Clocks<'_> {
        Clocks { white_ms: 5_000_000, black_ms: 4_000_000, white_moves, black_moves, running: None, control }
    }

    fn ask(question: Request) -> EventKind {
        answer(&pos(RUY), None, &clocks(None, 3, 3), question).unwrap()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn squares(pieces: &[Placed]) -> Vec<Square> {
        pieces.iter().map(|p| p.sq).collect()
    }

    #[test]
    fn where_are_the_knights() {
        let EventKind::Pieces { pieces, .. } = ask(Request::Pieces { side: Color::White, role: Some(Role::Knight) })
        else {
            panic!()
        };
        assert_eq!(squares(&pieces), [sq("b1"), sq("f3")]);
        let EventKind::Pieces { pieces, .. } = ask(Request::Pieces { side: Color::Black, role: Some(Role::Bishop) })
        else {
            panic!()
        };
        assert_eq!(squares(&pieces), [sq("c8"), sq("f8")]);
        assert!(pieces.iter().all(|p| p.piece == Piece::from_char('b').unwrap()));
    }

    #[test]
    fn a_whole_army_comes_king_first() {
        let EventKind::Pieces { pieces, role: None, .. } = ask(Request::Pieces { side: Color::White, role: None })
        else {
            panic!()
        };
        assert_eq!(pieces.len(), 16);
        let letters: String = pieces.iter().map(|p| p.piece.char()).collect();
        assert_eq!(letters, "KQRRBBNNPPPPPPPP");
        assert_eq!(pieces[0].sq, sq("e1"));
    }

    #[test]
    fn ranks_files_and_squares() {
        let EventKind::OnRank { pieces, .. } = ask(Request::Rank(Rank::Fifth)) else { panic!() };
        let said: Vec<(Square, char)> = pieces.iter().map(|p| (p.sq, p.piece.char())).collect();
        assert_eq!(said, [(sq("b5"), 'B'), (sq("e5"), 'p')]);
        let EventKind::OnFile { pieces, .. } = ask(Request::File(File::E)) else { panic!() };
        let said: Vec<(Square, char)> = pieces.iter().map(|p| (p.sq, p.piece.char())).collect();
        assert_eq!(said, [(sq("e1"), 'K'), (sq("e4"), 'P'), (sq("e5"), 'p'), (sq("e8"), 'k')]);
        assert_eq!(
            ask(Request::Square(sq("c6"))),
            EventKind::OnSquare { sq: sq("c6"), piece: Piece::from_char('n'), board: None, pending: None }
        );
        assert_eq!(
            ask(Request::Square(sq("d5"))),
            EventKind::OnSquare { sq: sq("d5"), piece: None, board: None, pending: None }
        );
        let EventKind::OnRank { pieces, .. } = ask(Request::Rank(Rank::Third)) else { panic!() };
        assert_eq!(squares(&pieces), [sq("f3")]);
    }

    #[test]
    fn the_position_and_the_times() {
        assert_eq!(ask(Request::Position), EventKind::Position { fen: RUY.to_owned(), pending: None });
        assert_eq!(
            ask(Request::Time),
            EventKind::Time { white_ms: 5_000_000, black_ms: 4_000_000, white_moves: 3, black_moves: 3, running: None }
        );
        assert_eq!(answer(&pos(RUY), None, &clocks(None, 3, 3), Request::LastMove), None);
    }

    #[test]
    fn moves_to_the_time_control() {
        let tc: TimeControl = "40/5400+30:1800+30".parse().unwrap();
        let got = answer(&pos(RUY), None, &clocks(Some(&tc), 28, 27), Request::MovesToControl).unwrap();
        assert_eq!(
            got,
            EventKind::MovesToControl {
                white: ToControl { moves: 28, left: Some(12), added_ms: Some(1_800_000) },
                black: ToControl { moves: 27, left: Some(13), added_ms: Some(1_800_000) },
            }
        );
        // White has passed the control, Black is about to reach it.
        let got = answer(&pos(RUY), None, &clocks(Some(&tc), 40, 39), Request::MovesToControl).unwrap();
        let EventKind::MovesToControl { white, black } = got else { panic!() };
        assert_eq!((white.left, black.left), (None, Some(1)));
        // No clock, or a control without move counts: nothing ahead.
        let got = answer(&pos(RUY), None, &clocks(None, 3, 3), Request::MovesToControl).unwrap();
        assert_eq!(
            got,
            EventKind::MovesToControl {
                white: ToControl { moves: 3, left: None, added_ms: None },
                black: ToControl { moves: 3, left: None, added_ms: None },
            }
        );
    }

    #[test]
    fn answers_keep_to_the_json_contract() {
        let json = |kind: EventKind| serde_json::to_string(&crate::Event { t: 7, kind }).unwrap();
        assert_eq!(
            json(ask(Request::Pieces { side: Color::White, role: Some(Role::Knight) })),
            r#"{"t":7,"event":"pieces","side":"white","role":"n","pieces":[{"sq":"b1","piece":"N"},{"sq":"f3","piece":"N"}]}"#
        );
        assert_eq!(
            json(ask(Request::Rank(Rank::Fifth))),
            r#"{"t":7,"event":"rank","rank":5,"pieces":[{"sq":"b5","piece":"B"},{"sq":"e5","piece":"p"}]}"#
        );
        assert_eq!(
            json(ask(Request::File(File::H))),
            r#"{"t":7,"event":"file","file":"h","pieces":[{"sq":"h1","piece":"R"},{"sq":"h2","piece":"P"},{"sq":"h7","piece":"p"},{"sq":"h8","piece":"r"}]}"#
        );
        assert_eq!(json(ask(Request::Square(sq("d5")))), r#"{"t":7,"event":"square","sq":"d5"}"#);
        let tc: TimeControl = "40/5400+30:1800+30".parse().unwrap();
        let got = answer(&pos(RUY), None, &clocks(Some(&tc), 3, 3), Request::MovesToControl).unwrap();
        assert_eq!(
            json(got),
            r#"{"t":7,"event":"moves_to_control","white":{"moves":3,"left":37,"added_ms":1800000},"black":{"moves":3,"left":37,"added_ms":1800000}}"#
        );
        // And read back.
        for line in [
            r#"{"t":7,"event":"rank","rank":5,"pieces":[]}"#,
            r#"{"t":7,"event":"file","file":"a","pieces":[{"sq":"a1","piece":"R"}]}"#,
            r#"{"t":7,"event":"square","sq":"d5","piece":"q"}"#,
        ] {
            let ev: crate::Event = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&ev).unwrap(), line);
        }
        assert!(serde_json::from_str::<crate::Event>(r#"{"t":7,"event":"rank","rank":9,"pieces":[]}"#).is_err());
        assert!(serde_json::from_str::<crate::Event>(r#"{"t":7,"event":"file","file":"i","pieces":[]}"#).is_err());
    }
}
