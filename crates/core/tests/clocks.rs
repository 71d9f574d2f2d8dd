//! Replays under every time control PGN can express: the clock after each
//! move must be what the rules' arithmetic gives, worked out here by an
//! independent, deliberately plain model of a chess clock.

use shakmaty::Color;
use tactus_core::{EventKind, Policy, Session};
use tactus_sim::{GameSpec, Profile, simulate};
use tactus_trace::{Record, Variant};

/// A period: `moves` (None: the rest of the game) in `secs`, `inc` per move.
#[derive(Clone, Copy)]
struct Period {
    moves: Option<u32>,
    secs: u64,
    inc: u64,
}

enum Control {
    Periods(Vec<Period>),
    Hourglass(u64),
}

/// The reference clock: ms left for each side, after each press.
fn expected(control: &Control, presses: &[(u64, Color)]) -> Vec<i64> {
    let mut out = Vec::new();
    match control {
        Control::Hourglass(secs) => {
            let mut left = [*secs as i64 * 1000; 2];
            let mut since = 0;
            for &(t, side) in presses {
                let used = (t - since) as i64;
                let (me, them) = if side == Color::White { (0, 1) } else { (1, 0) };
                left[me] -= used;
                left[them] += used;
                since = t;
                out.push(left[me]);
            }
        }
        Control::Periods(periods) => {
            let mut left = [periods[0].secs as i64 * 1000; 2];
            let mut moves = [0u32; 2];
            let mut since = 0;
            for &(t, side) in presses {
                let me = usize::from(side == Color::Black);
                // Which period this move is in: walk the move counts, the last
                // period with a count repeating forever.
                let n = moves[me];
                let (mut index, mut start) = (0, 0);
                loop {
                    match periods[index].moves {
                        Some(m) if n >= start + m => {
                            start += m;
                            index = (index + 1).min(periods.len() - 1);
                        }
                        _ => break,
                    }
                }
                left[me] -= (t - since) as i64;
                left[me] += periods[index].inc as i64 * 1000;
                moves[me] += 1;
                // Reaching the period's move count brings the next period's time.
                if let Some(m) = periods[index].moves
                    && moves[me] == start + m
                {
                    let next = (index + 1).min(periods.len() - 1);
                    left[me] += periods[next].secs as i64 * 1000;
                }
                since = t;
                out.push(left[me]);
            }
        }
    }
    out
}

fn control(text: &str) -> Control {
    if let Some(secs) = text.strip_prefix('*') {
        return Control::Hourglass(secs.parse().unwrap());
    }
    let periods = text
        .split(':')
        .map(|p| {
            let (moves, rest) = match p.split_once('/') {
                Some((m, r)) => (Some(m.parse().unwrap()), r),
                None => (None, p),
            };
            let (secs, inc) = match rest.split_once('+') {
                Some((s, i)) => (s.parse().unwrap(), i.parse().unwrap()),
                None => (rest.parse().unwrap(), 0),
            };
            Period { moves, secs, inc }
        })
        .collect();
    Control::Periods(periods)
}

const CONTROLS: [&str; 9] = [
    "300",
    "5400+30",
    "180+2",
    "40/7200:3600",
    "40/7200:20/3600:1800",
    "40/7200:20/3600",
    "40/5400+30:1800+30",
    "30/900+10:15/600+5",
    "*180",
];

#[test]
fn every_pgn_time_control_replays_to_the_rules_arithmetic() {
    let sans = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3", "O-O", "h3",
        "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5", "Nc3", "Bb7", "Bg5", "b4", "Nb1", "h6", "Bh4", "c5", "dxe5",
        "Nxe4", "Bxe7", "Qxe7", "exd6", "Qf6", "Nbd2", "Nxd6", "Nc4", "Nxc4", "Bxc4", "Nb6", "Ne5", "Rae8", "Bxf7+",
        "Rxf7", "Nxf7", "Rxe1+", "Qxe1", "Kxf7", "Qe3", "Qg5", "Qxg5", "hxg5", "b3", "Ke6", "a3", "Kd6", "axb4",
        "cxb4", "Ra5", "Nd5", "f3", "Bc8", "Kf2", "Bf5", "Ra7", "g6", "Ra6+", "Kc5", "Ke1", "Nf4", "g3", "Nxh3", "Kd2",
        "Kb5", "Rd6", "Kc5", "Ra6", "Nf2", "g4", "Bd3", "Re6",
    ];
    for (i, text) in CONTROLS.iter().enumerate() {
        // Think times that stay well inside every control, one per ply.
        let think: Vec<u64> = (0..sans.len() as u64).map(|p| 1500 + (p * 7919 + i as u64 * 131) % 2500).collect();
        let mut spec = GameSpec::from_san(Variant::Standard, shakmaty::fen::Fen::default(), &sans).unwrap();
        spec.think_ms = think;
        let (entries, _) = simulate(&spec, Profile::Realistic, 7 + i as u64);
        let mut header = spec.header();
        header.time_control = Some(text.to_string());
        let mut session = Session::new(&header, Policy::default()).unwrap();
        let mut clocks = Vec::new();
        let mut presses = Vec::new();
        for e in &entries {
            if let Record::Clock(side) = e.record {
                presses.push((e.t, side));
            }
            session.handle(e.clone());
            for ev in session.drain() {
                if let EventKind::Complete { clock_ms, .. } = ev.kind {
                    clocks.push(clock_ms.expect("a clock"));
                }
            }
        }
        assert_eq!(clocks.len(), sans.len(), "{text}: every move completed");
        assert_eq!(clocks, expected(&control(text), &presses), "{text}");
    }
}
