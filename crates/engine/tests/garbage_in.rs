//! Whatever an engine writes, nothing panics: random and hostile lines
//! (numbers at and past every bound, options upside down, bytes that are no
//! UTF-8, tokens in any order) go through the parser, the level planner at
//! every level, the choice among lines and the scores. What the planner
//! asks of an option lies within what the engine offered.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};
use tactus_engine::PvLine;
use tactus_engine::level::{self, Level, Pick};
use tactus_engine::protocol::{Message, OptionKind, UciOption, parse_line};

const WORDS: &[&str] = &[
    "id",
    "name",
    "author",
    "uciok",
    "readyok",
    "bestmove",
    "ponder",
    "option",
    "type",
    "spin",
    "check",
    "combo",
    "button",
    "string",
    "default",
    "min",
    "max",
    "var",
    "info",
    "depth",
    "seldepth",
    "multipv",
    "score",
    "cp",
    "mate",
    "lowerbound",
    "upperbound",
    "nodes",
    "nps",
    "time",
    "pv",
    "currmove",
    "wdl",
    "hashfull",
    "(none)",
    "0000",
    "true",
    "false",
    "<empty>",
    "Skill",
    "Level",
    "UCI_Elo",
    "UCI_LimitStrength",
    "MultiPV",
    "Hash",
];
const NAMES: &[&str] = &["Skill Level", "UCI_Elo", "UCI_LimitStrength", "MultiPV", "skill level", "multipv"];
const TYPES: &[&str] = &["spin", "check", "combo", "button", "string", "colour", ""];

/// A number as an engine might write one: ordinary, at a bound, past it,
/// or not quite a number.
fn number(rng: &mut SmallRng) -> String {
    match rng.random_range(0..12) {
        0 => i64::MIN.to_string(),
        1 => i64::MAX.to_string(),
        2 => u64::MAX.to_string(),
        3 => "99999999999999999999999999".into(),
        4 => i32::MIN.to_string(),
        5 => i32::MAX.to_string(),
        6 => ["-0", "+5", "1e9", "0x10", "3.5", "", "-", "NaN"][rng.random_range(0..8)].into(),
        7 => rng.random::<i64>().to_string(),
        _ => rng.random_range(-30..3000).to_string(),
    }
}

fn a_move(rng: &mut SmallRng) -> String {
    let sq = |rng: &mut SmallRng| format!("{}{}", (b'a' + rng.random_range(0..8)) as char, rng.random_range(1..9));
    let promotion = ["", "", "", "q", "n", "k", "x"][rng.random_range(0..7)];
    format!("{}{}{promotion}", sq(rng), sq(rng))
}

