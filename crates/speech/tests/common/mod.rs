//! A whole real game as the core would report it, plus the irregularities,
//! questions and clock events a game can bring; an ending; a Chess960
//! start; and a short game heard by the player of Black.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, File, Piece, Position, Rank, Role, Square};
use tactus_clock::TimeControl;
use tactus_core::query::Clocks;
use tactus_core::{
    Article, Attempt, ClaimKind, EndReason, Event, EventKind, Fix, Irregularity, MoveInfo, Placed, Reason,
};
use tactus_speech::{Readout, moves_from_san};
use tactus_trace::Request;

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

fn position_after(start: Option<&str>, sans: &[&str]) -> Chess {
    let mut pos: Chess = match start {
        Some(f) => Fen::from_ascii(f.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap(),
        None => Chess::default(),
    };
    for s in sans {
        let m = San::from_ascii(s.as_bytes()).unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    pos
}

fn fen_after(start: Option<&str>, sans: &[&str]) -> String {
    Fen::from_position(&position_after(start, sans), EnPassantMode::Legal).to_string()
}

/// The core's answer to a question, from the real position.
fn answer(pos: &Chess, last: Option<&MoveInfo>, moves: (u32, u32), tc: Option<&str>, q: Request) -> EventKind {
    let control = tc.map(|tc| TimeControl::parse(tc).unwrap().unwrap());
    let clocks = Clocks {
        white_ms: 250_000,
        black_ms: 241_000,
        white_moves: moves.0,
        black_moves: moves.1,
        running: Some(pos.turn()),
        control: control.as_ref(),
    };
    tactus_core::query::answer(pos, last, &clocks, q).unwrap()
}

/// Events heard by one announcer.
#[allow(dead_code)] // `written.rs` reads only the events: a reader is nobody in particular
pub struct Segment {
    pub name: &'static str,
    pub events: Vec<Event>,
    pub readout: Readout,
    pub listener: Option<Color>,
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

/// The main game with everything else woven in (read out piece by piece),
/// the ending (read out by rank) with a Chess960 start, and a game heard by
/// the player of Black.
pub fn segments() -> Vec<Segment> {
    vec![
        Segment { name: "game", events: game(), readout: Readout::BySide, listener: None },
        Segment { name: "ending", events: ending(), readout: Readout::ByRank, listener: None },
        Segment { name: "listener", events: heard_by_black(), readout: Readout::BySide, listener: Some(Color::Black) },
    ]
}

fn irregularity(side: Color, ply: u32, article: Article, reason: Reason) -> Irregularity {
    Irregularity { article, side, ply, reason, stands: false, attempt: None, touched: None, fix: Vec::new() }
}

fn complete(mv: &MoveInfo, clock_ms: i64) -> EventKind {
    EventKind::Complete {
        ply: mv.ply,
        side: mv.side,
        san: mv.san.clone(),
        uci: mv.uci.clone(),
        clock_ms: Some(clock_ms),
        opponent_ms: None,
    }
}

fn game() -> Vec<Event> {
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
        // Before the move is made; `true` when the arm announced it itself.
        let announced = match ply {
            3 => {
                b.push(EventKind::Touch { sq: sq("g1"), piece: piece('N'), ply, binding: Some(Article::A4_3_1) });
                false
            }
            4 => {
                b.push(EventKind::Touch { sq: sq("e4"), piece: piece('P'), ply, binding: Some(Article::A4_3_2) });
                false
            }
            5 => {
                // A slip of the hand, taken back and corrected (D.2.8).
                let mut slip = mv.clone();
                slip.san = "d3".into();
                slip.to = sq("d3");
                b.mv(&slip);
                b.push(EventKind::Withdrawn { ply, san: "d3".into() });
                b.push(EventKind::Move { mv: mv.clone(), correction: true });
                true
            }
            10 => {
                b.push(EventKind::Irregularity(Irregularity {
                    attempt: Some(Attempt { piece: piece('b'), from: sq("c8"), to: sq("c6") }),
                    touched: Some(Placed { sq: sq("c8"), piece: piece('b') }),
                    fix: vec![Fix { piece: Some(piece('b')), from: Some(sq("c6")), to: Some(sq("c8")) }],
                    ..irregularity(Color::Black, ply, Article::A7_5_1, Reason::NotAMoveOfThatPiece)
                }));
                b.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::White, ms: 120_000 });
                false
            }
            16 => {
                // Castling begun with the rook: announced as a rook move,
                // then as the castling it became; 4.4.2 follows the press.
                let rook = moves_from_san(None, &[&sans[..15], &["Rf8"]].concat()).unwrap().pop().unwrap();
                b.mv(&rook);
                b.push(EventKind::Move { mv: mv.clone(), correction: true });
                true
            }
            17 => {
                b.push(EventKind::Irregularity(Irregularity {
                    attempt: Some(Attempt { piece: piece('N'), from: sq("d4"), to: sq("b5") }),
                    touched: Some(Placed { sq: sq("d4"), piece: piece('N') }),
                    fix: vec![
                        Fix { piece: Some(piece('N')), from: Some(sq("b5")), to: Some(sq("d4")) },
                        Fix { piece: Some(piece('p')), from: None, to: Some(sq("a7")) },
                        Fix { piece: Some(piece('P')), from: Some(sq("a6")), to: None },
                    ],
                    ..irregularity(Color::White, ply, Article::A7_5_1, Reason::LeavesKingInCheck)
                }));
                b.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 120_000 });
                false
            }
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
                false
            }
            24 => {
                b.push(EventKind::Paused);
                b.push(EventKind::ClockSet { white_ms: 3_725_000, black_ms: 3_601_000 });
                b.push(EventKind::Resumed);
                false
            }
            30 => {
                b.push(EventKind::Ambiguous {
                    ply,
                    candidates: vec!["Rfc8".into(), "Rac8".into()],
                    chosen: "Rfc8".into(),
                });
                false
            }
            _ => false,
        };
        if !announced {
            b.mv(mv);
        }
        b.push(complete(mv, 5_400_000 - 115_000 * i64::from(ply)));
        // After the press.
        match ply {
            8 => b.push(EventKind::Observation {
                article: Article::A4_7,
                side: Color::Black,
                ply,
                first: "Ne7".into(),
                then: "Nf6".into(),
            }),
            12 => b.push(EventKind::Irregularity(Irregularity {
                touched: Some(Placed { sq: sq("f6"), piece: piece('n') }),
                ..irregularity(Color::Black, ply, Article::A4_3_1, Reason::TouchMove)
            })),
            14 => b.push(EventKind::Irregularity(Irregularity {
                touched: Some(Placed { sq: sq("d4"), piece: piece('N') }),
                ..irregularity(Color::Black, ply, Article::A4_3_2, Reason::TouchMove)
            })),
            16 => b.push(EventKind::Irregularity(Irregularity {
                touched: Some(Placed { sq: sq("h8"), piece: piece('r') }),
                ..irregularity(Color::Black, ply, Article::A4_4_2, Reason::RookFirst)
            })),
            22 => {
                b.push(EventKind::Time {
                    white_ms: 4_981_000,
                    black_ms: 2_710_000,
                    white_moves: 11,
                    black_moves: 11,
                    running: Some(Color::White),
                });
                let pos = position_after(None, &sans[..i + 1]);
                b.push(EventKind::Position { fen: fen_after(None, &sans[..i + 1]), pending: None });
                b.push(EventKind::LastMove { mv: mv.clone() });
                let moves = (11, 11);
                for q in [
                    Request::Pieces { side: Color::White, role: Some(Role::Knight) },
                    Request::Pieces { side: Color::Black, role: Some(Role::Queen) },
                    Request::Pieces { side: Color::Black, role: Some(Role::Bishop) },
                    Request::Pieces { side: Color::White, role: Some(Role::Bishop) },
                    Request::Pieces { side: Color::Black, role: None },
                    Request::Rank(Rank::Fourth),
                    Request::Rank(Rank::Fifth),
                    Request::File(File::A),
                    Request::File(File::D),
                    Request::Square(sq("d5")),
                    Request::Square(sq("g7")),
                    Request::MovesToControl,
                ] {
                    b.push(answer(&pos, Some(mv), moves, Some("5400+30"), q));
                }
            }
            32 => b.push(EventKind::Claimable {
                claim: ClaimKind::Threefold,
                article: Article::A9_2,
                side: Color::White,
                ply,
            }),
            36 => b.push(EventKind::Displaced { sq: sq("h4"), piece: piece('P'), ply }),
            37 => b.push(EventKind::Irregularity(Irregularity {
                fix: vec![Fix { piece: Some(piece('P')), from: None, to: Some(sq("g2")) }],
                ..irregularity(Color::White, ply, Article::A7_4_1, Reason::Displaced)
            })),
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
    b.push(EventKind::GameOver {
        result: "0-1".parse().unwrap(),
        reason: EndReason::Checkmate,
        article: Article::A5_1_1,
        undetermined: false,
    });
    b.events
}

