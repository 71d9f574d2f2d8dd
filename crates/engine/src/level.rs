//! Playing strengths from a beginner's first games to the engine at full
//! strength, as presets keyed on what the engine offers.
//!
//! Below the weakest setting an engine has (Stockfish's `Skill Level` 0
//! still punishes every hanging piece), tactus weakens the play itself: the
//! engine searches a few plies with several lines (MultiPV), and tactus
//! picks among them with a bias towards the better ones, and now and then
//! plays any legal move. Above that, the engine's own `UCI_Elo` (with
//! `UCI_LimitStrength`) or `Skill Level`; an engine with neither is held
//! back by node limits. Every level but the top one has a short time cap so
//! a weak opponent answers quickly.

use std::fmt;
use std::str::FromStr;

use rand::Rng;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use crate::engine::MAX_LINES;
use crate::protocol::{OptionKind, UciOption};

/// A playing strength: 0 (first games) to [`Level::MAX`] (full strength).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

impl Level {
    pub const MIN: Level = Level(0);
    pub const MAX: Level = Level(10);

    pub fn new(n: u8) -> Option<Level> {
        (n <= Level::MAX.0).then_some(Level(n))
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("engine level {0:?}: give a whole number from 0 (beginner) to 10 (full strength)")]
pub struct BadLevel(pub String);

impl FromStr for Level {
    type Err = BadLevel;
    fn from_str(s: &str) -> Result<Level, BadLevel> {
        s.trim().parse::<u8>().ok().and_then(Level::new).ok_or_else(|| BadLevel(s.to_owned()))
    }
}

/// How tactus picks the move from a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The engine's own choice.
    Best,
    /// tactus picks among the MultiPV lines: a line `spread_cp` worse than
    /// the best is chosen 1/e times as often; with `random_permille`/1000
    /// any legal move is played instead.
    Weakened { lines: u32, random_permille: u32, spread_cp: u32 },
}

/// What a level means for one engine: the options to set, the search
/// limits and how the move is picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelPlan {
    pub level: Level,
    /// `(name, value)` with names as the engine spells them. Every
    /// strength option the engine has is set at every level, so changing
    /// level undoes the one before.
    pub options: Vec<(String, String)>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Upper bound on the thinking time per move; `None` at full strength
    /// (the clock, or the configured time, decides).
    pub movetime_cap_ms: Option<u64>,
    pub pick: Pick,
}

/// The Elo asked of `UCI_Elo`, `Skill Level` (0–20 scale) and the node
/// limit used when the engine has neither, for levels 3 to 9.
const ENGINE_LEVELS: [(i64, i64, u64); 7] = [
    (1350, 0, 200),
    (1500, 3, 1_000),
    (1700, 6, 4_000),
    (1900, 9, 15_000),
    (2100, 12, 50_000),
    (2300, 15, 200_000),
    (2600, 18, 1_000_000),
];
/// Time caps per move for levels 0 to 9.
const MOVETIME_CAP_MS: [u64; 10] = [50, 50, 100, 100, 200, 300, 500, 800, 1200, 2000];

/// The plan of `level` for an engine offering `offered`. Every value asked
/// of an option lies within what the engine offered (a [`Spin`]'s range is
/// never upside down: [`Spin`](crate::protocol::Spin)).
pub fn plan(level: Level, offered: &[UciOption]) -> LevelPlan {
    let find = |name: &str| offered.iter().find(|o| o.name.eq_ignore_ascii_case(name));
    let spin = |name: &str| match find(name).map(|o| (&o.name, &o.kind)) {
        Some((name, OptionKind::Spin(spin))) => Some((name.clone(), *spin)),
        _ => None,
    };
    let check = |name: &str| match find(name).map(|o| (&o.name, &o.kind)) {
        Some((name, OptionKind::Check { .. })) => Some(name.clone()),
        _ => None,
    };
    let skill = spin("Skill Level");
    let elo = spin("UCI_Elo").zip(check("UCI_LimitStrength"));
    // A MultiPV that cannot be set to a count of lines we would read is
    // left alone.
    let multipv = spin("MultiPV").filter(|(_, s)| s.max() >= 1 && s.min() <= MAX_LINES as i64);

    let n = level.get();
    let mut options = Vec::new();
    let mut depth = None;
    let mut nodes = None;
    let mut want_lines = 1;
    let mut pick = Pick::Best;
    let mut skill_value = skill.as_ref().map(|(_, s)| s.max());
    let mut limit_elo = None;
    match n {
        0..=2 => {
            let (lines, random_permille, spread_cp, d) =
                [(8, 300, 300, 1), (6, 200, 200, 1), (4, 40, 60, 2)][usize::from(n)];
            want_lines = lines;
            depth = Some(d);
            pick = Pick::Weakened { lines: 1, random_permille, spread_cp };
        }
        3..=9 => {
            let (target_elo, target_skill, node_limit) = ENGINE_LEVELS[usize::from(n - 3)];
            if let Some(((_, elo), _)) = &elo {
                limit_elo = Some(elo.clamp(target_elo));
            } else if let Some((_, skill)) = &skill {
                skill_value = Some(skill.clamp(target_skill));
            } else {
                nodes = Some(node_limit);
            }
        }
        _ => {}
    }
    if let (Some((name, _)), Some(value)) = (&skill, skill_value) {
        options.push((name.clone(), value.to_string()));
    }
    if let Some(((elo_name, _), limit_name)) = &elo {
        options.push((limit_name.clone(), limit_elo.is_some().to_string()));
        if let Some(value) = limit_elo {
            options.push((elo_name.clone(), value.to_string()));
        }
    }
    let lines = match &multipv {
        Some((name, multipv)) => {
            let lines = multipv.clamp(i64::from(want_lines));
            options.push((name.clone(), lines.to_string()));
            u32::try_from(lines).unwrap_or(1)
        }
        None => 1,
    };
    if let Pick::Weakened { random_permille, spread_cp, .. } = pick {
        pick = Pick::Weakened { lines, random_permille, spread_cp };
    }
    LevelPlan { level, options, depth, nodes, movetime_cap_ms: MOVETIME_CAP_MS.get(usize::from(n)).copied(), pick }
}

