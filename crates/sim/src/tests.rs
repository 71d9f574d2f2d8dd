use std::collections::HashMap;

use shakmaty::san::SanPlus;
use shakmaty::{Bitboard, CastlingSide, Color, Move, Position, Role, Square};
use tactus_trace::{Entry, Input, Record, TraceWriter, Variant, read_str};

use crate::{Expect, GameSpec, Profile, random_game, simulate};

const GAMES: u64 = 24;

/// Every edge of one square, in order.
fn edges_by_square(trace: &[Entry]) -> HashMap<Square, Vec<(u64, bool)>> {
    let mut by_square: HashMap<Square, Vec<(u64, bool)>> = HashMap::new();
    for e in trace {
        if let Record::Edge { sq, on, .. } = e.record {
            by_square.entry(sq).or_default().push((e.t, on));
        }
    }
    by_square
}

/// The physical facts the recogniser relies on: time order, one `end` at the
/// end, bounce clusters of 1–4 ms steps that settle on the real state, nothing
/// 6–19 ms apart on a square, transients 30–90 ms, anything else seen
/// occupied ≥ 200 ms, squares emptied ≥ 20 ms, presses 150–1200 ms after the
/// last edge and lifts ≥ 200 ms after the opponent's press.
fn check_physics(start: Bitboard, trace: &[Entry]) {
    check_squares(start, trace);
    check_press_timing(trace);
}

/// Time order, one `end` at the end, and every square's edges physical:
/// bounce, transients, holds.
fn check_squares(start: Bitboard, trace: &[Entry]) {
    assert!(trace.windows(2).all(|w| w[0].t <= w[1].t), "time goes backwards");
    assert_eq!(trace.last().map(|e| &e.record), Some(&Record::End));
    assert_eq!(trace.iter().filter(|e| e.record == Record::End).count(), 1);
    let end = trace.last().expect("not empty").t;
    let last_press = trace.iter().rev().find(|e| matches!(e.record, Record::Clock(_))).expect("a press").t;
    assert_eq!(end, last_press + 2_000);

    for (sq, edges) in edges_by_square(trace) {
        let mut state = start.contains(sq);
        // (first, last, now on) per settled contact
        let mut clusters: Vec<(u64, u64, bool)> = Vec::new();
        let mut i = 0;
        while i < edges.len() {
            let (first, on) = edges[i];
            assert_eq!(on, !state, "{sq} at {first}: an edge that does not change the settled state");
            let mut j = i;
            while j + 1 < edges.len() && edges[j + 1].0 - edges[j].0 <= 5 {
                let gap = edges[j + 1].0 - edges[j].0;
                assert!((1..=4).contains(&gap), "{sq} at {}: bounce step of {gap} ms", edges[j].0);
                assert_ne!(edges[j + 1].1, edges[j].1, "{sq} at {}: bounce does not alternate", edges[j].0);
                j += 1;
            }
            assert!(j - i <= 6, "{sq} at {first}: more than 6 bounces");
            assert_eq!(edges[j].1, on, "{sq} at {first}: bounce settles on the wrong state");
            state = on;
            clusters.push((first, edges[j].0, on));
            i = j + 1;
        }
        for w in clusters.windows(2) {
            let ((first, last, on), (next, _, _)) = (w[0], w[1]);
            let held = next - last;
            if on {
                let transient = first == last && (30..=90).contains(&held);
                assert!(transient || held >= 200, "{sq} at {first}: occupied for {held} ms");
            } else {
                assert!(held >= 20, "{sq} at {first}: empty for only {held} ms");
            }
        }
    }
}

/// Presses 150–1200 ms after the last edge, lifts ≥ 200 ms after the
/// opponent's press: the timing of every profile but blitz.
fn check_press_timing(trace: &[Entry]) {
    let mut prev_press = 0;
    let mut last_edge = None;
    for e in trace {
        match e.record {
            Record::Edge { .. } => {
                if last_edge.is_none() {
                    assert!(
                        e.t >= prev_press + 200,
                        "first lift at {} only {} ms after the press",
                        e.t,
                        e.t - prev_press
                    );
                }
                last_edge = Some(e.t);
            }
            Record::Clock(_) => {
                if let Some(last) = last_edge {
                    assert!(
                        (150..=1_200).contains(&(e.t - last)),
                        "press at {} {} ms after the last edge",
                        e.t,
                        e.t - last
                    );
                }
                prev_press = e.t;
                last_edge = None;
            }
            _ => {}
        }
    }
}

