//! A whole real game as the core would report it, plus the irregularities,
//! requests and clock events a game can bring.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Piece, Position, Square};
use tactus_core::{
    Article, Attempt, ClaimKind, EndReason, Event, EventKind, Fix, Irregularity, MoveInfo, Placed, Reason,
};
use tactus_speech::moves_from_san;

/// Cole–Verma, British Championship 2017, round 6 (0-1): castling on both
/// sides, captures, disambiguation (Rfc8, Rab8), checkmate.
pub const GAME: &str = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 g6 Be3 Bg7 f3 Nc6 Qd2 O-O O-O-O Nxd4 Bxd4 Be6 Kb1 Nd7 \
                        h4 Bxd4 Qxd4 Qa5 h5 Qe5 Qd2 Rfc8 a3 Rab8 hxg6 fxg6 f4 Qa5 f5 Bf7 Qh6 Nf8 g4 Rxc3 bxc3 Qxa3 \
                        Qc1 Qa2#";

/// A constructed ending: en passant, promotion with capture, under-promotion.
pub const ENDING_FEN: &str = "r3k3/1P4p1/8/5P2/8/8/8/4K3 b - - 0 1";
pub const ENDING: &str = "g5 fxg6 Kd7 bxa8=Q Ke6 g7 Kf7 g8=N Ke6";

pub const CHESS960_FEN: &str = "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1";

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn piece(c: char) -> Piece {
    Piece::from_char(c).unwrap()
}

