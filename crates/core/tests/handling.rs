//! Property: random legal games under random physical handling — bounce,
//! slides, captures in any order, castling by every method, promotions,
//! knocked pieces, illegal moves and touch-move breaches, presses before the
//! piece lands and replies before the press — replay to exactly the game and
//! the rulings the simulated hands made.

use proptest::prelude::*;
use tactus_core::{EventKind, Policy, Session};
use tactus_sim::{Profile, random_game, simulate};

fn check(seed: u64, profile: Profile, chess960: bool) -> Result<(), TestCaseError> {
    let spec = random_game(seed, 160, chess960);
    let (entries, expect) = simulate(&spec, profile, seed ^ 0x9e37_79b9);
    let mut header = spec.header();
    header.time_control = Some("5400+30".into());
    if let Ok(path) = std::env::var("TACTUS_DUMP_TRACE") {
        // For a failing case: write the trace to look at, or to replay.
        let mut w = tactus_trace::TraceWriter::new(std::fs::File::create(path).unwrap());
        w.write_header(&header).unwrap();
        entries.iter().for_each(|e| w.write_entry(e).unwrap());
    }
    let mut session = Session::new(&header, Policy::default()).expect("valid start");
    let mut events = Vec::new();
    for entry in entries.iter().cloned() {
        session.handle(entry);
        events.extend(session.drain());
    }
    let sans: Vec<String> = session.game().played.iter().map(|p| p.info.san.clone()).collect();
    prop_assert_eq!(&sans, &expect.moves_san, "moves (seed {}, {}, 960 {})", seed, profile, chess960);
    let mut rulings: Vec<(String, u32)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Irregularity(i) => Some((format!("{} {:?}", i.article.as_str(), i.side), i.ply)),
            _ => None,
        })
        .collect();
    let mut wanted: Vec<(String, u32)> =
        expect.irregularities.iter().map(|x| (format!("{} {:?}", x.article, x.side), x.ply)).collect();
    rulings.sort();
    wanted.sort();
    prop_assert_eq!(rulings, wanted, "rulings (seed {}, {}, 960 {})", seed, profile, chess960);
    let result = session.game().ending.map(|e| e.result.as_str().to_string());
    prop_assert_eq!(result, expect.result, "result (seed {}, {})", seed, profile);
    Ok(())
}

fn profiles() -> impl Strategy<Value = Profile> {
    prop_oneof![
        Just(Profile::Clean),
        Just(Profile::Realistic),
        Just(Profile::Hostile),
        Just(Profile::Irregular),
        Just(Profile::Blitz)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_games_under_random_handling_replay_exactly(seed in any::<u64>(), profile in profiles(), chess960 in any::<bool>()) {
        check(seed, profile, chess960)?;
    }
}

/// Cases the property once found, kept as plain tests.
#[test]
fn known_hard_cases() {
    for (seed, profile, chess960) in [
        (16737322318042841379, Profile::Irregular, true),
        (4404976878237585246, Profile::Irregular, true),
        (7715301150478611319, Profile::Irregular, false),
        (11364071918316018947, Profile::Blitz, false),
        (3844724039533897052, Profile::Blitz, true),
        (14207247781526722175, Profile::Hostile, true),
        (16501429931229466899, Profile::Irregular, true),
    ] {
        check(seed, profile, chess960).unwrap();
    }
}
