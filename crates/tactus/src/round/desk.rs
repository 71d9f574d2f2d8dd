//! The round as the relay holds it: which hall board is each of its boards,
//! which needs its pairing (again), the results seen and those the arbiter
//! set, and the file with them written in. Pure: the hall and the time are
//! given; `mod.rs` does the sending and the reading of the file.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use tactus_net::{BoardFeed, Hall, RoundBoard, RoundError, RoundUnpaired, RoundView, board_number};
use tactus_retry::Backoff;
use tactus_trace::{GameResult, Pairing};
use tactus_trf::{Layout, Outcome};

use super::kept::{Kept, KeptBoard};
use super::load::{FileError, Loaded};

/// The first wait before a pairing is sent again to a board that does not
/// show it; it doubles up to [`RESEND_MAX`].
const RESEND_FIRST: Duration = Duration::from_secs(2);
const RESEND_MAX: Duration = Duration::from_secs(60);

/// A pairing to send: the board's id, its run, the pairing.
pub type Send = (String, u64, Pairing);

/// When a board was last sent its pairing, in which of its runs.
#[derive(Debug, Clone)]
struct Sent {
    epoch: u64,
    next: Instant,
    /// The waits before the next sendings: exact steps, the desk being
    /// pure (its tests give the time).
    backoff: Backoff,
}

/// A round board's place in the hall, as last looked at.
#[derive(Debug, Clone, Default)]
struct Seen {
    id: Option<String>,
    problem: Option<String>,
    shown: bool,
}

#[derive(Debug)]
pub struct Desk {
    pub loaded: Option<Loaded>,
    /// Why the last reading of the file failed.
    pub error: Option<String>,
    /// The results the boards' games ended with, kept once seen: a board's
    /// next game clears its record in the hall.
    games: BTreeMap<u32, Outcome>,
    /// The results the arbiter set or corrected.
    arbiter: BTreeMap<u32, Outcome>,
    boards: BTreeMap<u32, Seen>,
    sent: HashMap<String, Sent>,
    /// The boards that showed their pairing, in which run.
    shown: HashSet<(String, u64)>,
}

impl Desk {
    pub fn new(loaded: Loaded) -> Desk {
        Desk {
            loaded: Some(loaded),
            error: None,
            games: BTreeMap::new(),
            arbiter: BTreeMap::new(),
            boards: BTreeMap::new(),
            sent: HashMap::new(),
            shown: HashSet::new(),
        }
    }

    /// The round now.
    pub fn number(&self) -> Option<u32> {
        self.loaded.as_ref().map(|l| l.round.number)
    }

    /// A round read again: the results of a board whose players are the
    /// same stay when it is the same round (a pairing corrected); a new
    /// round starts afresh. Every board is told its pairing again.
    pub fn replace(&mut self, loaded: Loaded) {
        let old = self.loaded.take();
        let same = |n: u32| {
            let pair = |l: &Loaded| l.round.board(n).map(|b| (b.white, b.black));
            old.as_ref().is_some_and(|o| o.round.number == loaded.round.number && pair(o) == pair(&loaded))
        };
        self.games.retain(|&n, _| same(n));
        self.arbiter.retain(|&n, _| same(n));
        self.boards.clear();
        self.sent.clear();
        self.shown.clear();
        self.error = None;
        self.loaded = Some(loaded);
    }

    /// The arbiter sets board `board`'s result, or takes the game's again.
    pub fn set_result(&mut self, board: u32, result: Option<Outcome>) -> Result<(), RoundError> {
        let Some(loaded) = &self.loaded else { return Err(RoundError::NoRound) };
        if !loaded.pairings.contains_key(&board) {
            return Err(RoundError::NoBoard { round: loaded.round.number, board });
        }
        match result {
            Some(r) => self.arbiter.insert(board, r),
            None => self.arbiter.remove(&board),
        };
        Ok(())
    }

