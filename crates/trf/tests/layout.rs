//! The files of `tests/files/` (laid out by hand from FIDE's published
//! tables, README there): a round read in FIDE's board order, its results
//! written back to exactly what the layout says, and each kind of bad input
//! named by its line and column.

use std::collections::BTreeMap;

use tactus_trf::{Code, Encoding, Layout, Outcome, Points, Problem, Title, Trf, TrfError};

fn file(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/files/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn trf(name: &str) -> Trf {
    Trf::parse(&file(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Each board's White and Black, in the round's order.
fn pairs(t: &Trf, round: u32) -> Vec<(u16, u16)> {
    let r = t.round(round).unwrap();
    for (i, b) in r.boards.iter().enumerate() {
        assert_eq!(b.number as usize, i + 1);
    }
    r.boards.iter().map(|b| (b.white, b.black)).collect()
}

fn results(list: &[(u32, Outcome)]) -> BTreeMap<u32, Outcome> {
    list.iter().copied().collect()
}

/// The file after one edit of its bytes, for the errors.
fn edited(name: &str, from: &str, to: &str) -> Result<Trf, TrfError> {
    let text = String::from_utf8(file(name)).unwrap();
    assert!(text.contains(from), "{from:?} is not in {name}");
    Trf::parse(text.replacen(from, to, 1).as_bytes())
}

#[test]
fn a_trf16_export_before_round_one() {
    let t = trf("open-round1.trf");
    assert_eq!((t.layout(), t.encoding(), t.tournament()), (Layout::Trf16, Encoding::Utf8, Some("Hall Open 2025")));
    assert_eq!(t.players().len(), 10);
    let p = t.player(3).unwrap();
    assert_eq!(
        (p.name.as_str(), p.title, p.rating, p.federation.as_deref()),
        ("Świercz, Dariusz", Some(Title::Fm), Some(2402), Some("POL"))
    );
    assert_eq!((p.fide_id, p.line), (Some(1_130_000), 14));
    let unrated = t.player(10).unwrap();
    assert_eq!((unrated.rating, unrated.fide_id, unrated.title), (None, None, None));
    // All on nought: the boards go by the higher-ranked player's starting rank.
    assert_eq!(pairs(&t, 1), [(1, 6), (7, 2), (3, 8), (9, 4)]);
    let round = t.round(1).unwrap();
    let byes: Vec<(u16, Option<Code>)> = round.unpaired.iter().map(|u| (u.player, u.code)).collect();
    assert_eq!(byes, [(5, Some(Code::HalfBye)), (10, Some(Code::PairingBye))]);
    assert!(round.boards.iter().all(|b| b.white_code.is_none() && b.black_code.is_none()));
}

#[test]
fn round_one_results_are_written_as_the_layout_says() {
    let t = trf("open-round1.trf");
    let round = t.round(1).unwrap();
    let played = results(&[
        (1, Outcome::WhiteWins),
        (2, Outcome::Draw),
        (3, Outcome::BlackWins),
        (4, Outcome::BlackWinsByForfeit),
    ]);
    let out = t.with_results(&round, &played).unwrap();
    assert_eq!(String::from_utf8(out.clone()).unwrap(), String::from_utf8(file("open-round1.results.trf")).unwrap());
    // Read back, the results are the round's.
    let back = Trf::parse(&out).unwrap();
    let codes: Vec<_> = back.round(1).unwrap().boards.iter().map(|b| (b.white_code, b.black_code)).collect();
    assert_eq!(codes[3], (Some(Code::ForfeitLoss), Some(Code::ForfeitWin)));
    assert_eq!(back.player(2).unwrap().points, Some(Points(5)));
    // A board not given keeps what the file holds.
    let some = t.with_results(&round, &results(&[(2, Outcome::Draw)])).unwrap();
    let back = Trf::parse(&some).unwrap();
    assert_eq!(back.player(1).unwrap().rounds[0].code, None);
    assert_eq!(back.player(7).unwrap().rounds[0].code, Some(Code::Draw));
    // Written twice (a correction), the second counts.
    let corrected = Trf::parse(&out).unwrap();
    let again = corrected.with_results(&corrected.round(1).unwrap(), &results(&[(2, Outcome::WhiteWins)])).unwrap();
    let back = Trf::parse(&again).unwrap();
    assert_eq!((back.player(7).unwrap().points, back.player(2).unwrap().points), (Some(Points(10)), Some(Points(0))));
}

#[test]
fn a_trf26_file_in_the_middle_of_the_tournament() {
    let t = trf("trf26-round3.trf");
    assert_eq!(t.layout(), Layout::Trf26);
    // 3-1-0 points: the scores before round 3 decide the order, then the
    // higher-ranked player's starting rank (5-3 before 7-8: both 3 and 3).
    assert_eq!(pairs(&t, 3), [(6, 1), (2, 4), (5, 3), (7, 8)]);
    let round = t.round(3).unwrap();
    let scores: Vec<(i32, i32)> = round.boards.iter().map(|b| (b.white_score.0, b.black_score.0)).collect();
    assert_eq!(scores, [(40, 40), (40, 40), (0, 30), (30, 0)]);
    // Player 9's half-point bye is already in their points (1.0 at 3-1-0).
    assert_eq!(round.unpaired.len(), 1);
    assert_eq!((round.unpaired[0].player, round.unpaired[0].code), (9, Some(Code::HalfBye)));
    assert_eq!(t.score_before(t.player(9).unwrap(), 3), Points(0));
    // Round 1 read from the same file: lowercase codes, a short game.
    assert_eq!(pairs(&t, 1), [(1, 5), (6, 2), (3, 7), (8, 4)]);
    let r1 = t.round(1).unwrap();
    assert_eq!((r1.boards[2].white_code, r1.boards[2].black_code), (Some(Code::LossUnrated), Some(Code::WinUnrated)));
    assert_eq!(t.player(9).unwrap().rounds[1].code, Some(Code::ZeroBye));
}

#[test]
fn round_three_results_by_three_one_nought() {
    let t = trf("trf26-round3.trf");
    let round = t.round(3).unwrap();
    let played = results(&[
        (1, Outcome::WhiteWins),
        (2, Outcome::Draw),
        (3, Outcome::BlackWinsByForfeit),
        (4, Outcome::BlackWins),
    ]);
    let out = t.with_results(&round, &played).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(file("trf26-round3.results.trf")).unwrap());
}

#[test]
fn an_older_windows_export() {
    let t = trf("windows-1252.trf");
    assert_eq!((t.encoding(), t.tournament()), (Encoding::Windows1252, Some("Café Cup")));
    let names: Vec<(&str, Option<Title>)> = t.players().iter().map(|p| (p.name.as_str(), p.title)).collect();
    assert_eq!(
        names,
        [
            ("Šebek, Jan", Some(Title::Gm)),
            ("Müller, Anna", Some(Title::Wgm)),
            ("Dubois, René", Some(Title::Im)),
            ("Nørgaard, Søren", Some(Title::Fm))
        ]
    );
    assert_eq!(pairs(&t, 1), [(1, 3), (4, 2)]);
    let out = t
        .with_results(&t.round(1).unwrap(), &results(&[(1, Outcome::Draw), (2, Outcome::WhiteWinsByForfeit)]))
        .unwrap();
    let input = file("windows-1252.trf");
    // The lines cut short gain the blank before the result and the result;
    // the names' bytes, the LF endings and the end-of-file mark stay.
    assert_eq!(out.len(), input.len() + 4 * 2);
    assert!(out.ends_with(b"\n\x1a"));
    let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
    assert!(lines[1].starts_with(b"001    1 m  g \x8Aebek, Jan"));
    assert!(lines[1].ends_with(b"   3 w ="), "{:?}", String::from_utf8_lossy(lines[1]));
    assert!(lines[4].ends_with(b"   2 w +"));
    assert_eq!(&lines[2][80..84], b" 0.0");
    assert_eq!(&lines[4][80..84], b" 1.0");
}

#[test]
fn a_file_that_is_not_a_trf() {
    let pgn = b"[Event \"Hall Open\"]\n[White \"Volkov, Dmitri\"]\n\n1. e4 e5 *\n";
    let e = Trf::parse(pgn).unwrap_err();
    assert_eq!((e.line, e.column), (1, 1));
    assert!(e.to_string().starts_with("line 1, column 1: not a TRF"), "{e}");
    let e = Trf::parse(b"Name;Rating\nVolkov;2601\n").unwrap_err();
    assert_eq!(e.problem, Problem::NoPlayers);
    assert_eq!(Trf::parse(b"").unwrap_err().problem, Problem::NoPlayers);
}

#[test]
fn a_round_not_paired() {
    let t = trf("open-round1.trf");
    let e = t.round(2).unwrap_err();
    assert_eq!((e.line, e.column, e.problem.clone()), (12, 102, Problem::RoundNotPaired(2)));
    assert_eq!(e.to_string(), "line 12, column 102: round 2 is not paired: no player has an opponent in its columns");
    assert!(matches!(t.round(0).unwrap_err().problem, Problem::NoSuchRound(0)));
}

#[test]
fn a_player_paired_twice() {
    // Player 9 (line 20) names 2, whom 7 plays; player 4 (line 15) still names 9.
    let t = edited(
        "open-round1.trf",
        "2100 NOR     1500000 2006/03/15  0.0    9     4 w",
        "2100 NOR     1500000 2006/03/15  0.0    9     2 w",
    )
    .unwrap();
    let e = t.round(1).unwrap_err();
    assert_eq!((e.line, e.column), (15, 92));
    assert_eq!(e.problem, Problem::PairedTwice { round: 1, player: 9, first: 2, first_line: 20, second: 4 });
    assert!(e.to_string().contains("player 9 is paired twice: with 2 (line 20) and with 4"), "{e}");
}

#[test]
fn a_name_longer_than_its_field() {
    let e = edited(
        "open-round1.trf",
        "Smith, John                       2250",
        "Smith-Jones, Jonathan Alexander Mark 2250",
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (17, 48));
    assert!(e.to_string().contains("runs past its field (columns 15–47"), "{e}");
}

#[test]
fn pairings_that_contradict_each_other() {
    let problem = |from: &str, to: &str| {
        let e = edited("open-round1.trf", from, to).unwrap().round(1).unwrap_err();
        (e.line, e.column, e.problem)
    };
    let p4 = "4600000 1988/07/08  0.0    4     9 b";
    assert_eq!(
        problem(p4, "4600000 1988/07/08  0.0    4    99 b"),
        (15, 92, Problem::UnknownOpponent { round: 1, player: 4, opponent: 99 })
    );
    assert_eq!(
        problem(p4, "4600000 1988/07/08  0.0    4     4 b"),
        (15, 92, Problem::PairedWithSelf { round: 1, player: 4 })
    );
    assert_eq!(
        problem(p4, "4600000 1988/07/08  0.0    4     9 w"),
        (15, 97, Problem::SameColour { round: 1, player: 4, opponent: 9, colour: 'w' })
    );
    assert_eq!(
        problem(p4, "4600000 1988/07/08  0.0    4     9 -"),
        (15, 97, Problem::NoColour { round: 1, player: 4, opponent: 9 })
    );
    assert_eq!(
        problem(p4, "4600000 1988/07/08  0.0    4     9 b h"),
        (15, 99, Problem::ByeWithOpponent { round: 1, player: 4, opponent: 9, code: 'H' })
    );
    assert_eq!(
        problem("1500000 2006/03/15  0.0    9     4 w", "1500000 2006/03/15  0.0    9  0000 -"),
        (15, 92, Problem::NotPairedBack { round: 1, player: 4, opponent: 9, opponent_line: 20 })
    );
}

#[test]
fn fields_out_of_place() {
    let at = |from: &str, to: &str| {
        let e = edited("open-round1.trf", from, to).unwrap_err();
        (e.line, e.column)
    };
    // One blank too many shifts round 1's block.
    assert_eq!(at("0.0    6     1 b", "0.0    6      1 b"), (17, 96));
    assert_eq!(at(" 2250 ENG", " 22S0 ENG"), (17, 49));
    assert_eq!(at("001    7 m CM", "001    1 m CM"), (18, 5));
    assert_eq!(at("012 Hall Open", "013 Hall Open"), (1, 1));
    assert_eq!(at("122 90'", "1 2 90'"), (10, 1));
}

#[test]
fn round_two_goes_by_the_scores_of_round_one() {
    let t = trf("open-round2.trf");
    // 1.0 and 1.0 (the better starting rank first: 1, then 4), then the
    // pairs with 0.5 on top (2 before 7), then 0 and 0.
    assert_eq!(pairs(&t, 2), [(8, 1), (4, 10), (2, 5), (6, 7), (9, 3)]);
    let r = t.round(2).unwrap();
    assert_eq!((r.boards[3].white_score, r.boards[3].black_score), (Points(0), Points(5)));
    assert!(r.unpaired.is_empty());
    // Round 1 as played, read back from the same file.
    let codes: Vec<_> = t.round(1).unwrap().boards.iter().map(|b| (b.white_code, b.black_code)).collect();
    assert_eq!(codes[0], (Some(Code::Win), Some(Code::Loss)));
}