/// Occupancy after each press.
fn occupancy_at_presses(start: Bitboard, trace: &[Entry]) -> Vec<(Color, Bitboard)> {
    let mut occ = start;
    let mut out = Vec::new();
    for e in trace {
        match e.record {
            Record::Edge { sq, on, .. } => {
                occ.set(sq, on);
            }
            Record::Clock(side) => out.push((side, occ)),
            _ => {}
        }
    }
    out
}

/// The promotion inputs between each press and the one before.
fn promotions_per_press(trace: &[Entry]) -> Vec<Vec<Role>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    for e in trace {
        match e.record {
            Record::Input(Input::Promote(role)) => current.push(role),
            Record::Clock(_) => out.push(std::mem::take(&mut current)),
            _ => {}
        }
    }
    out
}

/// Checks a trace of a profile without irregular acts against the game.
fn check_regular(spec: &GameSpec, profile: Profile, seed: u64) -> (Vec<Entry>, Expect) {
    let (trace, expect) = simulate(spec, profile, seed);
    let mut pos = spec.start_position().expect("legal start");
    check_physics(pos.board().occupied(), &trace);
    let presses = occupancy_at_presses(pos.board().occupied(), &trace);
    assert_eq!(presses.len(), expect.moves_san.len(), "one press per move");
    let promotions = promotions_per_press(&trace);
    for (i, ((side, occ), san)) in presses.iter().zip(&expect.moves_san).enumerate() {
        let m = spec.moves[i];
        assert_eq!(*side, pos.turn(), "ply {}: the mover presses", i + 1);
        assert_eq!(*san, SanPlus::from_move(pos.clone(), m).to_string(), "ply {}", i + 1);
        pos.play_unchecked(m);
        assert_eq!(*occ, pos.board().occupied(), "ply {} ({san}): occupancy after the press", i + 1);
        let under = m.promotion().filter(|&r| r != Role::Queen);
        assert_eq!(promotions[i], under.into_iter().collect::<Vec<_>>(), "ply {}: promotion selector", i + 1);
    }
    for irr in &expect.irregularities {
        assert!(profile == Profile::Hostile && irr.article == "4.4.2", "unexpected {irr:?}");
        let m = spec.moves[irr.ply as usize - 1];
        assert!(m.is_castle(), "4.4.2 on a move that is not castling");
    }
    (trace, expect)
}

fn san_spec(start: &str, chess960: bool, sans: &[&str]) -> GameSpec {
    let variant = if chess960 { Variant::Chess960 } else { Variant::Standard };
    GameSpec::from_san(variant, start.parse().expect("fen"), sans).expect("legal moves")
}

#[test]
fn regular_profiles_replay_the_game() {
    for profile in [Profile::Clean, Profile::Realistic, Profile::Hostile] {
        for seed in 0..GAMES {
            let spec = random_game(seed, 240, seed % 3 == 0);
            check_regular(&spec, profile, seed);
        }
    }
}

#[test]
fn random_games_contain_every_kind_of_move() {
    let (mut castles, mut promotions, mut under, mut en_passant) = (0, 0, 0, 0);
    for seed in 0..GAMES {
        for m in random_game(seed, 240, seed % 2 == 0).moves {
            castles += usize::from(m.is_castle());
            promotions += usize::from(m.is_promotion());
            under += usize::from(m.promotion().is_some_and(|r| r != Role::Queen));
            en_passant += usize::from(m.is_en_passant());
        }
    }
    assert!(
        castles >= 10 && promotions >= 10 && under >= 5 && en_passant >= 3,
        "{castles} {promotions} {under} {en_passant}"
    );
}

#[test]
fn deterministic_for_a_seed() {
    let spec = random_game(5, 120, false);
    for profile in Profile::ALL {
        assert_eq!(simulate(&spec, profile, 9), simulate(&spec, profile, 9));
    }
    assert_ne!(simulate(&spec, Profile::Hostile, 9).0, simulate(&spec, Profile::Hostile, 10).0);
    assert_eq!(random_game(3, 80, true).moves, random_game(3, 80, true).moves);
}