    /// Looks at the hall: which board is which, which shows its pairing,
    /// which ended its game; the pairings due to be sent, now.
    pub fn look(&mut self, hall: &Hall, now: Instant) -> Vec<Send> {
        let Some(loaded) = &self.loaded else { return Vec::new() };
        let mut by_number: BTreeMap<u32, Vec<&BoardFeed>> = BTreeMap::new();
        for feed in hall.feeds() {
            if let Some(n) = board_number(hall.matches(), &feed.id) {
                by_number.entry(n).or_default().push(feed);
            }
        }
        let mut out = Vec::new();
        for (&n, pairing) in &loaded.pairings {
            let seen = self.boards.entry(n).or_default();
            *seen = Seen::default();
            let feed = match by_number.get(&n).map(Vec::as_slice) {
                None | Some([]) => continue,
                Some([feed]) => *feed,
                Some(many) => {
                    let ids: Vec<&str> = many.iter().map(|f| f.id.as_str()).collect();
                    seen.problem =
                        Some(format!("the ids of boards {} all end in {n}: give them others", ids.join(", ")));
                    continue;
                }
            };
            seen.id = Some(feed.id.clone());
            seen.shown = shows(feed, pairing);
            if seen.shown {
                self.shown.insert((feed.id.clone(), feed.epoch));
                if let Some(result) = feed.result {
                    self.games.insert(n, played(result));
                }
                continue;
            }
            // A board told once in this run and gone on to its next game, or
            // whose game has a result, is not told again.
            let done = self.shown.contains(&(feed.id.clone(), feed.epoch))
                || self.games.contains_key(&n)
                || self.arbiter.contains_key(&n);
            if done || feed.epoch == 0 {
                continue;
            }
            let sent = self.sent.get(&feed.id).filter(|s| s.epoch == feed.epoch);
            if sent.is_some_and(|s| now < s.next) {
                continue;
            }
            let mut backoff = sent.map_or(Backoff::new(RESEND_FIRST, RESEND_MAX), |s| s.backoff.clone());
            let next = now + backoff.next_step();
            self.sent.insert(feed.id.clone(), Sent { epoch: feed.epoch, next, backoff });
            out.push((feed.id.clone(), feed.epoch, pairing.clone()));
        }
        out
    }

    /// The results to keep on disk: each board's that has one, with its
    /// players.
    pub fn kept(&self) -> Option<Kept> {
        let loaded = self.loaded.as_ref()?;
        let boards = loaded
            .round
            .boards
            .iter()
            .filter_map(|b| {
                let game = self.games.get(&b.number).copied();
                let arbiter = self.arbiter.get(&b.number).copied();
                (game.is_some() || arbiter.is_some()).then_some(KeptBoard {
                    board: b.number,
                    white: b.white,
                    black: b.black,
                    game,
                    arbiter,
                })
            })
            .collect();
        Some(Kept { trf: loaded.file.clone(), round: loaded.round.number, boards })
    }

    /// Results kept before a restart taken back: those of this round of this
    /// file whose board has the same two players (as [`Desk::replace`]
    /// keeps them). How many boards had some.
    pub fn restore(&mut self, kept: &Kept) -> usize {
        let Some(loaded) = &self.loaded else { return 0 };
        if kept.trf != loaded.file || kept.round != loaded.round.number {
            return 0;
        }
        let mut taken = 0;
        for k in &kept.boards {
            let same = loaded.round.board(k.board).is_some_and(|b| (b.white, b.black) == (k.white, k.black));
            if !same {
                continue;
            }
            if let Some(r) = k.game {
                self.games.insert(k.board, r);
            }
            if let Some(r) = k.arbiter {
                self.arbiter.insert(k.board, r);
            }
            taken += 1;
        }
        taken
    }

    /// A board's result as the file gets it: the arbiter's, else the game's.
    fn result(&self, board: u32) -> Option<Outcome> {
        self.arbiter.get(&board).or_else(|| self.games.get(&board)).copied()
    }

    /// The file with the round's results written in, and its name.
    pub fn trf(&self) -> Result<(String, Vec<u8>), RoundError> {
        let Some(loaded) = &self.loaded else { return Err(RoundError::NoRound) };
        let results: BTreeMap<u32, Outcome> =
            loaded.pairings.keys().filter_map(|&n| self.result(n).map(|r| (n, r))).collect();
        let bytes = loaded
            .trf
            .with_results(&loaded.round, &results)
            .map_err(|source| RoundError::File(Box::new(FileError::Trf { file: loaded.file.clone(), source })))?;
        let name = loaded.file.file_name().map_or("round.trf".into(), |n| n.to_string_lossy().into_owned());
        Ok((name, bytes))
    }

