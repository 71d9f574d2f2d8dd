//! Between games. A game is over: its journal is closed, and the game
//! still answers questions while the board is set up again. The next game
//! begins when the board shows the starting position (a sensor board plays
//! game after game), or when an online opponent starts one (a server's
//! game, which a stand-in's board goes into). A pairing the hall sends
//! for the next game, and a DGT clock started before the last piece is
//! back, are the next game's.

use std::time::Instant;

use shakmaty::Bitboard;
use tactus_core::Session;
use tactus_net::SentPairing;
use tactus_trace::{Entry, Input, Pairing, Record};
use tokio::sync::mpsc;

use super::super::date::{pgn_date, unix_seconds};
use super::super::input::Incoming;
use super::super::opponent::NewGame;
use super::super::pairing::{Offer, Seating};
use super::state::Step;
use super::{GameTask, Phase};

/// The board after a game.
pub struct Between {
    /// What it shows.
    shows: Bitboard,
    /// The clock's own inputs meanwhile (a DGT clock started, or set,
    /// before the last piece is back): the next game begins with them.
    clock: Vec<Input>,
}

impl Between {
    /// A clock input, kept for the next game: the latest of each kind
    /// (the times set, running or not) counts.
    fn keep_clock(&mut self, input: Input) {
        let running = |i: &Input| matches!(i, Input::Pause | Input::Resume);
        self.clock.retain(|kept| if running(&input) { !running(kept) } else { running(kept) });
        self.clock.push(input);
    }
}

/// Whose games the board plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Games {
    /// Stand-ins for an online server's game not started yet
    /// (`Setup::online`): not announced, and what the board shows of one
    /// goes into the server's game when it starts.
    StandIn,
    /// Its own, or the server's.
    Real,
}

/// The round's pairings the hall sends, which the board takes.
pub struct Hall {
    pairings: Option<mpsc::Receiver<SentPairing>>,
    seating: Seating,
    /// A pairing taken for the next game (the last is over, or this one is
    /// an earlier round's): journaled and said when the next game begins.
    next: Option<Pairing>,
}

impl Hall {
    /// The board holding the pairing of the game it opened (a recovered
    /// game's round is the board's), and no hall yet.
    pub fn holding(session: &Session) -> Hall {
        Hall { pairings: None, seating: Seating::holding(session.game().pairing.as_ref()), next: None }
    }

    /// The round's pairings the hall sends are taken from now on.
    pub fn listen(&mut self, pairings: mpsc::Receiver<SentPairing>) {
        self.pairings = Some(pairings);
    }

    /// The next pairing the hall sends; never, without the hall.
    pub async fn next(&mut self) -> Option<SentPairing> {
        match &mut self.pairings {
            Some(rx) => rx.recv().await,
            None => std::future::pending().await,
        }
    }
}

/// What the board shows of a stand-in game, as inputs for the game `next`
/// that replaces it: the squares that differ from its start, and a press
/// for each move the stand-in completed (the player's presses, meant for
/// the new game).
fn carried_over(stand_in: &Session, next: &Session) -> Vec<Record> {
    let shows = stand_in.occupancy();
    let mut records: Vec<Record> = (next.occupancy() ^ shows)
        .into_iter()
        .map(|sq| Record::Edge { sq, on: shows.contains(sq), piece: None })
        .collect();
    records.extend(stand_in.game().played.iter().map(|p| Record::Clock(p.info.side)));
    records
}

impl GameTask {
    /// The game is over: its journal is closed (the trace stays), and the
    /// board is between games.
    pub(super) async fn close_game(&mut self) -> anyhow::Result<()> {
        if let Some(path) = self.state.close_journal().await? {
            tracing::info!("the game is over; its trace is {}", path.display());
        }
        self.phase = Phase::Between(Between { shows: self.state.session().occupancy(), clock: Vec::new() });
        Ok(())
    }

