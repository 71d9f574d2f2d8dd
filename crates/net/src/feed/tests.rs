use super::*;
use crate::teams::{HomeAway, Team};
use shakmaty::san::San;
use tactus_core::{Irregularity, Reason};

fn ev(t: Ms, kind: EventKind) -> Event {
    Event { t, kind }
}

fn start(t: Ms, fen: &str, chess960: bool, clock: Option<i64>) -> Event {
    ev(
        t,
        EventKind::Start {
            fen: fen.to_string(),
            chess960,
            time_control: clock.map(|_| "300+2".to_string()),
            white_ms: clock,
            black_ms: clock,
        },
    )
}

/// `complete` events for a line of SAN moves from `fen`, one press a second.
fn line(fen: &str, chess960: bool, sans: &[&str], first_ply: u32) -> Vec<Event> {
    let mut pos = parse_position(fen, chess960).unwrap();
    let mut out = Vec::new();
    for (i, san) in sans.iter().enumerate() {
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        let side = pos.turn();
        let uci = m.to_uci(mode(chess960)).to_string();
        pos = pos.play(m).unwrap();
        let i = i as u32;
        out.push(ev(
            1000 * (u64::from(i) + 1),
            EventKind::Complete {
                ply: first_ply + i,
                side,
                san: san.to_string(),
                uci,
                clock_ms: Some(300_000 - 1000 * i64::from(i)),
                opponent_ms: Some(300_000 - 500 * i64::from(i)),
            },
        ));
    }
    out
}

fn game_over(t: Ms, result: &str, reason: EndReason) -> Event {
    ev(
        t,
        EventKind::GameOver { result: result.parse().unwrap(), reason, article: Article::A5_1_2, undetermined: false },
    )
}

/// The PGN with its lines joined, to find movetext across line breaks.
fn flat(pgn: &str) -> String {
    pgn.replace('\n', " ")
}

fn tags() -> Tags {
    Tags {
        white: Some("Carlsen, Magnus".into()),
        black: Some("Nepo \"Ian\"".into()),
        event: Some("Club night".into()),
        date: Some("2025.11.21".into()),
        ..Tags::default()
    }
}

/// The players' titles, ratings and FIDE IDs, when the board's config
/// gives them, as PGN's tags (Lichess's broadcasts read them).
#[test]
fn the_players_titles_ratings_and_fide_ids_are_tags() {
    let mut hall = Hall::new("club");
    let tags = Tags {
        white_title: Some("gm".parse().unwrap()),
        white_elo: Some(2830),
        white_fide_id: Some(1_503_014),
        black_fide_id: Some(24_101_605),
        ..tags()
    };
    hall.set_tags("1", tags);
    let pgn = hall.game_pgn("1").unwrap();
    let head: Vec<&str> = pgn.lines().skip(7).take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        head,
        ["[WhiteTitle \"GM\"]", "[WhiteElo \"2830\"]", "[WhiteFideId \"1503014\"]", "[BlackFideId \"24101605\"]"]
    );
    assert!("XM".parse::<Title>().unwrap_err().to_string().contains("GM, IM, FM, CM, WGM, WIM, WFM, WCM"));
    // As the wire carries them.
    let json = serde_json::to_value(&hall.feed("1").unwrap().tags).unwrap();
    assert_eq!((&json["white_title"], &json["white_elo"], &json.get("black_elo")), (&"GM".into(), &2830.into(), &None));
}