#[test]
fn round_trip_through_the_trace_format() {
    let spec = random_game(11, 160, true);
    let (trace, _) = simulate(&spec, Profile::Hostile, 11);
    let mut writer = TraceWriter::new(Vec::new());
    writer.write_header(&spec.header()).expect("write");
    for e in &trace {
        writer.write_entry(e).expect("write");
    }
    let text = String::from_utf8(writer.into_inner()).expect("utf-8");
    let (header, entries) = read_str(&text).expect("a valid trace");
    assert_eq!(header, spec.header());
    assert_eq!(entries, trace);
}

/// Bounce, slides, rests, short capture off-times and the other hostile
/// handling all show up, within the measured ranges.
#[test]
fn handling_statistics() {
    let count = |profile: Profile| {
        let (mut bounces, mut transients, mut rests, mut short_offs, mut edges) = (0, 0, 0, 0, 0);
        for seed in 0..GAMES {
            let spec = random_game(seed, 200, false);
            let (trace, _) = simulate(&spec, profile, seed);
            for (_, es) in edges_by_square(&trace) {
                edges += es.len();
                bounces += es.windows(2).filter(|w| w[1].0 - w[0].0 <= 5).count();
            }
            // Pulses between settled edges; a rest is set down and lifted again within one move.
            let mut last: HashMap<Square, u64> = HashMap::new();
            let mut press = 0;
            for e in &trace {
                let Record::Edge { sq, on, .. } = e.record else {
                    press = e.t;
                    continue;
                };
                if let Some(&prev) = last.get(&sq) {
                    let held = e.t - prev;
                    match on {
                        false if held > 5 && held <= 90 => transients += 1,
                        false if (200..=600).contains(&held) && prev > press => rests += 1,
                        true if held > 5 && held < 60 => short_offs += 1,
                        _ => {}
                    }
                }
                last.insert(sq, e.t);
            }
        }
        (bounces, transients, rests, short_offs, edges)
    };
    let clean = count(Profile::Clean);
    assert_eq!((clean.0, clean.1, clean.3), (0, 0, 0), "clean has no bounce, slides or short off-times");
    let realistic = count(Profile::Realistic);
    let hostile = count(Profile::Hostile);
    assert!(realistic.0 * 5 > realistic.4, "bounce on a good part of the contacts: {realistic:?}");
    assert!(realistic.1 > 0 && hostile.1 > 2 * realistic.1, "more slides in hostile: {realistic:?} {hostile:?}");
    assert!(
        hostile.2 > realistic.2 && hostile.3 > 0,
        "rests and short off-times in hostile: {realistic:?} {hostile:?}"
    );
}

/// The squares lifted (going empty) during one ply, up to its press.
fn lifted_in_ply(trace: &[Entry], ply: usize) -> Bitboard {
    let mut presses = 0;
    let mut lifted = Bitboard::EMPTY;
    for e in trace {
        match e.record {
            Record::Clock(_) => presses += 1,
            Record::Edge { sq, on: false, .. } if presses == ply - 1 => lifted.add(sq),
            _ => {}
        }
        if presses == ply {
            break;
        }
    }
    lifted
}

/// Chess960 castling where the rook stays, the king stays, or the two swap:
/// the king is always lifted and the rook whenever it moves.
#[test]
fn chess960_castling_lifts_what_changes_hands() {
    let cases: [(&str, &[&str]); 4] = [
        // King-only O-O-O: the rook is on d1 already.
        (
            "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1",
            &["b3", "b6", "Bb2", "Bb7", "c3", "c6", "Bc2", "Bc7", "O-O-O"],
        ),
        // O-O with the king going to the rook's square.
        ("nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1", &["Ne3", "Ne6", "O-O", "O-O"]),
        // Rook-only O-O-O: the king is on c1 already.
        (
            "rnkbbqnr/pppppppp/8/8/8/8/PPPPPPPP/RNKBBQNR w HAha - 0 1",
            &["Nc3", "Nc6", "e4", "e5", "Be2", "Be7", "O-O-O", "O-O-O"],
        ),
        // Swap: king f1 and rook g1 trade squares.
        ("nbbqrkrn/pppppppp/8/8/8/8/PPPPPPPP/NBBQRKRN w GEge - 0 1", &["O-O", "O-O"]),
    ];
    for (fen, sans) in cases {
        let spec = san_spec(fen, true, sans);
        let mut pos = spec.start_position().expect("legal");
        let mut plies = Vec::new();
        for (i, &m) in spec.moves.iter().enumerate() {
            if let Move::Castle { king, rook } = m {
                let side = CastlingSide::from_king_side(rook.file() > king.file());
                let mut must = Bitboard::from(king);
                if rook != side.rook_to(pos.turn()) {
                    must.add(rook);
                }
                plies.push((i + 1, must));
            }
            pos.play_unchecked(m);
        }
        assert!(!plies.is_empty(), "{fen}: castles");
        for profile in [Profile::Clean, Profile::Realistic, Profile::Hostile] {
            for seed in 0..GAMES {
                let (trace, _) = check_regular(&spec, profile, seed);
                for &(ply, must) in &plies {
                    assert!(
                        lifted_in_ply(&trace, ply).is_superset(must),
                        "{fen} ply {ply} {profile}: {must:?} not all lifted"
                    );
                }
            }
        }
    }
}