    /// The round as the arbiter's page shows it.
    pub fn view(&self, file: &str) -> RoundView {
        let Some(loaded) = &self.loaded else {
            return RoundView { file: file.to_string(), error: self.error.clone(), ..RoundView::default() };
        };
        let boards = loaded
            .round
            .boards
            .iter()
            .map(|b| {
                let seen = self.boards.get(&b.number).cloned().unwrap_or_default();
                let pairing = &loaded.pairings[&b.number];
                RoundBoard {
                    number: b.number,
                    white: pairing.white.clone(),
                    black: pairing.black.clone(),
                    id: seen.id,
                    problem: seen.problem,
                    shown: seen.shown,
                    game: self.games.get(&b.number).copied(),
                    arbiter: self.arbiter.get(&b.number).copied(),
                    result: self.result(b.number).or_else(|| Outcome::of_codes(b.white_code, b.black_code)),
                }
            })
            .collect();
        let unpaired = loaded
            .round
            .unpaired
            .iter()
            .filter_map(|u| {
                let p = loaded.trf.player(u.player)?;
                Some(RoundUnpaired {
                    name: p.name.clone(),
                    rank: u.player,
                    code: u.code.map(|c| c.as_char().to_string()),
                })
            })
            .collect();
        RoundView {
            file: file.to_string(),
            round: Some(loaded.round.number),
            tournament: loaded.trf.tournament().map(str::to_string),
            layout: Some(match loaded.trf.layout() {
                Layout::Trf16 => "TRF-16".into(),
                Layout::Trf26 => "TRF-26".into(),
            }),
            error: self.error.clone(),
            boards,
            unpaired,
        }
    }
}

/// Whether a board's tags are the pairing's: the board took it.
fn shows(feed: &BoardFeed, p: &Pairing) -> bool {
    let t = &feed.tags;
    t.round.as_deref() == Some(p.round.to_string().as_str())
        && t.board == Some(p.board)
        && t.white.as_deref() == Some(p.white.name.as_str())
        && t.black.as_deref() == Some(p.black.name.as_str())
}