#[test]
fn a_game_in_pgn_with_clocks_and_result() {
    let mut hall = Hall::new("club");
    hall.set_tags("1", tags());
    hall.apply("1", &start(0, STANDARD_FEN, false, Some(300_000)), None);
    for e in line(STANDARD_FEN, false, &["e4", "e5", "Nf3", "Nc6", "Bb5"], 1) {
        hall.apply("1", &e, None);
    }
    assert_eq!(hall.feed("1").unwrap().result, None);
    assert!(hall.game_pgn("1").unwrap().ends_with("3. Bb5 {[%clk 0:04:56]} *\n\n"));
    hall.apply("1", &game_over(9000, "1-0", EndReason::Resignation), None);
    let expected = r#"[Event "Club night"]
[Site "?"]
[Date "2025.11.21"]
[Round "?"]
[White "Carlsen, Magnus"]
[Black "Nepo \"Ian\""]
[Result "1-0"]
[TimeControl "300+2"]
[Termination "normal"]

1. e4 {[%clk 0:05:00]} 1... e5 {[%clk 0:04:59]} 2. Nf3 {[%clk 0:04:58]}
2... Nc6 {[%clk 0:04:57]} 3. Bb5 {[%clk 0:04:56]} 1-0

"#;
    assert_eq!(hall.game_pgn("1").unwrap(), expected);
    assert_eq!(hall.games_pgn(), expected);
    let feed = hall.feed("1").unwrap();
    assert_eq!(feed.fen, "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3");
    assert_eq!(
        feed.moves[2],
        FeedMove {
            ply: 3,
            san: MoveName::read("Nf3"),
            uci: "g1f3".parse().unwrap(),
            clock_ms: Some(298_000),
            off_record: false
        }
    );
    assert_eq!(feed.end_reason, Some(EndReason::Resignation));
    assert_eq!(feed.clocks.running, None);
}

#[test]
fn chess960_and_set_up_positions_get_their_tags_and_move_numbers() {
    let fen960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let mut feed = BoardFeed::new("a");
    feed.apply(&start(0, fen960, true, None), None);
    for e in line(fen960, true, &["g3", "Nd7", "Nf3"], 17) {
        feed.apply(&e, None);
    }
    let pgn = feed.pgn(None);
    assert!(pgn.contains("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n"));
    assert!(
        flat(&pgn).contains("9. g3 {[%clk 0:05:00]} 9... Nd7 {[%clk 0:04:59]} 10. Nf3 {[%clk 0:04:58]} *"),
        "{pgn}"
    );
    assert!(!pgn.contains("TimeControl"));

    let black_to_move = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let mut feed = BoardFeed::new("b");
    feed.apply(&start(0, black_to_move, false, None), None);
    for e in line(black_to_move, false, &["c5", "Nf3"], 2) {
        feed.apply(&e, None);
    }
    let pgn = feed.pgn(None);
    assert!(!pgn.contains("Variant"));
    assert!(pgn.contains("[SetUp \"1\"]"));
    assert!(flat(&pgn).contains("1... c5 {[%clk 0:05:00]} 2. Nf3"), "{pgn}");
}

#[test]
fn without_clocks_the_movetext_is_plain_and_long_games_wrap() {
    let mut feed = BoardFeed::new("1");
    feed.apply(&start(0, STANDARD_FEN, false, None), None);
    let sans = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(10);
    for e in line(STANDARD_FEN, false, &sans, 1) {
        let Event { t, kind: EventKind::Complete { ply, side, san, uci, .. } } = e else { unreachable!() };
        feed.apply(&ev(t, EventKind::Complete { ply, side, san, uci, clock_ms: None, opponent_ms: None }), None);
    }
    let pgn = feed.pgn(None);
    let movetext = pgn.split("\n\n").nth(1).unwrap();
    assert!(movetext.starts_with("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3"));
    assert!(movetext.lines().all(|l| l.len() <= 79));
    let mut timed = BoardFeed::new("2");
    for e in line(STANDARD_FEN, false, &sans, 1) {
        timed.apply(&e, None);
    }
    let pgn = timed.pgn(None);
    assert!(pgn.lines().all(|l| l.len() <= 79));
    assert_eq!(pgn.matches("[%clk ").count(), 40, "a clock is never broken across lines");
    assert!(movetext.trim_end().ends_with("20. Ng1 Ng8 *"));
}