fn junk(rng: &mut SmallRng) -> String {
    let bytes: Vec<u8> = (0..rng.random_range(0..40)).map(|_| rng.random()).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// An option line with its fields in any order and any values.
fn option_line(rng: &mut SmallRng) -> String {
    let mut fields = vec![
        format!("name {}", NAMES[rng.random_range(0..NAMES.len())]),
        format!("type {}", TYPES[rng.random_range(0..TYPES.len())]),
    ];
    for _ in 0..rng.random_range(0..6) {
        let field = match rng.random_range(0..5) {
            0 => format!("default {}", number(rng)),
            1 => format!("min {}", number(rng)),
            2 => format!("max {}", number(rng)),
            3 => format!("var {}", WORDS[rng.random_range(0..WORDS.len())]),
            _ => format!("default {}", ["true", "false", "maybe", ""][rng.random_range(0..4)]),
        };
        fields.push(field);
    }
    if rng.random_bool(0.3) {
        let (i, j) = (rng.random_range(0..fields.len()), rng.random_range(0..fields.len()));
        fields.swap(i, j);
    }
    format!("option {}", fields.join(" "))
}

fn info_line(rng: &mut SmallRng) -> String {
    let mut out = String::from("info");
    for _ in 0..rng.random_range(0..12) {
        let field = match rng.random_range(0..9) {
            0 => format!(" depth {}", number(rng)),
            1 => format!(" multipv {}", number(rng)),
            2 => format!(" score cp {}", number(rng)),
            3 => format!(" score mate {}", number(rng)),
            4 => format!(" pv {} {} {}", a_move(rng), a_move(rng), a_move(rng)),
            5 => format!(" nodes {} time {}", number(rng), number(rng)),
            6 => " lowerbound".into(),
            7 => format!(" string {}", junk(rng)),
            _ => format!(" {}", WORDS[rng.random_range(0..WORDS.len())]),
        };
        out.push_str(&field);
    }
    out
}

fn any_line(rng: &mut SmallRng) -> String {
    match rng.random_range(0..6) {
        0 | 1 => option_line(rng),
        2 | 3 => info_line(rng),
        4 => format!("bestmove {} ponder {}", a_move(rng), a_move(rng)),
        _ => {
            let n = rng.random_range(0..20);
            let mut words: Vec<String> = (0..n).map(|_| WORDS[rng.random_range(0..WORDS.len())].to_owned()).collect();
            words.push(junk(rng));
            words.push(number(rng));
            words.join(["\t", " ", "  ", " \r"][rng.random_range(0..4)])
        }
    }
}

#[test]
fn random_engine_output_never_panics_and_plans_stay_within_the_offer() {
    let mut rng = SmallRng::seed_from_u64(0x7ac7_05e1);
    let start = Chess::default();
    for round in 0..3000 {
        let mut offered: Vec<UciOption> = Vec::new();
        let mut lines: Vec<PvLine> = Vec::new();
        for _ in 0..rng.random_range(1..40) {
            let line = any_line(&mut rng);
            match parse_line(&line) {
                Message::Option(option) => offered.push(option),
                Message::OptionFault { kept: Some(option), .. } => offered.push(option),
                Message::Info(info) => {
                    if let (Some(score), Some(depth)) = (info.score, info.depth) {
                        let _ = (score.to_cp(), score.negate().to_cp());
                        lines.push(PvLine { multipv: info.multipv.unwrap_or(1), depth, score, pv: info.pv });
                    }
                }
                _ => {}
            }
        }
        for n in 0..=Level::MAX.get() {
            let plan = level::plan(Level::new(n).unwrap(), &offered);
            for (name, value) in plan.options.iter().chain(&level::full_strength(&offered)) {
                let option = offered.iter().find(|o| o.name.eq_ignore_ascii_case(name)).expect("an offered option");
                if let OptionKind::Spin(spin) = &option.kind {
                    let v: i64 = value.parse().expect("a number");
                    assert!(spin.min() <= v && v <= spin.max(), "round {round}: {name} {v} outside {spin:?}");
                }
            }
            if let Pick::Weakened { lines: wanted, random_permille, spread_cp } = plan.pick {
                assert!(wanted >= 1, "round {round}: {plan:?}");
                let firsts = level::legal_first_moves(&start, &lines);
                let picked = level::pick_weakened(&start, &firsts, random_permille, spread_cp, &mut rng);
                assert!(picked.is_some_and(|(m, _)| start.is_legal(m)));
            }
        }
    }
}

#[test]
fn scores_at_the_bounds_compare_without_overflow() {
    use tactus_engine::protocol::Score;
    for score in
        [Score::Cp(i32::MIN), Score::Cp(i32::MAX), Score::Mate(i32::MIN), Score::Mate(i32::MAX), Score::Mate(0)]
    {
        let _ = score.negate().to_cp();
        assert!(score.to_cp().abs() <= 101_000, "{score:?}");
    }
    let best: UciMove = "e2e4".parse().unwrap();
    let pos = Chess::default();
    let lines = [
        PvLine { multipv: 1, depth: 1, score: Score::Mate(i32::MAX), pv: vec![best] },
        PvLine { multipv: 2, depth: 1, score: Score::Cp(i32::MIN), pv: vec!["d2d4".parse().unwrap()] },
    ];
    let firsts = level::legal_first_moves(&pos, &lines);
    let mut rng = SmallRng::seed_from_u64(1);
    assert!(level::pick_weakened(&pos, &firsts, 0, 1, &mut rng).is_some());
}