fn fen_after(start: Option<&str>, sans: &[&str]) -> String {
    let mut pos: Chess = match start {
        Some(f) => Fen::from_ascii(f.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap(),
        None => Chess::default(),
    };
    for s in sans {
        let m = San::from_ascii(s.as_bytes()).unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    Fen::from_position(&pos, EnPassantMode::Legal).to_string()
}

struct Builder {
    t: u64,
    events: Vec<Event>,
}

impl Builder {
    fn push(&mut self, kind: EventKind) {
        self.t += 1500;
        self.events.push(Event { t: self.t, kind });
    }
    fn mv(&mut self, mv: &MoveInfo) {
        self.push(EventKind::Move { mv: mv.clone(), correction: false });
    }
}

/// The main game with everything else woven in, then the ending, then a
/// Chess960 start.
pub fn events() -> (Vec<Event>, Vec<Event>) {
    let sans: Vec<&str> = GAME.split_whitespace().collect();
    let moves = moves_from_san(None, &sans).unwrap();
    let mut b = Builder { t: 0, events: Vec::new() };
    b.push(EventKind::Start {
        fen: fen_after(None, &[]),
        chess960: false,
        time_control: Some("5400+30".into()),
        white_ms: Some(5_400_000),
        black_ms: Some(5_400_000),
    });
    for (i, mv) in moves.iter().enumerate() {
        let ply = mv.ply;
        match ply {
            3 => b.push(EventKind::Touch { sq: sq("g1"), piece: piece('N'), ply, binding: Some(Article::A4_3_1) }),
            4 => b.push(EventKind::Touch { sq: sq("e4"), piece: piece('P'), ply, binding: Some(Article::A4_3_2) }),
            5 => {
                // A slip of the hand, taken back and corrected (D.2.8).
                let mut slip = mv.clone();
                slip.san = "d3".into();
                slip.to = sq("d3");
                b.mv(&slip);
                b.push(EventKind::Withdrawn { ply, san: "d3".into() });
                b.push(EventKind::Move { mv: mv.clone(), correction: true });
                continue;
            }
            9 => {
                b.push(EventKind::Irregularity(Irregularity {
                    article: Article::A7_5_1,
                    side: Color::White,
                    ply,
                    reason: Reason::NotAMoveOfThatPiece,
                    detail: "Bf1-f3 is not a bishop move".into(),
                    attempt: Some(Attempt { piece: piece('B'), from: sq("f1"), to: sq("f3") }),
                    touched: None,
                    fix: vec![Fix { piece: Some(piece('B')), from: Some(sq("f3")), to: Some(sq("f1")) }],
                }));
                b.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 120_000 });
            }
            12 => b.push(EventKind::Irregularity(Irregularity {
                article: Article::A4_3_1,
                side: Color::Black,
                ply,
                reason: Reason::TouchMove,
                detail: "touched Nf6 must move".into(),
                attempt: None,
                touched: Some(Placed { sq: sq("f6"), piece: piece('n') }),
                fix: vec![],
            })),
            14 => b.push(EventKind::Irregularity(Irregularity {
                article: Article::A4_3_2,
                side: Color::Black,
                ply,
                reason: Reason::TouchMove,
                detail: "touched Nd4 must be captured".into(),
                attempt: None,
                touched: Some(Placed { sq: sq("d4"), piece: piece('N') }),
                fix: vec![],
            })),
            17 => b.push(EventKind::Irregularity(Irregularity {
                article: Article::A7_5_1,
                side: Color::White,
                ply,
                reason: Reason::LeavesKingInCheck,
                detail: "Ng1 would leave the king in check".into(),
                attempt: Some(Attempt { piece: piece('N'), from: sq("d4"), to: sq("b5") }),
                touched: None,
                fix: vec![
                    Fix { piece: Some(piece('N')), from: Some(sq("b5")), to: Some(sq("d4")) },
                    Fix { piece: Some(piece('p')), from: None, to: Some(sq("a7")) },
                    Fix { piece: Some(piece('P')), from: Some(sq("a6")), to: None },
                ],
            })),
            20 => {
                b.push(EventKind::BoardMismatch {
                    missing: vec![Placed { sq: sq("d5"), piece: piece('p') }],
                    extra: vec![sq("e5")],
                    fix: vec![Fix { piece: Some(piece('p')), from: Some(sq("e5")), to: Some(sq("d5")) }],
                });
                b.push(EventKind::BoardMismatch {
                    missing: vec![
                        Placed { sq: sq("c1"), piece: piece('K') },
                        Placed { sq: sq("a7"), piece: piece('p') },
                    ],
                    extra: vec![sq("b1"), sq("h4")],
                    fix: vec![],
                });
                b.push(EventKind::BoardOk);
            }
            24 => {
                b.push(EventKind::Paused);
                b.push(EventKind::ClockSet { white_ms: 3_725_000, black_ms: 3_601_000 });
                b.push(EventKind::Resumed);
            }
            30 => b.push(EventKind::Ambiguous {
                ply,
                candidates: vec!["Rfc8".into(), "Rac8".into()],
                chosen: "Rfc8".into(),
            }),
            _ => {}
        }
        b.mv(mv);
        let clock = 5_400_000 - 115_000 * i64::from(ply);
        b.push(EventKind::Complete {
            ply,
            side: mv.side,
            san: mv.san.clone(),
            uci: mv.uci.clone(),
            clock_ms: Some(clock),
            opponent_ms: None,
        });
        match ply {
            8 => b.push(EventKind::Observation {
                article: Article::A4_7,
                side: Color::Black,
                ply,
                detail: "Nf6 rested on e7 first".into(),
                first: "Ne7".into(),
                then: "Nf6".into(),
            }),
            22 => {
                b.push(EventKind::Time {
                    white_ms: 4_981_000,
                    black_ms: 2_710_000,
                    white_moves: 11,
                    black_moves: 11,
                    running: Some(Color::White),
                });
                b.push(EventKind::Position { fen: fen_after(None, &sans[..i + 1]) });
                b.push(EventKind::LastMove { mv: mv.clone() });
            }
            32 => b.push(EventKind::Claimable {
                claim: ClaimKind::Threefold,
                article: Article::A9_2,
                side: Color::White,
                ply,
            }),
            36 => b.push(EventKind::Displaced { sq: sq("h4"), piece: piece('P'), ply }),
            40 => b.push(EventKind::TimeWarning { side: Color::Black, remaining_ms: 59_000 }),
            41 => b.push(EventKind::Time {
                white_ms: 340_000,
                black_ms: 61_000,
                white_moves: 21,
                black_moves: 20,
                running: None,
            }),
            _ => {}
        }
    }
    b.push(EventKind::GameOver { result: "0-1".into(), reason: EndReason::Checkmate, article: Article::A5_1_1 });

    let mut e = Builder { t: 0, events: Vec::new() };
    e.push(EventKind::Start {
        fen: ENDING_FEN.into(),
        chess960: false,
        time_control: None,
        white_ms: None,
        black_ms: None,
    });
    let ending: Vec<&str> = ENDING.split_whitespace().collect();
    for mv in moves_from_san(Some(ENDING_FEN), &ending).unwrap() {
        e.mv(&mv);
    }
    e.push(EventKind::Position { fen: fen_after(Some(ENDING_FEN), &ending) });
    e.push(EventKind::GameOver { result: "1-0".into(), reason: EndReason::Resignation, article: Article::A5_1_2 });
    e.push(EventKind::Start {
        fen: CHESS960_FEN.into(),
        chess960: true,
        time_control: Some("600+5".into()),
        white_ms: Some(600_000),
        black_ms: Some(600_000),
    });
    (b.events, e.events)
}