#[test]
fn repeated_events_do_not_repeat_moves() {
    let mut feed = BoardFeed::new("1");
    feed.apply(&start(0, STANDARD_FEN, false, Some(60_000)), None);
    let moves = line(STANDARD_FEN, false, &["d4", "d5"], 1);
    for e in moves.iter().chain(&moves) {
        feed.apply(e, None);
    }
    assert_eq!(feed.moves.len(), 2);
    assert_eq!(feed.seq, 5, "every event counts, applied or not");
}

#[test]
fn clocks_follow_presses_pauses_penalties_and_settings() {
    let mut feed = BoardFeed::new("1");
    feed.apply(&start(0, STANDARD_FEN, false, Some(300_000)), None);
    assert_eq!(
        feed.clocks,
        Clocks {
            white_ms: Some(300_000),
            black_ms: Some(300_000),
            running: Some(Color::White),
            at_t: 0,
            at_unix_ms: None
        }
    );
    feed.apply(&line(STANDARD_FEN, false, &["e4"], 1)[0], None);
    assert_eq!(
        (feed.clocks.white_ms, feed.clocks.running, feed.clocks.at_t),
        (Some(300_000), Some(Color::Black), 1000)
    );
    feed.apply(&ev(4000, EventKind::Paused), None);
    assert_eq!((feed.clocks.black_ms, feed.clocks.running, feed.paused), (Some(297_000), None, true));
    feed.apply(&ev(9000, EventKind::Penalty { article: Article::A12, side: Color::Black, ms: 60_000 }), None);
    assert_eq!(feed.clocks.black_ms, Some(357_000), "a stopped clock does not run down");
    feed.apply(&ev(10_000, EventKind::Resumed), None);
    assert_eq!((feed.clocks.running, feed.paused), (Some(Color::Black), false));
    feed.apply(&ev(12_000, EventKind::ClockSet { white_ms: 100_000, black_ms: 200_000 }), None);
    assert_eq!((feed.clocks.white_ms, feed.clocks.black_ms, feed.clocks.at_t), (Some(100_000), Some(200_000), 12_000));
    feed.apply(&ev(13_000, EventKind::TimeWarning { side: Color::Black, remaining_ms: 150_000 }), None);
    assert_eq!(feed.clocks.black_ms, Some(150_000));
    feed.apply(&game_over(14_000, "0-1", EndReason::FlagFall), None);
    assert_eq!(feed.clocks.running, None);
    assert!(feed.pgn(None).contains("[Termination \"time forfeit\"]"));
    assert_eq!(feed.irregularities.len(), 1, "the penalty is kept for the arbiter");
}

#[test]
fn an_illegal_move_that_stood_goes_off_the_record_until_the_claim() {
    let mut feed = BoardFeed::new("1");
    feed.apply(&start(0, STANDARD_FEN, false, Some(300_000)), None);
    for e in line(STANDARD_FEN, false, &["e4", "e5"], 1) {
        feed.apply(&e, None);
    }
    let before = feed.fen.clone();
    // White's king jumps two squares (A.5.2: it stands unless Black claims).
    let illegal = EventKind::Complete {
        ply: 3,
        side: Color::White,
        san: "Ke1-e3".into(),
        uci: "e1e3".into(),
        clock_ms: Some(295_000),
        opponent_ms: None,
    };
    feed.apply(&ev(5000, illegal), None);
    let stood = Irregularity {
        article: Article::A7_5_1,
        side: Color::White,
        ply: 3,
        reason: Reason::NotAMoveOfThatPiece,
        stands: true,
        attempt: None,
        touched: None,
        fix: Vec::new(),
    };
    let words = "the board's words: it stands unless Black claims";
    feed.apply(&ev(5000, EventKind::Irregularity(stood)), Some(words));
    assert!(feed.moves[2].off_record);
    assert_eq!(feed.fen, "rnbqkbnr/pppp1ppp/8/4p3/4P3/4K3/PPPP1PPP/RNBQ1BNR b kq - 1 2");
    let pgn = feed.pgn(None);
    assert!(flat(&pgn).contains(&format!("1... e5 {{[%clk 0:04:59]}} {{2. Ke1-e3 7.5.1 {words}}} *")), "{pgn}");

    // Black claims before moving: the penalty comes and the position goes back.
    feed.apply(&ev(7000, EventKind::Penalty { article: Article::A7_5_5, side: Color::Black, ms: 60_000 }), None);
    assert_eq!(feed.moves.len(), 2);
    assert_eq!(feed.fen, before);
    assert_eq!(feed.clocks.running, Some(Color::White));
    assert!(flat(&feed.pgn(None)).contains("1... e5 {[%clk 0:04:59]} *"));
}