#[test]
fn hostile_castles_rook_first_sometimes() {
    let spec = san_spec(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        false,
        &["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O", "Nf6", "d3", "O-O"],
    );
    let mut flagged = 0;
    for seed in 0..GAMES {
        let (trace, expect) = check_regular(&spec, Profile::Hostile, seed);
        for irr in &expect.irregularities {
            let side = if irr.ply == 7 { Color::White } else { Color::Black };
            assert_eq!(irr.side, side);
            let (rook, king) = if side == Color::White { (Square::H1, Square::E1) } else { (Square::H8, Square::E8) };
            let first = trace.iter().find_map(|e| match e.record {
                Record::Edge { sq, on: false, .. } if sq == rook || sq == king => Some(sq),
                _ => None,
            });
            // The first lift of the castling ply, among king and rook, is the rook.
            let before: Vec<&Entry> = trace.iter().filter(|e| matches!(e.record, Record::Clock(_))).collect();
            let start = before[irr.ply as usize - 2].t;
            let first_in_ply = trace.iter().filter(|e| e.t > start).find_map(|e| match e.record {
                Record::Edge { sq, on: false, .. } if sq == rook || sq == king => Some(sq),
                _ => None,
            });
            assert!(first.is_some());
            assert_eq!(first_in_ply, Some(rook), "4.4.2 only for rook-first castling");
            flagged += 1;
        }
    }
    assert!(flagged > 0, "hostile castles rook first sometimes");
}

/// Irregular: each illegal act adds a press; the mover presses twice in a
/// row; a second illegal act by one side ends the game; positions after the
/// accepted presses are the game's.
#[test]
fn irregular_acts_and_rulings() {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut forfeits = 0;
    for seed in 0..3 * GAMES {
        let spec = random_game(seed, 240, seed % 4 == 0);
        let (trace, expect) = simulate(&spec, Profile::Irregular, seed);
        let mut pos = spec.start_position().expect("legal");
        check_physics(pos.board().occupied(), &trace);
        let presses = occupancy_at_presses(pos.board().occupied(), &trace);
        let mut acts: HashMap<Color, u32> = HashMap::new();
        let mut next = presses.iter();
        let plies =
            expect.moves_san.len() + usize::from(expect.result.is_some() && expect.moves_san.len() < spec.moves.len());
        for ply in 1..=plies {
            let side = pos.turn();
            let here: Vec<&str> =
                expect.irregularities.iter().filter(|i| i.ply as usize == ply).map(|i| i.article).collect();
            for article in &here {
                *seen.entry(article).or_default() += 1;
            }
            assert!(expect.irregularities.iter().filter(|i| i.ply as usize == ply).all(|i| i.side == side));
            let before = pos.board().occupied();
            if here.contains(&"7.5.1") || here.contains(&"7.5.3") {
                let (presser, occ) = next.next().expect("the irregular press");
                assert_eq!(*presser, side);
                let changed = *occ ^ before;
                if here.contains(&"7.5.3") {
                    assert_eq!(changed, Bitboard::EMPTY, "ply {ply}: 7.5.3 without a move");
                } else {
                    assert_eq!(changed.count(), 2, "ply {ply}: one piece moved illegally");
                    assert!((changed & pos.us()).count() == 1, "ply {ply}: an own piece moved");
                }
                let n = acts.entry(side).or_default();
                *n += 1;
                if *n == 2 {
                    assert_eq!(ply, plies, "the second illegal act ends the game");
                    assert_eq!(next.next(), None);
                    forfeits += 1;
                    let expected = if !crate::game::can_mate(&pos, !side) {
                        "1/2-1/2"
                    } else if side == Color::White {
                        "0-1"
                    } else {
                        "1-0"
                    };
                    assert_eq!(expect.result.as_deref(), Some(expected));
                    break;
                }
            }
            let m = spec.moves[ply - 1];
            pos.play_unchecked(m);
            let (presser, occ) = next.next().expect("the press of the move");
            assert_eq!(*presser, side);
            assert_eq!(*occ, pos.board().occupied(), "ply {ply}: occupancy after the move");
        }
        assert_eq!(next.next(), None, "no presses after the game");
        assert!(acts.values().all(|&n| n <= 2));
    }
    for article in ["7.5.1", "7.5.3", "4.3.1"] {
        assert!(seen.get(article).copied().unwrap_or(0) >= 3, "{article}: {seen:?}");
    }
    assert!(forfeits > 0, "some games are lost by a second illegal act");
}

