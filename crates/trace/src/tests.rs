use super::*;
use proptest::prelude::*;
use shakmaty::{File, Rank};

const HEADER: &str = r#"{"tactus_trace": 1, "variant": "standard", "start_fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "time_control": "5400+30", "white": "Howell, David", "black": "Moore, Graham J", "event": "GBR-ch 104th", "round": "1.1"}"#;

#[test]
fn a_result_is_spelled_as_pgn_and_shakmaty_spell_it() {
    for &r in GameResult::ALL {
        let known = shakmaty::KnownOutcome::from(r);
        assert_eq!((known.as_str(), GameResult::from(known)), (r.as_str(), r));
        assert_eq!(GameResult::pgn(Some(r)), r.as_str());
    }
    assert_eq!(GameResult::pgn(None), "*");
}

#[test]
fn reads_the_spec_examples() {
    let text = format!(
        "{HEADER}\n{}\n{}\n\n{}\n{}\n{}\n",
        r#"{"t": 1034, "sq": "e2", "on": false}"#,
        r#"{"t": 2050, "input": "promote", "piece": "n"}"#,
        r#"{"t": 2100, "clock": "white"}"#,
        r#"{"t": 3600000, "end": true}"#,
        r#"{"t": 1, "sq": "zz", "on": true}"#,
    );
    let (h, entries) = read_str(&text).unwrap();
    assert_eq!(h.white.as_deref(), Some("Howell, David"));
    assert_eq!(h.time_control.as_deref(), Some("5400+30"));
    assert_eq!(h.variant, Variant::Standard);
    assert_eq!(
        entries,
        vec![
            Entry { t: 1034, record: Record::Edge { sq: Square::E2, on: false, piece: None } },
            Entry { t: 2050, record: Record::Input(Input::Promote(Role::Knight)) },
            Entry { t: 2100, record: Record::Clock(Color::White) },
            // Lines after `end` are not read, not even a broken one.
            Entry { t: 3600000, record: Record::End },
        ]
    );
}