#[test]
fn nonsense_events_never_panic_and_stay_off_the_record() {
    let mut feed = BoardFeed::new("1");
    feed.apply(&start(0, "not a fen", false, None), None);
    let junk = EventKind::Complete {
        ply: 1,
        side: Color::White,
        san: "Zz9".into(),
        uci: "??".into(),
        clock_ms: Some(-5),
        opponent_ms: None,
    };
    feed.apply(&ev(1, junk), None);
    assert!(feed.moves[0].off_record);
    let pgn = feed.pgn(None);
    assert!(pgn.contains("{1. Zz9}"), "{pgn}");
}

#[test]
fn rulings_are_comments_on_their_move_and_kept_for_the_arbiter() {
    let mut feed = BoardFeed::new("1");
    feed.apply(&start(0, STANDARD_FEN, false, None), None);
    let rook_first = Irregularity {
        article: Article::A4_3_1,
        side: Color::White,
        ply: 1,
        reason: Reason::TouchMove,
        stands: false,
        attempt: None,
        touched: None,
        fix: Vec::new(),
    };
    let moves = line(STANDARD_FEN, false, &["e4", "e5"], 1);
    feed.apply(&moves[0], None);
    feed.apply(&ev(1000, EventKind::Irregularity(rook_first.clone())), Some("touched {g1} first"));
    feed.apply(&moves[1], None);
    assert!(flat(&feed.pgn(None)).contains("1. e4 {[%clk 0:05:00] 4.3.1 touched g1 first} 1... e5"));
    assert_eq!(feed.irregularities.len(), 1);
    assert_eq!(feed.irregularities[0].text.as_deref(), Some("touched {g1} first"), "the board's words are kept");
    // A ruling a board sent without words is in the record by its article.
    feed.apply(&ev(2000, EventKind::Irregularity(Irregularity { ply: 2, ..rook_first })), None);
    assert!(flat(&feed.pgn(None)).contains("1... e5 {[%clk 0:04:59] 4.3.1} *"), "{}", feed.pgn(None));
}

#[test]
fn spoken_lines_are_capped() {
    let mut feed = BoardFeed::new("1");
    for i in 0..(SPOKEN_KEPT as u64 + 10) {
        feed.spoken(i, &format!("line {i}"));
    }
    assert_eq!(feed.spoken.len(), SPOKEN_KEPT);
    assert_eq!(feed.spoken[0].text, "line 10");
    let json = serde_json::to_string(&feed).unwrap();
    assert_eq!(serde_json::from_str::<BoardFeed>(&json).unwrap(), feed);
}

#[test]
fn a_start_begins_a_new_game() {
    let mut feed = BoardFeed::new("1");
    feed.apply(&start(0, STANDARD_FEN, false, None), None);
    feed.apply(&line(STANDARD_FEN, false, &["e4"], 1)[0], None);
    feed.spoken(10, "e4");
    feed.apply(&start(0, STANDARD_FEN, false, None), None);
    assert!(feed.moves.is_empty() && feed.spoken.is_empty());
    assert_eq!(feed.fen, STANDARD_FEN);
}