/// The options for the engine's full strength, whatever level is set
/// (for hints): the top level's, one line.
pub fn full_strength(offered: &[UciOption]) -> Vec<(String, String)> {
    plan(Level::MAX, offered).options
}

/// How a weakened pick came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Picked {
    /// The engine's first line.
    Best,
    /// Another of the engine's lines (1-based MultiPV index).
    Line(u32),
    /// Any legal move, at random.
    Random,
}

/// Picks a move for [`Pick::Weakened`] from the lines of a search: `lines`
/// are `(first move, score in centipawns for the side to move)`, best
/// first; their moves must be legal in `pos`.
pub fn pick_weakened(
    pos: &Chess,
    lines: &[(Move, i32)],
    random_permille: u32,
    spread_cp: u32,
    rng: &mut impl Rng,
) -> Option<(Move, Picked)> {
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return None;
    }
    if lines.is_empty() || rng.random_range(0..1000) < random_permille {
        return Some((legal[rng.random_range(0..legal.len())], Picked::Random));
    }
    let best = lines.iter().map(|(_, s)| *s).max().unwrap_or(0);
    let spread = f64::from(spread_cp.max(1));
    let weights: Vec<f64> = lines.iter().map(|(_, s)| (-f64::from(best - s) / spread).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (i, ((m, _), w)) in lines.iter().zip(&weights).enumerate() {
        x -= w;
        if x <= 0.0 || i + 1 == lines.len() {
            let picked = if i == 0 { Picked::Best } else { Picked::Line(u32::try_from(i + 1).unwrap_or(u32::MAX)) };
            return Some((*m, picked));
        }
    }
    None
}