fn ending() -> Vec<Event> {
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
    e.push(EventKind::Position { fen: fen_after(Some(ENDING_FEN), &ending), pending: None });
    e.push(EventKind::GameOver {
        result: "1-0".parse().unwrap(),
        reason: EndReason::Resignation,
        article: Article::A5_1_2,
        undetermined: false,
    });
    e.push(EventKind::Start {
        fen: CHESS960_FEN.into(),
        chess960: true,
        time_control: Some("600+5".into()),
        white_ms: Some(600_000),
        black_ms: Some(600_000),
    });
    e.events
}

/// A rapid game with a control after two moves, heard by the player of
/// Black: an illegal move that stood and was claimed (A.5.2), a clock
/// pressed without a move, questions, the time control, a flag.
const LISTENER_TC: &str = "2/300:60";

fn heard_by_black() -> Vec<Event> {
    let sans = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6"];
    let moves = moves_from_san(None, &sans).unwrap();
    let mut b = Builder { t: 0, events: Vec::new() };
    b.push(EventKind::Start {
        fen: fen_after(None, &[]),
        chess960: false,
        time_control: Some(LISTENER_TC.into()),
        white_ms: Some(300_000),
        black_ms: Some(300_000),
    });
    let play = |b: &mut Builder, i: usize| {
        b.mv(&moves[i]);
        b.push(complete(&moves[i], 280_000 - 10_000 * i as i64));
    };
    play(&mut b, 0);
    play(&mut b, 1);
    b.push(EventKind::Touch { sq: sq("d2"), piece: piece('P'), ply: 3, binding: Some(Article::A4_3_1) });
    play(&mut b, 2);
    b.push(EventKind::Irregularity(Irregularity {
        touched: Some(Placed { sq: sq("d2"), piece: piece('P') }),
        ..irregularity(Color::White, 3, Article::A4_3_1, Reason::TouchMove)
    }));
    let pos = position_after(None, &sans[..3]);
    b.push(answer(&pos, Some(&moves[2]), (2, 1), Some(LISTENER_TC), Request::MovesToControl));
    b.push(EventKind::Touch { sq: sq("b8"), piece: piece('n'), ply: 4, binding: Some(Article::A4_3_1) });
    play(&mut b, 3);
    // White's bishop jumps its own pawn; unsupervised, the move stands
    // until Black claims (A.5.2) — and Black does.
    let mut wrong = moves[4].clone();
    wrong.san = "Bh3".into();
    wrong.uci = "f1h3".into();
    wrong.to = sq("h3");
    b.mv(&wrong);
    b.push(complete(&wrong, 250_000));
    b.push(EventKind::Irregularity(Irregularity {
        stands: true,
        attempt: Some(Attempt { piece: piece('B'), from: sq("f1"), to: sq("h3") }),
        ..irregularity(Color::White, 5, Article::A7_5_1, Reason::NotAMoveOfThatPiece)
    }));
    b.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 60_000 });
    b.push(EventKind::BoardMismatch {
        missing: vec![Placed { sq: sq("f1"), piece: piece('B') }],
        extra: vec![sq("h3")],
        fix: vec![Fix { piece: Some(piece('B')), from: Some(sq("h3")), to: Some(sq("f1")) }],
    });
    b.push(EventKind::BoardOk);
    play(&mut b, 4);
    let pos = position_after(None, &sans[..5]);
    for q in [
        Request::Pieces { side: Color::Black, role: Some(Role::Knight) },
        Request::Pieces { side: Color::White, role: Some(Role::Bishop) },
        Request::Pieces { side: Color::Black, role: Some(Role::Rook) },
        Request::Pieces { side: Color::White, role: Some(Role::Queen) },
        Request::Pieces { side: Color::White, role: None },
        Request::Rank(Rank::Fourth),
        Request::File(File::E),
        Request::Square(sq("c6")),
        Request::Time,
    ] {
        b.push(answer(&pos, Some(&moves[4]), (3, 2), Some(LISTENER_TC), q));
    }
    b.push(EventKind::Position { fen: fen_after(None, &sans[..5]), pending: None });
    b.push(EventKind::LastMove { mv: moves[4].clone() });
    b.push(EventKind::Irregularity(irregularity(Color::Black, 6, Article::A7_5_3, Reason::NoMove)));
    b.push(EventKind::Penalty { article: Article::A7_5_5, side: Color::White, ms: 60_000 });
    b.push(EventKind::TimeWarning { side: Color::Black, remaining_ms: 59_000 });
    play(&mut b, 5);
    b.push(EventKind::Claimable { claim: ClaimKind::Fifty, article: Article::A9_3, side: Color::White, ply: 7 });
    b.push(EventKind::TimeWarning { side: Color::White, remaining_ms: 10_000 });
    b.push(EventKind::GameOver {
        result: "0-1".parse().unwrap(),
        reason: EndReason::FlagFall,
        article: Article::A6_9,
        undetermined: false,
    });
    b.events
}