#[test]
fn numbered_changes_skip_duplicates_and_report_gaps_and_new_runs() {
    let mut hall = Hall::new("h");
    let moves = line(STANDARD_FEN, false, &["e4", "e5", "Nf3"], 1);
    let c = |e: &Event| Change::Event(e.clone().into());
    let s = c(&start(0, STANDARD_FEN, false, None));
    assert_eq!(hall.change_numbered("1", 7, 1, &s), Applied::Reset, "a board's first run");
    assert_eq!(hall.change_numbered("1", 7, 2, &c(&moves[0])), Applied::InOrder);
    assert_eq!(hall.change_numbered("1", 7, 2, &c(&moves[0])), Applied::Stale);
    assert_eq!(hall.change_numbered("1", 6, 9, &c(&moves[1])), Applied::Stale, "an older run");
    assert_eq!(hall.change_numbered("1", 7, 4, &c(&moves[1])), Applied::Reset, "seq 3 went missing");
    assert_eq!(hall.feed("1").unwrap().moves.len(), 2);
    assert_eq!(hall.feed("1").unwrap().seq, 4);
    assert_eq!(hall.change_numbered("1", 8, 1, &s), Applied::Reset, "the board restarted");
    assert!(hall.feed("1").unwrap().moves.is_empty());
}

#[test]
fn snapshots_replace_older_boards_and_keep_local_notes() {
    let mut board = BoardFeed { epoch: 7, ..BoardFeed::new("1") };
    board.apply(&start(0, STANDARD_FEN, false, None), None);
    for e in line(STANDARD_FEN, false, &["e4", "e5"], 1) {
        board.apply(&e, None);
    }
    let mut hall = Hall::new("h");
    hall.change_numbered("1", 7, 1, &Change::Event(start(0, STANDARD_FEN, false, None).into()));
    hall.note("1", "claim rejected");
    assert_eq!(hall.replace(board.clone()), Applied::Reset);
    assert_eq!(hall.feed("1").unwrap().moves.len(), 2);
    assert_eq!(hall.feed("1").unwrap().arbiter_notes.len(), 1);
    assert_eq!(hall.replace(board.clone()), Applied::Stale, "the same snapshot again");
    let older = BoardFeed { seq: 1, ..board.clone() };
    assert_eq!(hall.replace(older), Applied::Stale);
    // Changes the snapshot already holds are dropped.
    let e5 = line(STANDARD_FEN, false, &["e4", "e5"], 1).remove(1);
    assert_eq!(hall.change_numbered("1", 7, 3, &Change::Event(e5.into())), Applied::Stale);
    assert!(flat(&hall.games_pgn()).contains("1. e4 {[%clk 0:05:00]} 1... e5 {[%clk 0:04:59]} *"));
}

#[test]
fn team_tags_and_the_match_score_follow_the_results() {
    let m = TeamMatch {
        name: "Cup".into(),
        home: Team { name: "Oakfield".into(), boards: vec!["b1".into(), "b2".into()] },
        away: Team { name: "Riverside".into(), boards: Vec::new() },
        white_on_odd_boards_for: HomeAway::Home,
    };
    let mut hall = Hall::new("school").with_matches(vec![m]);
    assert_eq!(hall.feeds().count(), 2, "a match's boards are there before they start");
    for b in ["b1", "b2"] {
        hall.apply(b, &start(0, STANDARD_FEN, false, None), None);
    }
    hall.apply("b2", &game_over(5000, "1-0", EndReason::Resignation), None);
    let b1 = hall.game_pgn("b1").unwrap();
    assert!(b1.contains("[WhiteTeam \"Oakfield\"]\n[BlackTeam \"Riverside\"]\n[Board \"1\"]\n[MatchScore \"Oakfield 0 - 1 Riverside\"]\n"), "{b1}");
    let b2 = hall.game_pgn("b2").unwrap();
    assert!(b2.contains("[WhiteTeam \"Riverside\"]\n[BlackTeam \"Oakfield\"]\n[Board \"2\"]"));
    let score = &hall.scores()[0];
    assert_eq!((score.home.points, score.away.points), (0.0, 1.0));
}