    /// An input between games, from the board, the clock or a player.
    pub(super) async fn between_games(&mut self, msg: Incoming) -> anyhow::Result<()> {
        let Phase::Between(between) = &mut self.phase else { return Ok(()) };
        let (t, record) = match msg {
            Incoming::At(at, record) => (self.state.t(at), record),
            Incoming::Exact(Entry { t, record }) => (t.max(self.state.last_t()), record),
            // The game that ended answers it changes nothing now.
            Incoming::PlayerButton(at, button) => match self.state.player() {
                Some(side) => (self.state.t(at), Record::Input(button.input(side))),
                None => return Ok(()),
            },
            Incoming::PauseButton(_) | Incoming::Notice(..) | Incoming::Quiet(_) => return Ok(()),
        };
        match record {
            Record::Edge { sq, on, .. } if self.state.setup.real_board => {
                between.shows.set(sq, on);
                if between.shows == self.state.setup.start_occupancy()? {
                    let clock = std::mem::take(&mut between.clock);
                    self.next_game().await?;
                    for input in clock {
                        self.state.commit_input(input).await?;
                    }
                }
            }
            Record::Input(Input::ClockConnected(connected)) => self.state.set_clock_connected(connected),
            Record::Input(input @ (Input::SetClock { .. } | Input::Pause | Input::Resume)) => between.keep_clock(input),
            // A player's question or button: the game that ended answers.
            Record::Input(input) => self.state.after_the_end(Entry { t, record: Record::Input(input) }).await,
            _ => {}
        }
        Ok(())
    }

    /// The board shows the starting position again: a new game, with the
    /// pairing held for it said at set-up, before the first move.
    async fn next_game(&mut self) -> anyhow::Result<()> {
        tracing::info!("the board shows the starting position: a new game");
        let mut header = self.state.setup.header.clone();
        header.date = Some(pgn_date(unix_seconds()));
        let policy = self.state.setup.policy.clone();
        self.phase = Phase::Playing;
        self.state.start_game(&header, policy).await?;
        if let Some(pairing) = self.hall.next.take() {
            let entry = Entry { t: self.state.last_t(), record: Record::Pairing(Box::new(pairing)) };
            self.state.commit(Step::Input(entry)).await?;
        }
        Ok(())
    }

    /// The opponent started a game (a server's): the journal's game goes on
    /// (a restart), or a new game begins with its players and clock, the
    /// opponent's side played as an engine's — its moves guided onto the
    /// board and completed when the board shows them.
    pub(super) async fn server_game(&mut self, game: NewGame) -> anyhow::Result<()> {
        let same = self.state.site.as_deref() == Some(game.site.as_str());
        let playing = matches!(self.phase, Phase::Playing);
        let mut carried = Vec::new();
        if !(same && playing && !self.state.session().finished()) {
            // What the board shows of the stand-in's (a move made as the
            // server's game was starting) is the new game's, not lost.
            let stand_in = std::mem::replace(&mut self.games, Games::Real) == Games::StandIn;
            if let Some(path) = self.state.close_journal().await? {
                // A game not begun on the board is no game, and a stand-in's
                // moves go into the new one: nothing is lost.
                if playing && (stand_in || self.state.session().game().played.is_empty()) {
                    let _ = std::fs::remove_file(&path);
                }
            }
            let mut header = self.state.setup.header.clone();
            header.date = Some(pgn_date(unix_seconds()));
            header.white = Some(game.white);
            header.black = Some(game.black);
            header.time_control = game.time_control;
            header.site = Some(game.site.clone());
            let mut policy = self.state.setup.policy.clone();
            policy.engine = Some(game.side);
            policy.engine_override = false;
            // The server judges take-backs, and its clock is the game's.
            policy.online = true;
            policy.server_clock = true;
            policy.record(&mut header);
            self.phase = Phase::Playing;
            let last = self.state.start_game(&header, policy).await?;
            self.state.site = Some(game.site);
            if stand_in {
                carried = carried_over(&last, self.state.session());
            }
        }
        // The server's clock runs, whatever the board's did while the
        // daemon was away.
        if self.state.session().clock().is_some_and(|c| c.running().is_none()) {
            let t = self.state.t(Instant::now());
            self.state.commit(Step::Input(Entry { t, record: Record::Input(Input::Resume) })).await?;
        }
        self.carry_in(carried).await
    }

    /// What the stand-in's board showed, as the new game's inputs: the
    /// board first, read as a move once it holds still; then the presses,
    /// which complete it.
    async fn carry_in(&mut self, carried: Vec<Record>) -> anyhow::Result<()> {
        let (edges, presses): (Vec<Record>, Vec<Record>) =
            carried.into_iter().partition(|r| matches!(r, Record::Edge { .. }));
        for record in edges {
            self.state.commit(Step::Input(Entry { t: self.state.last_t(), record })).await?;
        }
        if !presses.is_empty() {
            let policy = &self.state.setup.policy;
            let settled = self.state.last_t() + policy.debounce_ms + policy.settle_ms;
            self.state.commit(Step::Timers(settled)).await?;
        }
        for record in presses {
            self.state.commit(Step::Input(Entry { t: self.state.last_t(), record })).await?;
        }
        Ok(())
    }

