//! Verdicts against CHA-Solver's labelled sets (tests/data/SOURCES.md):
//! every verdict reached agrees with its label, every mate comes with a line
//! that mates, and the quick check never contradicts a label.

#[path = "common/labelled.rs"]
mod labelled;

use std::collections::BTreeSet;

use labelled::Labelled;
use shakmaty::{Chess, Color, Move, Position};
use tactus_mate::{Budget, Verdict, can_mate, quick_check};

/// Plays `helpmate` from `pos`; `Err` says why it is not a mate by `side`.
fn check_helpmate(pos: &Chess, side: Color, helpmate: &[Move]) -> Result<(), String> {
    let mut pos = pos.clone();
    for &m in helpmate {
        if !pos.is_legal(m) {
            return Err(format!("{m:?} is not legal"));
        }
        pos.play_unchecked(m);
    }
    if pos.is_checkmate() && pos.turn() == !side { Ok(()) } else { Err("the line does not end in mate".into()) }
}

/// Runs both searches on both sides of every position; returns the
/// questions left undetermined as `"<side> <FEN>"`, and fails on any
/// contradiction.
fn run(set: &str, budget: Budget) -> BTreeSet<String> {
    let positions: Vec<Labelled> = labelled::load(set).unwrap_or_else(|e| panic!("{e}"));
    assert!(positions.len() > 1000, "{set}: only {} positions", positions.len());
    let mut undetermined = BTreeSet::new();
    let mut failures = Vec::new();
    for labelled in &positions {
        for (side, label) in [(Color::White, labelled.white_can_mate), (Color::Black, labelled.black_can_mate)] {
            let place =
                format!("{} ({side} to mate, label says {})", labelled.place, if label { "can" } else { "cannot" });
            match quick_check(&labelled.position, side) {
                Verdict::CanMate { helpmate } if label => {
                    if let Err(why) = check_helpmate(&labelled.position, side, &helpmate) {
                        failures.push(format!("{place}: quick check's helpmate: {why}"));
                    }
                }
                Verdict::CannotMate if !label => {}
                Verdict::Undetermined => {}
                other => failures.push(format!("{place}: quick check says {other:?}")),
            }
            match can_mate(&labelled.position, side, budget).verdict {
                Verdict::CanMate { helpmate } if label => {
                    if let Err(why) = check_helpmate(&labelled.position, side, &helpmate) {
                        failures.push(format!("{place}: helpmate: {why}"));
                    }
                }
                Verdict::CannotMate if !label => {}
                Verdict::Undetermined => {
                    undetermined.insert(format!("{side} {}", labelled.fen));
                }
                other => failures.push(format!("{place}: full search says {other:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{} contradictions:\n{}", failures.len(), failures.join("\n"));
    undetermined
}

#[test]
fn every_lichess_position_is_decided_as_labelled_within_the_default_budget() {
    let undetermined = run("lichess", Budget::DEFAULT);
    assert!(undetermined.is_empty(), "undetermined:\n{}", undetermined.into_iter().collect::<Vec<_>>().join("\n"));
}

/// The community set's constructed puzzles include some that need millions
/// of steps; the test searches them with a tenth of the default budget (so
/// that it runs in under a minute) and checks that the ones left
/// undetermined are exactly those listed.
#[test]
fn community_positions_are_decided_as_labelled_except_the_listed_hard_ones() {
    let undetermined = run("community", Budget::steps(200_000));
    let listed = include_str!("data/community-undetermined-200k.txt");
    let listed: BTreeSet<String> =
        listed.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::to_string).collect();
    let news: Vec<&String> = undetermined.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(&undetermined).collect();
    assert!(
        news.is_empty() && gone.is_empty(),
        "newly undetermined:\n{}\nno longer undetermined:\n{}",
        news.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
        gone.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}