#[test]
fn a_pairs_clocks_come_from_the_boards_that_keep_them() {
    let mut hall = Hall::new("h");
    for (id, with, plays) in [("A", "B", Color::White), ("B", "A", Color::Black)] {
        hall.set_tags(id, Tags { pair: Some(Paired { with: with.into(), plays }), ..tags() });
        hall.apply(id, &start(0, STANDARD_FEN, false, Some(300_000)), None);
    }
    let moves = line(STANDARD_FEN, false, &["e4", "e5"], 1);
    for m in &moves {
        hall.apply("A", m, None);
    }
    // Black's time after e5 as B, its keeper, read it; A read it later.
    let mut e5_on_b = moves[1].clone();
    if let EventKind::Complete { clock_ms, .. } = &mut e5_on_b.kind {
        *clock_ms = Some(297_000);
    }
    hall.apply("B", &moves[0], None);
    hall.apply("B", &e5_on_b, None);
    let time = EventKind::Time {
        white_ms: 298_000,
        black_ms: 299_000,
        white_moves: 1,
        black_moves: 1,
        running: Some(Color::White),
    };
    hall.apply("A", &ev(2500, time), None);

    let (game, _) = hall.game("A+B").unwrap();
    assert_eq!(game.moves.len(), 2);
    assert_eq!(game.clocks.running, Some(Color::White));
    assert_eq!(game.clocks.white_ms, Some(298_000), "White's time as A keeps it");
    assert_eq!(game.clocks.black_ms, Some(297_000), "Black's time as B keeps it");
    assert!(hall.game("B+A").is_none(), "White's board first");
}

/// A move's UCI and name are types inside the feed, read once where they
/// come in; on the wire (the page, MQTT) they are the same strings as ever.
#[test]
fn a_moves_name_and_uci_are_typed_inside_and_text_on_the_wire() {
    let mut feed = BoardFeed::new("b");
    feed.apply(&start(0, STANDARD_FEN, false, None), None);
    for e in line(STANDARD_FEN, false, &["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"], 1) {
        feed.apply(&e, None);
    }
    let mate = &feed.moves[6];
    assert!(matches!(&mate.san, MoveName::San(s) if s.to_string() == "Qxf7#"), "{:?}", mate.san);
    assert_eq!(mate.uci, UciMove::Normal { from: Square::H5, to: Square::F7, promotion: None });
    let json = serde_json::to_value(mate).unwrap();
    assert_eq!(json, serde_json::json!({"ply": 7, "san": "Qxf7#", "uci": "h5f7", "clock_ms": 294_000}));
    assert_eq!(serde_json::from_value::<FeedMove>(json).unwrap(), *mate);

    // The three kinds of name, each read back as what it is.
    let stood = MoveName::read("Ke1-e3");
    assert_eq!(stood, MoveName::Stood { role: Role::King, from: Square::E1, to: Square::E3, capture: false });
    assert_eq!((stood.to_string(), MoveName::read("Qd1xd7").to_string()), ("Ke1-e3".into(), "Qd1xd7".into()));
    assert_eq!(MoveName::read("O-O-O+"), MoveName::San("O-O-O+".parse().unwrap()));
    let told = MoveName::read("1-0\"]\n[Event \"forged\"] and much more than a move's name");
    assert!(matches!(&told, MoveName::Told(t) if !t.contains('\n') && t.chars().count() <= 32), "{told:?}");
    assert!(serde_json::from_value::<FeedMove>(serde_json::json!({"ply": 1, "san": "e4", "uci": "e2e4 1-0"})).is_err());
}