    /// A pairing the hall sent: taken if it is newer than the board's
    /// (`pairing.rs`), for the game being played when that is the round's
    /// game — not begun, or begun before any pairing came, or the same
    /// round corrected — else for the next game.
    pub(super) async fn pairing(&mut self, sent: SentPairing) -> anyhow::Result<()> {
        let pairing = match self.hall.seating.offer(sent) {
            Offer::Take(pairing) => pairing,
            Offer::Same => return Ok(()),
            Offer::Stale(why) => {
                tracing::warn!("a pairing from the hall was refused: {why}");
                return Ok(());
            }
        };
        let game = self.state.session().game();
        let this_game = matches!(self.phase, Phase::Playing)
            && !self.state.session().finished()
            && (game.played.is_empty() || game.pairing.as_ref().is_none_or(|p| p.round == pairing.round));
        if this_game {
            self.hall.next = None;
            let t = self.state.t(Instant::now());
            self.state.commit(Step::Input(Entry { t, record: Record::Pairing(Box::new(pairing)) })).await
        } else {
            tracing::info!(
                "the pairing of round {}, board {}, is for the next game on this board",
                pairing.round,
                pairing.board
            );
            self.hall.next = Some(pairing);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::time::{Duration, Instant};

    use shakmaty::Color;
    use tactus_core::Policy;
    use tactus_trace::{Entry, Header, Input, Record};
    use tokio::sync::mpsc;
    use tokio_util::sync::CancellationToken;

    use super::super::{Ended, GameTask};
    use crate::config::Speed;
    use crate::daemon::event_log::EventLog;
    use crate::daemon::input::Incoming;
    use crate::daemon::opening::{Setup, open};
    use crate::daemon::outputs::Outputs;
    use crate::daemon::source::Origin;
    use crate::daemon::time::GameTime;

    /// Events written as JSON Lines, kept for the test to read.
    #[derive(Clone, Default)]
    struct Kept(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Between games a DGT clock may be set and started and stopped again
    /// before the last piece is back: the next game begins with the times
    /// last set and the clock as last left, nothing older.
    #[test]
    fn between_games_the_clock_keeps_its_latest_times_and_its_latest_start_or_stop() {
        let mut between = super::Between { shows: shakmaty::Bitboard::EMPTY, clock: Vec::new() };
        let set = |s: u64| Input::SetClock { white_ms: s * 1000, black_ms: s * 1000 };
        for input in [set(60), Input::Resume, set(30), Input::Pause] {
            between.keep_clock(input);
        }
        assert_eq!(between.clock, [set(30), Input::Pause]);
        between.keep_clock(Input::Resume);
        assert_eq!(between.clock, [set(30), Input::Resume]);
    }

    /// Black starts the clocks; 1. f3 e5 2. g4 Qh4#, each move pressed
    /// (`pressed`) or not (then the time asked after the mate, which a
    /// queue of inputs all waiting gives to the game the mate ends); then
    /// the pieces go back, the last from 11.5 s on, with `before_last` just
    /// before it.
    fn fools_mate_then_set_up_again(pressed: bool, before_last: Vec<Incoming>) -> Vec<Incoming> {
        use shakmaty::Square::*;
        let edge = |t, sq, on| Incoming::Exact(Entry { t, record: Record::Edge { sq, on, piece: None } });
        let press = |t, side| Incoming::Exact(Entry { t, record: Record::Clock(side) });
        let mut inputs = if pressed { vec![press(100, Color::Black)] } else { Vec::new() };
        let moves = [(F2, F3, Color::White), (E7, E5, Color::Black), (G2, G4, Color::White), (D8, H4, Color::Black)];
        for (i, (from, to, side)) in moves.into_iter().enumerate() {
            let t = 1000 * (i as u64 + 1);
            inputs.extend([edge(t, from, false), edge(t + 200, to, true)]);
            if pressed {
                inputs.push(press(t + 800, side));
            }
        }
        if !pressed {
            let time = tactus_trace::Request::Time;
            inputs.push(Incoming::Exact(Entry { t: 4800, record: Record::Input(Input::Request(time)) }));
        }
        let mut before_last = Some(before_last);
        for (i, (from, to, _)) in moves.into_iter().rev().enumerate() {
            let t = 10_000 + 500 * i as u64;
            if i == 3 {
                inputs.extend(before_last.take().unwrap_or_default());
            }
            inputs.extend([edge(t, to, false), edge(t + 200, from, true)]);
        }
        inputs
    }

    /// A 180+2 game on a sensor board at a thousand times real speed, its
    /// state in `dir`, with a clock to press or none.
    fn sensor_board_setup(dir: &std::path::Path, clock_connected: bool) -> Setup {
        let cfg = crate::config::Config::default();
        Setup {
            header: Header { time_control: Some("180+2".into()), ..Header::default() },
            policy: Policy::default(),
            source: Origin::of(&cfg, None),
            state_dir: dir.to_path_buf(),
            real_board: true,
            clock_connected,
            speed: Speed::try_from(1000.0).unwrap(),
            draw_board: false,
            status_line: None,
            stops_clocks_on_recovery: true,
            online: false,
        }
    }

    /// The game task of `setup`, its events written to `kept`, begun.
    async fn begun(setup: Setup, kept: &Kept) -> GameTask {
        let log = EventLog::start(Box::new(kept.clone()), "test".into(), tactus_speech::Lang::En).unwrap();
        let mut out = Outputs { events: Some(log), voice: None, broadcast: None, dgt: None };
        let start = setup.start_occupancy().unwrap();
        let opened = open(&setup, Some(start), &mut out).await.unwrap();
        let time = GameTime::new(0, setup.speed);
        let mut task = GameTask::new(setup, opened, out, time);
        task.begin(false).await.unwrap();
        task
    }

    /// `inputs` played in a 180+2 game on a sensor board, game after game,
    /// with a clock to press or none (`clock_connected`), its state in
    /// `dir`: the events written, as JSON Lines.
    fn played_on_a_sensor_board(dir: &std::path::Path, clock_connected: bool, inputs: Vec<Incoming>) -> String {
        let _ = std::fs::remove_dir_all(dir);
        let setup = sensor_board_setup(dir, clock_connected);
        let kept = Kept::default();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let mut task = begun(setup, &kept).await;
            let (tx, rx) = mpsc::channel(64);
            let (_controls_tx, controls) = mpsc::channel(1);
            let stop = CancellationToken::new();
            for input in inputs {
                tx.send(input).await.unwrap();
            }
            drop(tx);
            assert_eq!(task.run(rx, controls, &stop).await.unwrap(), Ended::InputClosed);
            task.stop(Instant::now() + Duration::from_secs(10)).await.unwrap();
        });
        String::from_utf8(kept.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_sensor_board_plays_game_after_game() {
        let dir = std::env::temp_dir().join(format!("tactus-game-next-{}", std::process::id()));
        let text = played_on_a_sensor_board(&dir, true, fools_mate_then_set_up_again(true, Vec::new()));
        let kinds: Vec<String> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["event"].as_str().unwrap().to_string())
            .collect();
        let over = kinds.iter().position(|k| k == "game_over").expect("the mate ends the first game");
        assert_eq!(kinds.iter().filter(|k| *k == "start").count(), 2, "a second game starts: {kinds:?}");
        assert!(kinds[over..].contains(&"start".to_string()), "after the first is over: {kinds:?}");
        let games: Vec<_> = std::fs::read_dir(dir.join("games"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".trace.jsonl"))
            .collect();
        assert_eq!(games.len(), 2, "each game has its own journal");
        let current = std::fs::read_to_string(dir.join("current")).unwrap();
        let first = games.iter().find(|p| !current.contains(&*p.file_name().unwrap().to_string_lossy())).unwrap();
        let r = tactus_core::replay::replay(
            std::fs::File::open(first).map(std::io::BufReader::new).unwrap(),
            Policy::default(),
        )
        .unwrap();
        assert_eq!(r.session.game().played.len(), 4, "the first journal holds the finished game");
        assert!(r.session.finished());
    }

    /// The hall sends the next round's pairing while the last game is over
    /// and its pieces not yet back: it is the next game's, journaled and
    /// said when the board shows the starting position, and not the last's.
    #[test]
    fn a_pairing_that_comes_between_games_is_the_next_games() {
        let dir = std::env::temp_dir().join(format!("tactus-pairing-between-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let setup = sensor_board_setup(&dir, true);
        let player = |name: &str| tactus_trace::Player {
            name: name.into(),
            title: None,
            elo: None,
            fide_id: None,
            federation: None,
        };
        let pairing = tactus_trace::Pairing {
            tournament: None,
            round: 2,
            board: 1,
            white: player("García, Lucía"),
            black: player("Volkov, Dmitri"),
        };
        let mut inputs = fools_mate_then_set_up_again(true, Vec::new());
        // Up to the mate; then the pieces go back.
        let setting_up = inputs.split_off(13);
        let kept = Kept::default();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let mut task = begun(setup, &kept).await;
            let (tx, rx) = mpsc::channel(64);
            let (pairings_tx, pairings) = mpsc::channel(4);
            task.take_pairings(pairings);
            let (_controls_tx, controls) = mpsc::channel(1);
            let stop = CancellationToken::new();
            let said = |what: &str| String::from_utf8_lossy(&kept.0.lock().unwrap()).contains(what);
            let feed = async {
                for input in inputs {
                    tx.send(input).await.unwrap();
                }
                while !said("game_over") {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                let sent = tactus_net::SentPairing { from: 1, n: 1, pairing: pairing.clone() };
                pairings_tx.send(sent).await.unwrap();
                // Taken by the game task, between the games.
                while pairings_tx.capacity() < pairings_tx.max_capacity() {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                assert!(!said("pairing"), "not said until the next game");
                for input in setting_up {
                    tx.send(input).await.unwrap();
                }
                drop(tx);
            };
            let (ended, ()) = tokio::join!(task.run(rx, controls, &stop), feed);
            assert_eq!(ended.unwrap(), Ended::InputClosed);
            task.stop(Instant::now() + Duration::from_secs(10)).await.unwrap();
        });
        let text = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
        let kinds: Vec<String> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["event"].as_str().unwrap().to_string())
            .collect();
        let second = kinds.iter().rposition(|k| k == "start").unwrap();
        assert_eq!(
            kinds.iter().position(|k| k == "pairing"),
            kinds[second..].iter().position(|k| k == "pairing").map(|i| i + second),
            "{kinds:?}"
        );
        assert!(kinds[second..].contains(&"pairing".to_string()), "{kinds:?}");
        let current = std::fs::read_to_string(dir.join("current")).unwrap();
        for path in std::fs::read_dir(dir.join("games")).unwrap().map(|e| e.unwrap().path()) {
            let journal = std::fs::read_to_string(&path).unwrap();
            let next = current.contains(&*path.file_name().unwrap().to_string_lossy());
            assert_eq!(journal.contains(r#""pairing": {"round": 2"#), next, "{}:\n{journal}", path.display());
        }
    }

    /// On a DGT board the players start the clock for the next game (Follow
    /// sends SetClock and Resume once, as it starts) before the last piece
    /// is back: the next game begins with the times and the running clock
    /// the players set, not the header's.
    #[test]
    fn a_dgt_clock_started_between_games_goes_to_the_next_game() {
        let dir = std::env::temp_dir().join(format!("tactus-between-games-{}", std::process::id()));
        // The DGT clock, set to 1:00 each, started before the last piece is back.
        let input = |t, input| Incoming::Exact(Entry { t, record: Record::Input(input) });
        let clock =
            vec![input(11_400, Input::SetClock { white_ms: 60_000, black_ms: 60_000 }), input(11_400, Input::Resume)];
        let text = played_on_a_sensor_board(&dir, true, fools_mate_then_set_up_again(true, clock));
        let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let second = events.iter().rposition(|e| e["event"] == "start").expect("a second game starts");
        let after: Vec<&serde_json::Value> = events[second..].iter().collect();
        assert!(
            after.iter().any(|e| e["event"] == "clock_set" && e["white_ms"] == 60_000),
            "the next game takes the times of the clock the players started: {after:#?}"
        );
        assert!(after.iter().any(|e| e["event"] == "resumed"), "and its clock runs: {after:#?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A board with no clock to press: each game begins saying so, and its
    /// moves complete as the board holds still, game after game.
    #[test]
    fn a_board_without_a_clock_plays_game_after_game() {
        let dir = std::env::temp_dir().join(format!("tactus-game-no-clock-{}", std::process::id()));
        let text = played_on_a_sensor_board(&dir, false, fools_mate_then_set_up_again(false, Vec::new()));
        let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let completed: Vec<&str> =
            events.iter().filter(|e| e["event"] == "complete").map(|e| e["san"].as_str().unwrap()).collect();
        assert_eq!(completed, ["f3", "e5", "g4", "Qh4#"], "no press, yet each move completed");
        assert!(events.iter().any(|e| e["event"] == "game_over" && e["result"] == "0-1"), "{text}");
        assert_eq!(events.iter().filter(|e| e["event"] == "start").count(), 2, "a second game starts: {text}");
        for game in std::fs::read_dir(dir.join("games")).unwrap() {
            let (_, entries) = tactus_trace::read_str(&std::fs::read_to_string(game.unwrap().path()).unwrap()).unwrap();
            let no_clock = Record::Input(Input::ClockConnected(false));
            assert!(entries.iter().take(2).any(|e| e.record == no_clock), "each game begins without a clock");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