/// The first moves of the lines that are legal in `pos`, with their
/// scores, best first.
pub fn legal_first_moves(pos: &Chess, lines: &[crate::engine::PvLine]) -> Vec<(Move, i32)> {
    let mut out: Vec<(Move, i32)> = Vec::new();
    for line in lines {
        if let Some(m) = line.pv.first().and_then(|u: &UciMove| u.to_move(pos).ok())
            && !out.iter().any(|(seen, _)| *seen == m)
        {
            out.push((m, line.score.to_cp()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;
    use crate::protocol::parse_line;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    fn options(lines: &[&str]) -> Vec<UciOption> {
        lines
            .iter()
            .filter_map(|l| match parse_line(l) {
                Message::Option(o) => Some(o),
                _ => None,
            })
            .collect()
    }

    fn stockfish() -> Vec<UciOption> {
        options(&[
            "option name MultiPV type spin default 1 min 1 max 500",
            "option name Skill Level type spin default 20 min 0 max 20",
            "option name UCI_LimitStrength type check default false",
            "option name UCI_Elo type spin default 1350 min 1350 max 2850",
        ])
    }

    fn value<'a>(plan: &'a LevelPlan, name: &str) -> Option<&'a str> {
        plan.options.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn parses_levels() {
        assert_eq!("0".parse::<Level>(), Ok(Level::MIN));
        assert_eq!(" 10 ".parse::<Level>(), Ok(Level::MAX));
        assert!("11".parse::<Level>().unwrap_err().to_string().contains("0 (beginner) to 10"));
        assert!("-1".parse::<Level>().is_err());
    }

    #[test]
    fn stockfish_levels() {
        let sf = stockfish();
        let low = plan(Level::MIN, &sf);
        assert_eq!(low.pick, Pick::Weakened { lines: 8, random_permille: 300, spread_cp: 300 });
        assert_eq!(value(&low, "MultiPV"), Some("8"));
        assert_eq!(value(&low, "Skill Level"), Some("20"));
        assert_eq!(value(&low, "UCI_LimitStrength"), Some("false"));
        assert_eq!(low.depth, Some(1));

        let mid = plan(Level::new(5).unwrap(), &sf);
        assert_eq!(mid.pick, Pick::Best);
        assert_eq!(value(&mid, "UCI_LimitStrength"), Some("true"));
        assert_eq!(value(&mid, "UCI_Elo"), Some("1700"));
        assert_eq!(value(&mid, "MultiPV"), Some("1"));
        assert_eq!(mid.movetime_cap_ms, Some(300));

        let top = plan(Level::MAX, &sf);
        assert_eq!(value(&top, "UCI_LimitStrength"), Some("false"));
        assert_eq!(value(&top, "Skill Level"), Some("20"));
        assert_eq!((top.depth, top.nodes, top.movetime_cap_ms), (None, None, None));
        // The Elo asked is kept within what the engine offers.
        let three = plan(Level::new(3).unwrap(), &sf);
        assert_eq!(value(&three, "UCI_Elo"), Some("1350"));
    }

    #[test]
    fn engines_with_less() {
        let skill_only = options(&["option name Skill Level type spin default 10 min 0 max 10"]);
        let p = plan(Level::new(4).unwrap(), &skill_only);
        assert_eq!(value(&p, "Skill Level"), Some("3"));
        assert_eq!(p.nodes, None);
        let bare: Vec<UciOption> = Vec::new();
        let p = plan(Level::new(4).unwrap(), &bare);
        assert!(p.options.is_empty());
        assert_eq!(p.nodes, Some(1_000));
        // Without MultiPV the weakest level picks between the best move and a random one.
        assert_eq!(plan(Level::MIN, &bare).pick, Pick::Weakened { lines: 1, random_permille: 300, spread_cp: 300 });
    }

    #[test]
    fn narrow_and_useless_ranges() {
        let narrow = options(&[
            "option name MultiPV type spin default 3 min 3 max 3",
            "option name Skill Level type spin default 5 min 5 max 5",
        ]);
        for n in 0..=10 {
            let p = plan(Level::new(n).unwrap(), &narrow);
            assert_eq!((value(&p, "MultiPV"), value(&p, "Skill Level")), (Some("3"), Some("5")), "level {n}");
        }
        // No count of lines we would read: MultiPV is left alone.
        for line in [
            "option name MultiPV type spin default 0 min -5 max 0",
            "option name MultiPV type spin default 99 min 99 max 500",
        ] {
            let p = plan(Level::MIN, &options(&[line]));
            assert_eq!(value(&p, "MultiPV"), None, "{line}");
            assert_eq!(p.pick, Pick::Weakened { lines: 1, random_permille: 300, spread_cp: 300 });
        }
    }

    #[test]
    fn full_strength_for_hints() {
        let opts = full_strength(&stockfish());
        assert!(opts.contains(&("MultiPV".to_owned(), "1".to_owned())));
        assert!(opts.contains(&("UCI_LimitStrength".to_owned(), "false".to_owned())));
    }

    #[test]
    fn weakened_pick_prefers_better_lines_but_not_always() {
        let pos = Chess::default();
        let mv = |u: &str| u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        let lines = [(mv("e2e4"), 30), (mv("d2d4"), 25), (mv("g2g4"), -300)];
        let mut rng = SmallRng::seed_from_u64(7);
        let mut counts = [0u32; 4];
        for _ in 0..10_000 {
            match pick_weakened(&pos, &lines, 100, 100, &mut rng).unwrap().1 {
                Picked::Best => counts[0] += 1,
                Picked::Line(2) => counts[1] += 1,
                Picked::Line(_) => counts[2] += 1,
                Picked::Random => counts[3] += 1,
            }
        }
        // Random about 10 %; the two close lines about equally often; the bad line rarely.
        assert!((800..1200).contains(&counts[3]), "{counts:?}");
        assert!(counts[0] > 3500 && counts[1] > 3000, "{counts:?}");
        assert!(counts[2] > 0 && counts[2] < 300, "{counts:?}");
        // No legal move: nothing to pick.
        let mated: Chess = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        assert_eq!(pick_weakened(&mated, &[], 1000, 100, &mut rng), None);
    }
}