/// A game's result, played on the board.
fn played(result: GameResult) -> Outcome {
    match result {
        GameResult::WhiteWins => Outcome::WhiteWins,
        GameResult::Draw => Outcome::Draw,
        GameResult::BlackWins => Outcome::BlackWins,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use tactus_core::{Event, EventKind};
    use tactus_net::{Change, Tags};
    use tactus_trace::GameResult;

    fn loaded() -> Loaded {
        let bytes =
            std::fs::read(format!("{}/../trf/tests/files/open-round1.trf", env!("CARGO_MANIFEST_DIR"))).unwrap();
        super::super::load::load(Path::new("/srv/open.trf"), &bytes, 1, 256).unwrap()
    }

    /// A hall whose board `id` ran in `epoch`.
    fn heard(hall: &mut Hall, id: &str, epoch: u64) {
        hall.change_numbered(id, epoch, 1, &Change::Tags(Tags::default()));
    }

    fn took(hall: &mut Hall, id: &str, epoch: u64, seq: u64, p: &Pairing) {
        let ev = Event { t: 0, kind: EventKind::Pairing(Box::new(p.clone())) };
        hall.change_numbered(id, epoch, seq, &Change::Event(ev.into()));
    }

    #[test]
    fn each_board_is_told_until_it_shows_its_pairing() {
        let mut desk = Desk::new(loaded());
        let mut hall = Hall::new("club").trusting(true);
        let t0 = Instant::now();
        assert!(desk.look(&hall, t0).is_empty(), "no board heard yet");
        heard(&mut hall, "b3", 77);
        heard(&mut hall, "spare", 5);
        let sent = desk.look(&hall, t0);
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].0.as_str(), sent[0].1, sent[0].2.board), ("b3", 77, 3));
        assert!(desk.look(&hall, t0 + Duration::from_secs(1)).is_empty(), "not again at once");
        assert_eq!(desk.look(&hall, t0 + RESEND_FIRST).len(), 1, "again after a while");
        assert!(desk.look(&hall, t0 + RESEND_FIRST * 2).is_empty(), "twice as long the next time");
        // A new run of the board: told at once.
        heard(&mut hall, "b3", 78);
        assert_eq!(desk.look(&hall, t0 + RESEND_FIRST * 2).len(), 1);
        // Shown: no more; its result kept when its game ends.
        let p = loaded().pairings[&3].clone();
        took(&mut hall, "b3", 78, 2, &p);
        assert!(desk.look(&hall, t0 + RESEND_MAX * 2).is_empty());
        assert!(desk.view("open.trf").boards[2].shown);
        let over = Event {
            t: 9,
            kind: EventKind::GameOver {
                result: GameResult::BlackWins,
                reason: tactus_core::EndReason::Checkmate,
                article: tactus_core::Article::A5_1_1,
                undetermined: false,
            },
        };
        hall.change_numbered("b3", 78, 3, &Change::Event(over.into()));
        desk.look(&hall, t0);
        // The board's next game: not told round 1 again, the result kept.
        hall.change_numbered("b3", 78, 4, &Change::Tags(Tags::default()));
        assert!(desk.look(&hall, t0 + RESEND_MAX * 3).is_empty());
        let view = desk.view("open.trf");
        assert_eq!(
            (view.boards[2].game, view.boards[2].result, view.boards[2].shown),
            (Some(Outcome::BlackWins), Some(Outcome::BlackWins), false)
        );
    }

    #[test]
    fn two_boards_ending_in_one_number_are_told_nothing() {
        let mut desk = Desk::new(loaded());
        let mut hall = Hall::new("club").trusting(true);
        heard(&mut hall, "b1", 1);
        heard(&mut hall, "table-01", 1);
        assert!(desk.look(&hall, Instant::now()).is_empty());
        let problem = desk.view("f").boards[0].problem.clone().unwrap();
        assert!(problem.contains("b1, table-01") && problem.contains("end in 1"), "{problem}");
    }

    #[test]
    fn the_file_gets_the_games_and_the_arbiters_results() {
        let mut desk = Desk::new(loaded());
        let (name, same) = desk.trf().unwrap();
        assert_eq!(name, "open.trf");
        assert_eq!(same, desk.loaded.as_ref().unwrap().trf.bytes(), "no result yet: the file as it was");
        desk.games.insert(1, Outcome::WhiteWins);
        desk.games.insert(2, Outcome::Draw);
        desk.set_result(3, Some(Outcome::BlackWins)).unwrap();
        desk.set_result(4, Some(Outcome::BlackWinsByForfeit)).unwrap();
        let expected =
            std::fs::read(format!("{}/../trf/tests/files/open-round1.results.trf", env!("CARGO_MANIFEST_DIR")))
                .unwrap();
        assert_eq!(desk.trf().unwrap().1, expected);
        // A correction, and one taken back.
        desk.set_result(2, Some(Outcome::WhiteWins)).unwrap();
        desk.set_result(4, None).unwrap();
        let view = desk.view("open.trf");
        assert_eq!((view.boards[1].result, view.boards[1].game), (Some(Outcome::WhiteWins), Some(Outcome::Draw)));
        assert_eq!(view.boards[3].result, None);
        assert!(desk.set_result(9, None).is_err());
        // The same round read again keeps them; the next starts afresh.
        desk.replace(loaded());
        assert_eq!(desk.view("f").boards[1].result, Some(Outcome::WhiteWins));
    }

    #[test]
    fn a_game_s_result_is_spelled_on_the_page_as_in_its_pgn() {
        for result in [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins] {
            assert_eq!(played(result).as_str(), result.as_str());
        }
    }

    #[test]
    fn the_results_kept_are_taken_back_for_the_same_players_only() {
        let mut desk = Desk::new(loaded());
        assert_eq!(desk.kept().unwrap().boards, [], "nothing to keep yet");
        desk.games.insert(1, Outcome::Draw);
        desk.set_result(1, Some(Outcome::WhiteWins)).unwrap();
        desk.set_result(4, Some(Outcome::DoubleForfeit)).unwrap();
        let kept = desk.kept().unwrap();
        assert_eq!((kept.trf.as_path(), kept.round, kept.boards.len()), (Path::new("/srv/open.trf"), 1, 2));
        // A relay restarted: the same file, the same round.
        let mut restarted = Desk::new(loaded());
        assert_eq!(restarted.restore(&kept), 2);
        assert_eq!(restarted.trf().unwrap(), desk.trf().unwrap());
        assert_eq!(restarted.view("f").boards[0].game, Some(Outcome::Draw));
        // A board whose players are not those kept, another round, another file: nothing.
        let mut other = kept.clone();
        other.boards[0].black += 1;
        let mut fresh = Desk::new(loaded());
        assert_eq!(fresh.restore(&other), 1, "board 4 only");
        assert_eq!(fresh.view("f").boards[0].result, None);
        for wrong in [Kept { round: 2, ..kept.clone() }, Kept { trf: "/srv/other.trf".into(), ..kept.clone() }] {
            let mut fresh = Desk::new(loaded());
            assert_eq!(fresh.restore(&wrong), 0);
        }
    }
}