#[test]
fn think_times_are_kept() {
    let mut spec = random_game(2, 40, false);
    spec.think_ms = (0..spec.moves.len() as u64).map(|i| 5_000 + 100 * i).collect();
    let (trace, _) = simulate(&spec, Profile::Realistic, 2);
    let presses: Vec<u64> = trace.iter().filter(|e| matches!(e.record, Record::Clock(_))).map(|e| e.t).collect();
    let mut prev = 0;
    for (press, think) in presses.iter().zip(&spec.think_ms) {
        assert_eq!(press - prev, *think);
        prev = *press;
    }
}

/// Every square a move changes, and those a sliding piece passes over.
fn move_squares(m: Move, turn: Color) -> Bitboard {
    let mut squares = Bitboard::EMPTY;
    match m {
        Move::Normal { from, to, .. } => {
            squares.add(from);
            squares.add(to);
            squares |= shakmaty::attacks::between(from, to);
        }
        Move::EnPassant { from, to } => {
            squares.add(from);
            squares.add(to);
            squares.add(Square::from_coords(to.file(), from.rank()));
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(rook.file() > king.file());
            for sq in [king, rook, side.king_to(turn), side.rook_to(turn)] {
                squares.add(sq);
            }
        }
        Move::Put { to, .. } => squares.add(to),
    }
    squares
}

/// Blitz: one press per move, each side's in turn, every square physical,
/// no irregularity — and the presses come at blitz times: some a few ms
/// before the piece lands (the board then lacks only the move's landing),
/// some only once the opponent's reply has begun (6.2.2).
#[test]
fn blitz_presses_before_the_piece_lands_and_after_the_reply_began() {
    let (mut early, mut late) = (0, 0);
    for seed in 0..GAMES {
        let spec = random_game(seed, 160, seed % 5 == 0);
        let (trace, expect) = simulate(&spec, Profile::Blitz, seed);
        let mut pos = spec.start_position().expect("legal start");
        check_squares(pos.board().occupied(), &trace);
        assert!(expect.irregularities.is_empty(), "{:?}", expect.irregularities);
        let presses = occupancy_at_presses(pos.board().occupied(), &trace);
        assert_eq!(presses.len(), expect.moves_san.len(), "one press per move");
        for (i, (side, occ)) in presses.iter().enumerate() {
            let m = spec.moves[i];
            assert_eq!(*side, pos.turn(), "ply {}: the mover presses", i + 1);
            let squares = move_squares(m, pos.turn());
            pos.play_unchecked(m);
            let differ = *occ ^ pos.board().occupied();
            if differ.is_empty() {
                continue;
            }
            if differ.is_subset(squares) {
                early += 1;
            } else {
                let next = spec.moves.get(i + 1).copied().expect("a reply after a late press");
                assert!(differ.is_subset(move_squares(next, pos.turn())), "ply {}: the reply under way", i + 1);
                late += 1;
            }
        }
    }
    assert!(early > 10 && late > 5, "blitz presses: {early} early, {late} late");
}