#[test]
fn unknown_fields_are_ignored() {
    let e = parse_entry(2, r#"{"t": 5, "sq": "a1", "on": true, "pressure": 0.3, "meta": {"x": [1]}}"#).unwrap();
    assert_eq!(e.record, Record::Edge { sq: Square::A1, on: true, piece: None });
}

fn without_piece(e: Entry) -> Entry {
    match e.record {
        Record::Edge { sq, on, .. } => Entry { record: Record::Edge { sq, on, piece: None }, ..e },
        _ => e,
    }
}

fn error_of(text: &str) -> TraceError {
    match read_str(text) {
        Err(e) => e,
        Ok(v) => panic!("expected an error, got {v:?}"),
    }
}

#[test]
fn errors_name_the_line() {
    let cases = [
        (format!("{HEADER}\n{{\"t\": 5, \"foo\": 1}}\n"), 2, "unknown kind"),
        (format!("{HEADER}\n\n{{\"t\": 5, \"sq\": \"i9\", \"on\": true}}\n"), 3, "not a square"),
        (
            format!("{HEADER}\n{{\"t\": 5, \"sq\": \"a1\", \"on\": true}}\n{{\"t\": 4, \"clock\": \"white\"}}\n"),
            3,
            "backwards",
        ),
        (format!("{HEADER}\n{{\"t\": 5, \"clock\": \"red\"}}\n"), 2, "white"),
        (format!("{HEADER}\n{{\"t\": -5, \"clock\": \"white\"}}\n"), 2, "whole number"),
        (format!("{HEADER}\n{{\"t\": 5.5, \"clock\": \"white\"}}\n"), 2, "whole number"),
        (format!("{HEADER}\n{{\"sq\": \"a1\", \"on\": true}}\n"), 2, "missing t"),
        (format!("{HEADER}\n{{\"t\": 5, \"sq\": \"a1\"}}\n"), 2, "\"on\""),
        (format!("{HEADER}\n{{\"t\": 5, \"input\": \"promote\", \"piece\": \"k\"}}\n"), 2, "promotes"),
        (format!("{HEADER}\n{{\"t\": 5, \"input\": \"teleport\"}}\n"), 2, "unknown input"),
        (format!("{HEADER}\n{{\"t\": 5, \"clock\": \"white\", \"end\": true}}\n"), 2, "exactly one"),
        (format!("{HEADER}\n{{\"t\": 5, \"timers\": true, \"end\": true}}\n"), 2, "exactly one"),
        (format!("{HEADER}\n{{\"t\": 5, \"timers\": false}}\n"), 2, "can only be true"),
        (format!("{HEADER}\n{{\"t\": 5, \"input\": \"clock_connected\"}}\n"), 2, "\"connected\""),
        (format!("{HEADER}\nnot json\n"), 2, "not a JSON object"),
        ("{\"variant\": \"standard\"}\n".to_string(), 1, "tactus_trace"),
        ("{\"tactus_trace\": 3}\n".to_string(), 1, "version 3 is not supported"),
        ("{\"tactus_trace\": 1, \"variant\": \"crazyhouse\"}\n".to_string(), 1, "variant"),
        (String::new(), 1, "empty"),
    ];
    for (text, line, needle) in cases {
        let e = error_of(&text);
        assert_eq!(e.line, line, "{text:?} → {e}");
        assert!(e.to_string().contains(needle), "{text:?} → {e} (wanted {needle:?})");
        assert!(e.to_string().starts_with(&format!("line {line}: ")));
    }
}

/// Every number has a range; out of it, the error names the line and the
/// range (a clock set to 2⁶⁴ − 1 ms once became −1 ms in the events).
#[test]
fn numbers_out_of_range_are_errors_that_name_the_line() {
    let max = u64::MAX;
    let cases = [
        (format!(r#"{{"t": {max}, "clock": "white"}}"#), "t 18446744073709551615 is out of range: 0 to 1000000000000"),
        (r#"{"t": 1000000000001, "sq": "e2", "on": false}"#.to_string(), "t 1000000000001 is out of range"),
        (
            format!(r#"{{"t": 5, "input": "set_clock", "white_ms": {max}, "black_ms": 60000}}"#),
            "white_ms 18446744073709551615 is out of range: 0 to 35999000 ms, what a clock shows (9:59:59)",
        ),
        (r#"{"t": 5, "input": "set_clock", "white_ms": 0, "black_ms": 36000000}"#.into(), "black_ms 36000000 is out"),
        (
            format!(r#"{{"t": 5, "input": "add_time", "side": "white", "ms": {max}}}"#),
            "ms 18446744073709551615 is out of range: 1 to 3600000 ms, one addition of at most an hour",
        ),
        (r#"{"t": 5, "input": "add_time", "side": "white", "ms": 0}"#.into(), "ms 0 is out of range: 1 to 3600000"),
        (r#"{"t": 5, "input": "increment", "ms": 3600001}"#.into(), "ms 3600001 is out of range: 0 to 3600000"),
        (
            r#"{"t": 5, "input": "set_moves", "white_moves": 4294967296, "black_moves": 1}"#.into(),
            "white_moves 4294967296 is out of range: 0 to 10000 moves",
        ),
        (r#"{"t": 5, "input": "set_moves", "white_moves": 1, "black_moves": 10001}"#.into(), "black_moves 10001"),
        (
            r#"{"t": 5, "input": "verdict", "ply": 20001, "side": "white", "verdict": "can_mate"}"#.into(),
            "ply 20001 is out of range: 0 to 20000 half-moves",
        ),
        (r#"{"t": 5, "input": "opponent", "ply": 4294967295, "uci": "e7e5"}"#.into(), "ply 4294967295 is out"),
        (r#"{"t": 5, "input": "hint", "ply": 99999, "uci": "e2e4"}"#.into(), "ply 99999 is out"),
        (r#"{"t": 5, "input": "opponent", "ply": 2, "uci": "e7e5", "cp": 2147483648}"#.into(), "cp 2147483648"),
    ];
    for (line, needle) in cases {
        let e = error_of(&format!("{HEADER}\n\n{line}\n"));
        assert_eq!(e.line, 3, "{line} → {e}");
        assert!(
            e.to_string().starts_with("line 3: ") && e.to_string().contains(needle),
            "{line} → {e} (wanted {needle:?})"
        );
    }
    // The edges of each range are in it.
    let edges = [
        r#"{"t": 1000000000000, "input": "set_clock", "white_ms": 35999000, "black_ms": 0}"#,
        r#"{"t": 1000000000000, "input": "add_time", "side": "black", "ms": 3600000}"#,
        r#"{"t": 1000000000000, "input": "set_moves", "white_moves": 10000, "black_moves": 0}"#,
        r#"{"t": 1000000000000, "input": "verdict", "ply": 20000, "side": "white", "verdict": "can_mate"}"#,
    ];
    for line in edges {
        assert!(parse_entry(2, line).is_ok(), "{line}");
    }
    // The header's times.
    let header = |field: &str, v: u64| error_of(&format!("{{\"tactus_trace\": 1, \"{field}\": {v}}}\n"));
    for (field, over) in [("debounce_ms", 1001), ("settle_ms", max), ("press_grace_ms", 10_001)] {
        let e = header(field, over);
        assert!(e.line == 1 && e.to_string().contains(&format!("{field} {over} is out of range")), "{e}");
    }
    let (h, _) = read_str("{\"tactus_trace\": 1, \"settle_ms\": 10000, \"debounce_ms\": 0}\n").unwrap();
    assert_eq!((h.settle_ms, h.debounce_ms), (Some(10_000), Some(0)));
}

/// The defaults a header leaves to the reader are the ones the format's
/// documents state.
#[test]
fn the_timing_defaults_are_the_documented_ones() {
    use range::{DEFAULT_DEBOUNCE_MS, DEFAULT_PRESS_GRACE_MS, DEFAULT_SETTLE_MS};
    let docs =
        |name: &str| std::fs::read_to_string(format!("{}/../../docs/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let said =
        format!("Absent: the defaults ({DEFAULT_DEBOUNCE_MS}, {DEFAULT_SETTLE_MS}, {DEFAULT_PRESS_GRACE_MS} ms)");
    assert!(docs("trace-format.md").contains(&said), "{said}");
    assert!(docs("events.md").contains(&format!("`press_grace_ms`, {DEFAULT_PRESS_GRACE_MS} ms by default")));
    for (default, range) in [
        (DEFAULT_DEBOUNCE_MS, range::DEBOUNCE_MS),
        (DEFAULT_SETTLE_MS, range::SETTLE_MS),
        (DEFAULT_PRESS_GRACE_MS, range::PRESS_GRACE_MS),
    ] {
        assert!(range.values.contains(&default), "{default} in {range:?}");
    }
}

#[test]
fn repeated_edges_are_legal() {
    let text =
        format!("{HEADER}\n{}\n{}\n", r#"{"t": 5, "sq": "a1", "on": true}"#, r#"{"t": 5, "sq": "a1", "on": true}"#);
    assert_eq!(read_str(&text).unwrap().1.len(), 2);
}

fn arb_request() -> impl Strategy<Value = Request> {
    let side = prop_oneof![Just(Color::White), Just(Color::Black)];
    let role = prop_oneof![
        Just(None),
        Just(Some(Role::King)),
        Just(Some(Role::Queen)),
        Just(Some(Role::Rook)),
        Just(Some(Role::Bishop)),
        Just(Some(Role::Knight)),
        Just(Some(Role::Pawn))
    ];
    prop_oneof![
        Just(Request::Time),
        Just(Request::Position),
        Just(Request::LastMove),
        Just(Request::MovesToControl),
        Just(Request::Hint),
        (side, role).prop_map(|(side, role)| Request::Pieces { side, role }),
        (0u32..8).prop_map(|r| Request::Rank(Rank::new(r))),
        (0u32..8).prop_map(|f| Request::File(File::new(f))),
        (0u32..64).prop_map(|i| Request::Square(Square::new(i))),
    ]
}

fn arb_piece() -> impl Strategy<Value = Piece> {
    let role = proptest::sample::select(&Role::ALL[..]);
    (role, any::<bool>()).prop_map(|(role, white)| role.of(if white { Color::White } else { Color::Black }))
}

/// Every ply a trace may name (`range::PLY`).
const PLIES: std::ops::RangeInclusive<u32> = 0..=20_000;

fn arb_record() -> impl Strategy<Value = Record> {
    let sq = (0u32..64).prop_map(|i| Square::new(i));
    let side = prop_oneof![Just(Color::White), Just(Color::Black)];
    prop_oneof![
        (sq.clone(), any::<bool>(), proptest::option::of(arb_piece())).prop_map(|(sq, on, piece)| Record::Edge {
            sq,
            on,
            piece: piece.filter(|_| on)
        }),
        side.clone().prop_map(Record::Clock),
        prop_oneof![Just(Role::Queen), Just(Role::Rook), Just(Role::Bishop), Just(Role::Knight)]
            .prop_map(|r| Record::Input(Input::Promote(r))),
        (side.clone(), prop_oneof![Just(Claim::Illegal), Just(Claim::Threefold), Just(Claim::Fifty)])
            .prop_map(|(side, claim)| Record::Input(Input::Claim { side, claim })),
        Just(Record::Input(Input::Pause)),
        Just(Record::Input(Input::Resume)),
        (range::CLOCK_MS.values, range::CLOCK_MS.values)
            .prop_map(|(white_ms, black_ms)| Record::Input(Input::SetClock { white_ms, black_ms })),
        (side.clone(), range::ADDED_MS.values).prop_map(|(side, ms)| Record::Input(Input::AddTime { side, ms })),
        (side.clone(), range::CLOCK_MS.values).prop_map(|(side, ms)| Record::Input(Input::TablePress { side, ms })),
        (range::CLOCK_MS.values, range::CLOCK_MS.values, any::<bool>()).prop_map(|(white_ms, black_ms, running)| {
            Record::Input(Input::ServerClock { white_ms, black_ms, running })
        }),
        PLIES.prop_map(|ply| Record::Input(Input::PressRuled { ply })),
        (range::PAIR_GAME.values, range::PAIR_GAME.values)
            .prop_map(|(white, black)| Record::Input(Input::PairGame { white, black })),
        (0u32..=10_000, 0u32..=10_000)
            .prop_map(|(white_moves, black_moves)| Record::Input(Input::SetMoves { white_moves, black_moves })),
        range::INCREMENT_MS.values.prop_map(|ms| Record::Input(Input::Increment { ms })),
        arb_request().prop_map(|r| Record::Input(Input::Request(r))),
        (PLIES, side.clone(), proptest::sample::select(MateVerdict::ALL))
            .prop_map(|(ply, side, verdict)| Record::Input(Input::Verdict { ply, side, verdict })),
        (PLIES, sq.clone(), sq.clone(), proptest::option::of(prop_oneof![Just(Role::Queen), Just(Role::Knight)]))
            .prop_map(|(ply, from, to, promotion)| Record::Input(Input::Opponent {
                ply,
                uci: shakmaty::uci::UciMove::Normal { from, to, promotion },
                eval: None,
            })),
        (PLIES, sq.clone(), sq.clone(), any::<i32>(), any::<bool>(), 0usize..=PV_MAX).prop_map(
            |(ply, from, to, n, mate, len)| {
                let m = shakmaty::uci::UciMove::Normal { from, to, promotion: None };
                let mut pv = [None; PV_MAX];
                pv.iter_mut().take(len).for_each(|p| *p = Some(m));
                let score = if mate { Score::Mate(n) } else { Score::Cp(n) };
                Record::Input(Input::Opponent { ply, uci: m, eval: Some(Eval { score, pv }) })
            }
        ),
        (PLIES, sq.clone(), sq.clone()).prop_map(|(ply, from, to)| Record::Input(Input::Hint {
            ply,
            uci: shakmaty::uci::UciMove::Normal { from, to, promotion: None }
        })),
        (0u8..=10).prop_map(|level| Record::Input(Input::EngineLevel(level))),
        side.clone().prop_map(|side| Record::Input(Input::DrawOffer { side })),
        proptest::sample::select(crate::OnlineAsk::ALL).prop_map(|ask| Record::Input(Input::Online(ask))),
        PLIES.prop_map(|ply| Record::Input(Input::TakeBack { ply })),
        (PLIES, sq.clone(), sq.clone()).prop_map(|(ply, from, to)| Record::Input(Input::WebsiteMove {
            ply,
            uci: shakmaty::uci::UciMove::Normal { from, to, promotion: None }
        })),
        any::<bool>().prop_map(|connected| Record::Input(Input::ClockConnected(connected))),
        Just(Record::Timers),
        (
            prop_oneof![Just(GameResult::WhiteWins), Just(GameResult::BlackWins), Just(GameResult::Draw)],
            prop_oneof![
                Just(OffBoardReason::Resignation),
                Just(OffBoardReason::Agreement),
                Just(OffBoardReason::Arbiter)
            ]
        )
            .prop_map(|(result, reason)| Record::Input(Input::Result { result, reason })),
    ]
}

proptest! {
    /// The fast path for the common lines reads exactly what the JSON parser
    /// reads, and refuses what it would refuse.
    #[test]
    fn fast_path_agrees_with_json(
        t in prop_oneof![0u64..100_000, Just(u64::MAX), Just(0)],
        sq in 0u32..64,
        on in any::<bool>(),
        zeros in 0usize..2,
        side in any::<bool>(),
        letter in prop_oneof![proptest::sample::select(&['K', 'Q', 'R', 'B', 'N', 'P', 'k', 'q', 'r', 'b', 'n', 'p'][..]), any::<char>()],
        version in 1u32..=2,
    ) {
        let sq = Square::new(sq);
        let t_text = format!("{}{t}", "0".repeat(zeros));
        let side = if side { "white" } else { "black" };
        for text in [
            format!(r#"{{"t": {t_text}, "sq": "{sq}", "on": {on}}}"#),
            format!(r#"{{"t": {t_text}, "sq": "{sq}", "on": {on}, "piece": "{letter}"}}"#),
            format!(r#"{{"t": {t_text}, "clock": "{side}"}}"#),
            format!(r#"{{"t": {t_text}, "timers": {on}}}"#),
        ] {
            prop_assert_eq!(parse_entry_in(version, 7, &text), parse_json_entry(version, 7, &text), "{}", text);
        }
    }

    /// What the writer writes, the reader reads back unchanged.
    #[test]
    fn round_trip(
        records in proptest::collection::vec((prop_oneof![0u64..5000, Just(10_000_000_000)], arb_record()), 0..60),
        fen in any::<bool>(),
        dgt in any::<bool>(),
    ) {
        let header = Header {
            variant: if fen { Variant::Chess960 } else { Variant::Standard },
            start_fen: fen.then(|| "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1".to_string()),
            time_control: Some("40/5400+30:1800+30".into()),
            white: Some("Ünïcode \"quoted\"".into()),
            supervision: fen.then_some(Supervision::Unsupervised),
            mate_search: if dgt { MateSearch::Asked } else { MateSearch::Inline },
            debounce_ms: Some(12),
            press_grace_ms: fen.then_some(250),
            engine: fen.then_some(Color::Black),
            engine_override: fen,
            partner: dgt,
            online: fen,
            server_clock: fen && dgt,
            table_clock: dgt.then_some(if fen { TableClock::Partner } else { TableClock::Here }),
            board: dgt.then_some(BoardKind::Dgt),
            ..Header::default()
        };
        let mut t = 0;
        let entries: Vec<Entry> = records.into_iter().map(|(dt, record)| { t += dt; Entry { t, record } }).collect();
        let mut w = TraceWriter::new(Vec::new());
        w.write_header(&header).unwrap();
        for e in &entries { w.write_entry(e).unwrap(); }
        let text = String::from_utf8(w.into_inner()).unwrap();
        let (h, back) = read_str(&text).unwrap();
        prop_assert_eq!(&h, &header);
        // Version 2 for a board that knows its pieces, with them; else
        // version 1, without.
        let version = if dgt { 2 } else { 1 };
        prop_assert_eq!(TraceReader::new(text.as_bytes()).unwrap().1.version(), version);
        let written: Vec<Entry> = if dgt { entries } else { entries.into_iter().map(without_piece).collect() };
        prop_assert_eq!(back, written);
    }

    /// Any bytes at all: an error or a trace, never a panic.
    #[test]
    fn arbitrary_text_never_panics(body in "\\PC{0,400}") {
        let _ = read_str(&body);
        let _ = read_str(&format!("{HEADER}\n{body}"));
        let _ = read_str(&format!("{DGT_HEADER}\n{body}"));
    }

    /// Near-miss lines (JSON-shaped, with the real keys) never panic either.
    #[test]
    fn jsonish_lines_never_panic(
        lines in proptest::collection::vec(
            proptest::string::string_regex(r#"\{("(t|sq|on|clock|input|piece|end|timers|connected|side|claim|ms|what|role|rank|file)": ?(-?[0-9]{1,22}(\.[0-9])?|"[a-z0-9/\-]{0,6}"|true|false|null|\[\]|\{\}),? ?){0,5}\}"#).unwrap(),
            0..20)
    ) {
        let _ = read_str(&format!("{HEADER}\n{}", lines.join("\n")));
        let _ = read_str(&format!("{DGT_HEADER}\n{}", lines.join("\n")));
    }
}

#[test]
fn the_header_records_how_the_board_ruled() {
    let (h, _) = read_str(
        r#"{"tactus_trace": 1, "supervision": "unsupervised", "debounce_ms": 15, "settle_ms": 120, "press_grace_ms": 300}"#,
    )
    .unwrap();
    assert_eq!(
        (h.supervision, h.debounce_ms, h.settle_ms, h.press_grace_ms),
        (Some(Supervision::Unsupervised), Some(15), Some(120), Some(300))
    );
    let e = read_str(r#"{"tactus_trace": 1, "supervision": "lenient"}"#).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.to_string().contains("supervision"), "{e}");
}

/// A word the header does not know is an error on line 1 that lists the
/// choices, never a default: a mistyped `mate_search` once replayed with
/// the search inline, ruling otherwise than the live game.
#[test]
fn an_unknown_word_in_the_header_is_an_error_naming_line_1() {
    let (h, _) = read_str(r#"{"tactus_trace": 1, "mate_search": "asked", "supervision": "arbiter"}"#).unwrap();
    assert_eq!((h.mate_search, h.supervision), (MateSearch::Asked, Some(Supervision::Arbiter)));
    for (header, needle) in [
        (r#"{"tactus_trace": 1, "mate_search": "aksed"}"#, r#"unknown mate search "aksed" (one of inline, asked)"#),
        (r#"{"tactus_trace": 1, "supervision": "Arbiter"}"#, r#"unknown supervision "Arbiter""#),
        (
            r#"{"tactus_trace": 1, "variant": "crazyhouse"}"#,
            r#"unknown variant "crazyhouse" (one of standard, chess960)"#,
        ),
    ] {
        let e = read_str(header).unwrap_err();
        assert!(e.line == 1 && e.message.contains(needle), "{header} → {e}");
    }
    // A version this build does not read is said first, whatever its words.
    let e = read_str(r#"{"tactus_trace": 3, "variant": "crazyhouse"}"#).unwrap_err();
    assert!(e.message.contains("version 3 is not supported"), "{e}");
}

#[test]
fn a_field_given_twice_is_an_error_naming_the_line() {
    let e = error_of(&format!("{HEADER}\n{}\n", r#"{"t": 5, "input": "add_time", "side": "white", "ms": 5, "ms": 6}"#));
    assert!(e.line == 2 && e.message.contains("duplicate field `ms`"), "{e}");
}

/// A time control the clock cannot play is refused on line 1, as the
/// config refuses it: one that starts the clocks at 0:00 (White's flag
/// would fall before the first move, 6.6) as much as one that does not parse.
#[test]
fn a_time_control_that_cannot_be_played_is_an_error_on_line_1() {
    for (tc, needle) in [("0", "0:00"), ("0+5", "0:00"), ("40/0:3600", "0:00"), ("abc", "expected a number")] {
        let e = read_str(&format!(r#"{{"tactus_trace": 1, "time_control": "{tc}"}}"#)).unwrap_err();
        assert_eq!(e.line, 1, "{tc}: {e}");
        assert!(e.message.starts_with(&format!("time_control {tc:?}")) && e.message.contains(needle), "{tc}: {e}");
    }
    // A delay or byo-yomi gives time before the main time runs.
    for tc in ["0s5", "0b3x30", "-", "300+2"] {
        let text = format!(r#"{{"tactus_trace": 1, "time_control": "{tc}"}}"#);
        assert_eq!(read_str(&text).unwrap().0.time_control.as_deref(), Some(tc));
    }
}

#[test]
fn questions_at_the_board() {
    let ask = |json: &str| match parse_entry(9, json) {
        Ok(Entry { record: Record::Input(Input::Request(r)), .. }) => Ok(r),
        Ok(other) => panic!("{json} read as {other:?}"),
        Err(e) => Err(e),
    };
    // Traces written before the questions grew still read the same.
    assert_eq!(ask(r#"{"t": 5, "input": "request"}"#), Ok(Request::Time));
    assert_eq!(ask(r#"{"t": 5, "input": "request", "what": "time"}"#), Ok(Request::Time));
    assert_eq!(ask(r#"{"t": 5, "input": "request", "what": "position"}"#), Ok(Request::Position));
    assert_eq!(ask(r#"{"t": 5, "input": "request", "what": "last_move"}"#), Ok(Request::LastMove));
    assert_eq!(
        ask(r#"{"t": 5, "input": "request", "what": "pieces", "side": "white", "role": "n"}"#),
        Ok(Request::Pieces { side: Color::White, role: Some(Role::Knight) })
    );
    assert_eq!(
        ask(r#"{"t": 5, "input": "request", "what": "pieces", "side": "black"}"#),
        Ok(Request::Pieces { side: Color::Black, role: None })
    );
    assert_eq!(ask(r#"{"t": 5, "input": "request", "what": "rank", "rank": 4}"#), Ok(Request::Rank(Rank::Fourth)));
    assert_eq!(ask(r#"{"t": 5, "input": "request", "what": "file", "file": "e"}"#), Ok(Request::File(File::E)));
    assert_eq!(ask(r#"{"t": 5, "input": "request", "what": "square", "sq": "d5"}"#), Ok(Request::Square(Square::D5)));
    assert_eq!(ask(r#"{"t": 5, "input": "request", "what": "moves_to_control"}"#), Ok(Request::MovesToControl));

    for (json, needle) in [
        (r#"{"t": 5, "input": "request", "what": "pieces"}"#, "needs \"side\""),
        (r#"{"t": 5, "input": "request", "what": "pieces", "side": "red"}"#, "white"),
        (r#"{"t": 5, "input": "request", "what": "pieces", "side": "white", "role": "x"}"#, "k, q, r, b, n, p"),
        (r#"{"t": 5, "input": "request", "what": "rank"}"#, "needs \"rank\""),
        (r#"{"t": 5, "input": "request", "what": "rank", "rank": 9}"#, "1 to 8"),
        (r#"{"t": 5, "input": "request", "what": "rank", "rank": "4"}"#, "number"),
        (r#"{"t": 5, "input": "request", "what": "rank", "rank": 4.0}"#, "1 to 8"),
        (r#"{"t": 5, "input": "request", "what": "file", "file": "i"}"#, "a to h"),
        (r#"{"t": 5, "input": "request", "what": "square"}"#, "needs \"sq\""),
        (r#"{"t": 5, "input": "request", "what": "square", "sq": "z9"}"#, "not a square"),
        (r#"{"t": 5, "input": "request", "what": "weather"}"#, "unknown request"),
        (r#"{"t": 5, "input": "pause", "sq": "d5"}"#, "\"sq\" belongs"),
        (r#"{"t": 5, "input": "request", "what": "square", "sq": "d5", "on": true}"#, "exactly one"),
    ] {
        let e = ask(json).unwrap_err();
        assert_eq!(e.line, 9, "{json}");
        assert!(e.message.contains(needle), "{json} → {e} (wanted {needle:?})");
    }
}

#[test]
fn typed_questions_read_the_same_as_trace_lines() {
    let words = |s: &str| Request::from_words(&s.split_whitespace().collect::<Vec<_>>());
    assert_eq!(words("pieces white n"), Ok(Request::Pieces { side: Color::White, role: Some(Role::Knight) }));
    assert_eq!(words("pieces black"), Ok(Request::Pieces { side: Color::Black, role: None }));
    assert_eq!(words("rank 8"), Ok(Request::Rank(Rank::Eighth)));
    assert_eq!(words("file a"), Ok(Request::File(File::A)));
    assert_eq!(words("square h1"), Ok(Request::Square(Square::H1)));
    assert_eq!(words("moves_to_control"), Ok(Request::MovesToControl));
    assert!(words("").unwrap_err().to_string().contains("pieces white|black"));
    assert!(words("rank").unwrap_err().to_string().contains("needs which rank"));
}

const DGT_HEADER: &str = r#"{"tactus_trace": 2, "board": "dgt", "time_control": "180+2"}"#;

#[test]
fn version_2_edges_say_which_piece_was_put_down() {
    let text = format!(
        "{DGT_HEADER}\n{}\n{}\n{}\n{}\n",
        r#"{"t": 5, "sq": "e2", "on": false}"#,
        r#"{"t": 6, "sq": "e4", "on": true, "piece": "P"}"#,
        // Spelled otherwise: the JSON path reads the same.
        r#"{"on": true, "t": 7, "piece": "n", "sq": "f6"}"#,
        // A board that knows its pieces may still not say one (a magic piece).
        r#"{"t": 8, "sq": "d4", "on": true}"#,
    );
    let (header, reader) = TraceReader::new(text.as_bytes()).unwrap();
    assert_eq!(reader.version(), 2);
    assert_eq!(header.board, Some(BoardKind::Dgt));
    assert_eq!(header.version(), 2);
    let entries: Vec<Entry> = reader.collect::<Result<_, _>>().unwrap();
    let edge = |t, sq, on, piece| Entry { t, record: Record::Edge { sq, on, piece } };
    assert_eq!(
        entries,
        [
            edge(5, Square::E2, false, None),
            edge(6, Square::E4, true, Some(Role::Pawn.of(Color::White))),
            edge(7, Square::F6, true, Some(Role::Knight.of(Color::Black))),
            edge(8, Square::D4, true, None),
        ]
    );
    // Written back as read, in version 2.
    let mut w = TraceWriter::new(Vec::new());
    w.write_header(&header).unwrap();
    entries.iter().for_each(|e| w.write_entry(e).unwrap());
    let written = String::from_utf8(w.into_inner()).unwrap();
    assert!(written.contains(r#"{"t": 6, "sq": "e4", "on": true, "piece": "P"}"#), "{written}");
    assert!(written.contains(r#"{"t": 7, "sq": "f6", "on": true, "piece": "n"}"#), "{written}");
    assert_eq!(read_str(&written).unwrap(), (header, entries));
}

#[test]
fn version_1_is_written_and_read_as_before() {
    // No board that knows its pieces: version 1, without them.
    let mut w = TraceWriter::new(Vec::new());
    w.write_header(&Header::default()).unwrap();
    let pawn = Some(Role::Pawn.of(Color::White));
    w.write_entry(&Entry { t: 6, record: Record::Edge { sq: Square::E4, on: true, piece: pawn } }).unwrap();
    let written = String::from_utf8(w.into_inner()).unwrap();
    assert_eq!(written, "{\"tactus_trace\":1,\"variant\":\"standard\"}\n{\"t\": 6, \"sq\": \"e4\", \"on\": true}\n");
    // In version 1 `piece` and `board` are fields it does not know: ignored,
    // right or wrong, as they always were.
    let (header, entries) = read_str(&format!(
        "{}\n{}\n{}\n",
        r#"{"tactus_trace": 1, "board": ["any", "thing"]}"#,
        r#"{"t": 6, "sq": "e4", "on": true, "piece": "P"}"#,
        r#"{"t": 7, "sq": "e4", "on": false, "piece": "x"}"#,
    ))
    .unwrap();
    assert_eq!(header.board, None);
    assert_eq!(
        entries,
        [
            Entry { t: 6, record: Record::Edge { sq: Square::E4, on: true, piece: None } },
            Entry { t: 7, record: Record::Edge { sq: Square::E4, on: false, piece: None } },
        ]
    );
}

#[test]
fn a_piece_that_is_not_one_or_on_an_edge_that_empties_is_an_error_naming_the_line() {
    let cases = [
        (r#"{"t": 5, "sq": "e2", "on": false, "piece": "P"}"#, "\"on\": false has none"),
        (r#"{"t": 5, "sq": "e4", "on": true, "piece": "X"}"#, "\"X\" is not a piece"),
        (r#"{"t": 5, "sq": "e4", "on": true, "piece": "Pp"}"#, "\"Pp\" is not a piece"),
        (r#"{"t": 5, "sq": "e4", "on": true, "piece": ""}"#, "\"\" is not a piece"),
        (r#"{"t": 5, "sq": "e4", "on": true, "piece": "+"}"#, "\"+\" is not a piece"),
    ];
    for (line, needle) in cases {
        let text = format!("{DGT_HEADER}\n{}\n{line}\n", r#"{"t": 1, "sq": "e2", "on": false}"#);
        let e = error_of(&text);
        assert_eq!(e.line, 3, "{line} → {e}");
        assert!(
            e.to_string().starts_with("line 3: ") && e.message.contains(needle),
            "{line} → {e} (wanted {needle:?})"
        );
    }
    let e = error_of(r#"{"tactus_trace": 2, "board": "chessnut"}"#);
    assert_eq!(e.line, 1);
    assert!(e.message.contains("unknown board \"chessnut\""), "{e}");
    let e = error_of(r#"{"tactus_trace": 2, "board": 5}"#);
    assert_eq!(e.line, 1);
    assert!(e.message.contains("board must be a string"), "{e}");
    let e = error_of("{\"tactus_trace\": 7, \"board\": \"dgt\"}\n");
    assert_eq!(e.to_string(), "line 1: trace format version 7 is not supported (this build reads versions 1 to 2)");
}

/// A pairing line as `docs/trace-format.md` shows it.
const PAIRING: &str = r#"{"t": 1200, "pairing": {"tournament": "Hall Open 2025", "round": 1, "board": 3, "white": {"name": "Kowalczyk, Irina", "title": "IM", "elo": 2488, "fide_id": 1120000, "federation": "POL"}, "black": {"name": "Volkov, Dmitri"}}}"#;

#[test]
fn a_pairing_line_is_read_and_written_back() {
    let entry = parse_entry(2, PAIRING).unwrap();
    let Record::Pairing(p) = &entry.record else { panic!("{entry:?}") };
    assert_eq!((entry.t, p.round, p.board, p.tournament.as_deref()), (1200, 1, 3, Some("Hall Open 2025")));
    assert_eq!((p.white.name.as_str(), p.white.title, p.white.elo), ("Kowalczyk, Irina", Some(Title::Im), Some(2488)));
    assert_eq!((p.white.fide_id, p.white.federation.map(|f| f.to_string())), (Some(1_120_000), Some("POL".into())));
    assert_eq!((p.black.name.as_str(), p.black.title, p.black.fide_id), ("Volkov, Dmitri", None, None));
    let mut line = String::new();
    format_entry(&mut line, &entry);
    assert_eq!(line, PAIRING);
    // A name with quotes and a backslash survives the round trip.
    let mut odd = entry.clone();
    if let Record::Pairing(p) = &mut odd.record {
        p.black.name = r#"O"Brien\, Seán"#.into();
    }
    let mut line = String::new();
    format_entry(&mut line, &odd);
    assert_eq!(parse_entry(2, &line).unwrap(), odd);
}

#[test]
fn a_pairing_out_of_range_is_an_error_naming_the_line() {
    for (from, to, says) in [
        (r#""round": 1"#, r#""round": 0"#, "round 0 is out of range"),
        (r#""board": 3"#, r#""board": 10000"#, "board 10000 is out of range"),
        (r#""elo": 2488"#, r#""elo": 4000"#, "rating 4000 is out of range"),
        (r#""fide_id": 1120000"#, r#""fide_id": 1234567890"#, "FIDE ID 1234567890 is out of range"),
        (r#""federation": "POL""#, r#""federation": "PL""#, "is not a federation"),
        (r#""title": "IM""#, r#""title": "XM""#, "unknown variant"),
        (r#""name": "Volkov, Dmitri""#, r#""name": " ""#, "black's name is empty"),
        (r#""name": "Volkov, Dmitri""#, r#""name": "Volkov,\nDmitri""#, "control character"),
        (r#""name": "Volkov, Dmitri""#, r#""nick": "Dima""#, "unknown field `nick`"),
        (r#""t": 1200, "#, r#""t": 1200, "clock": "white", "#, "exactly one of"),
    ] {
        let e = parse_entry(7, &PAIRING.replace(from, to)).unwrap_err();
        assert_eq!(e.line, 7);
        assert!(e.message.contains(says), "{from} → {to}: {e}");
    }
    let long = "x".repeat(MAX_NAME + 1);
    let e = parse_entry(7, &PAIRING.replace("Volkov, Dmitri", &long)).unwrap_err();
    assert!(e.message.contains("65 characters"), "{e}");
}
