//! The recordings of a physical DGT e-Board (`tests/data`, SOURCES.md
//! there) played as a game, as the daemon plays one for `[board] kind =
//! "dgt"`: the board's bytes into the `BoardReader` (orientation detected),
//! its events through [`Follow`] into the game's inputs, those into a
//! tactus-core `Session` set up as the daemon sets it up for a DGT board
//! (`policy_of` and `header_of` in crates/tactus/src/daemon/mod.rs, with
//! this crate's `follow::DEBOUNCE_MS` and `SETTLE_MS`) and fed as its game
//! task feeds it, at times the recording's clock gives ([`read_times`]).
//! The moves the core announces and completes must be the games played,
//! with no ruling against them; the journal this makes must replay (as
//! `tactus replay` does) to the same events.

mod common;

use std::collections::BTreeMap;
use std::str::FromStr;
use std::time::{Duration, Instant};

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position, san::San};
use tactus_core::{EndReason, Event, EventKind, GameResult, MoveInfo, Policy, Session};
use tactus_dgt::follow::{self, ClockOnBoard, Follow, Followed};
use tactus_dgt::protocol::{BoardParser, ClockFaces, ClockSide, Orientation};
use tactus_dgt::reader::{BoardReader, OrientationMode, ReaderEvent, ReaderOut};
use tactus_trace::{BoardKind, Entry, Header, Input, MateSearch, Ms, Record};

fn data(file: &str) -> Result<String, String> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))
}

/// A recording's serial reads, in order (one base64 line each).
fn reads(name: &str) -> Result<Vec<Vec<u8>>, String> {
    data(&format!("{name}.inbytes"))?
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| common::base64(l).ok_or_else(|| format!("{name}.inbytes:{}: not base64", i + 1)))
        .collect()
}

/// The clock's report in each read (`DGT_MSG_BWTIME`), if it holds one.
fn clock_reports(name: &str, reads: &[Vec<u8>]) -> Result<Vec<Option<ClockFaces>>, String> {
    let mut parser = BoardParser::default();
    let mut reports = Vec::with_capacity(reads.len());
    for (i, bytes) in reads.iter().enumerate() {
        let mut report = None;
        for msg in parser.feed(bytes) {
            match msg {
                Ok(tactus_dgt::protocol::BoardMessage::Clock(times)) => report = Some(times),
                Ok(_) => {}
                Err(g) => return Err(format!("{name}: read {i}: garbage {g:?}")),
            }
        }
        reports.push(report);
    }
    Ok(reports)
}

/// The seconds each face shows: left, right.
fn shown(t: &ClockFaces) -> [i64; 2] {
    [&t.left, &t.right].map(|f| i64::from(f.time.h) * 3600 + i64::from(f.time.m) * 60 + i64::from(f.time.s))
}

/// The face that runs (0 left, 1 right).
fn running(t: &ClockFaces) -> Option<usize> {
    t.status.runs().map(|side| usize::from(side == ClockSide::Right))
}

/// How the recording's clock was set.
#[derive(Debug, PartialEq, Eq)]
struct ClockSetting {
    white: ClockSide,
    /// What each face showed before the game (a DGT clock in Fischer mode
    /// adds the increment before the first move too: 3+2 shows 3:02).
    start_s: i64,
    increment_s: i64,
}

fn clock_setting(name: &str, reports: &[Option<ClockFaces>]) -> Result<ClockSetting, String> {
    let all: Vec<&ClockFaces> = reports.iter().flatten().collect();
    let first = all.first().ok_or(format!("{name}: no clock report"))?;
    let [left, right] = shown(first);
    if left != right {
        return Err(format!("{name}: the faces start unequal ({left} s, {right} s)"));
    }
    // White moves first: the face that runs first is White's.
    let first_run = all.iter().find_map(|t| running(t)).ok_or(format!("{name}: the clock never runs"))?;
    // At a press the presser's face gains the increment: the usual gain.
    let mut gains: BTreeMap<i64, usize> = BTreeMap::new();
    for pair in all.windows(2) {
        if let Some(face) = running(pair[0])
            && running(pair[1]).is_some_and(|other| other != face)
        {
            *gains.entry(shown(pair[1])[face] - shown(pair[0])[face]).or_default() += 1;
        }
    }
    let increment_s = gains.into_iter().max_by_key(|(_, n)| *n).map(|(gain, _)| gain);
    Ok(ClockSetting {
        white: if first_run == 0 { ClockSide::Left } else { ClockSide::Right },
        start_s: left,
        increment_s: increment_s.ok_or(format!("{name}: no press"))?,
    })
}

/// The first clock report, in seconds from the first read.
const FIRST_REPORT_S: f64 = 1.0;
/// From a report of a stopped clock to the report that it runs.
const START_AFTER_S: f64 = 1.0;
/// Reads after the clock's last report: one scan of the board apart.
const AFTER_LAST_S: f64 = 0.25;

/// When each read came, in seconds from the first.
///
/// The recordings have no times; the clock's reports give them. A running
/// face shows whole seconds and is reported each time it counts one down.
/// Its time starts whole and gains whole seconds, so it counts down after
/// each whole second it has run, over all its turns: a count-down report
/// comes when that face has run a whole second since its last one. A press
/// (or a stop) between two counts is put halfway to the count that did not
/// come; one report with both is one instant. Each face's time here is
/// then its time on the DGT clock, to within the second it shows, which is
/// what the game's clock must keep. The reads between two such reports
/// (field updates, mostly) are spread evenly between them: a quick move's
/// updates a third or a quarter of a second apart, about a DGT scan
/// (200–250 ms) or slower, so a square a sliding piece was caught on shows
/// at least as long as it did on the board.
fn read_times(reports: &[Option<ClockFaces>], increment_s: i64) -> Vec<f64> {
    let mut anchors: Vec<(usize, f64)> = Vec::new();
    let mut before: Option<&ClockFaces> = None;
    let mut at = 0.0;
    // How long each face has run since it last counted down, as of `at`.
    let mut since = [0.0f64; 2];
    for (i, report) in reports.iter().enumerate() {
        let Some(now) = report else { continue };
        let t = match before.map(|b| (b, running(b))) {
            None => Some(FIRST_REPORT_S),
            Some((_, None)) => running(now).map(|_| at + START_AFTER_S),
            Some((b, Some(face))) => {
                let pressed = running(now).is_some_and(|other| other != face);
                let down = shown(b)[face] - shown(now)[face] + if pressed { increment_s } else { 0 };
                if down >= 1 {
                    // Counted down (more than one second if reports were lost).
                    let t = at + down as f64 - since[face];
                    since[face] = 0.0;
                    Some(t)
                } else if running(now) != Some(face) {
                    let d = (1.0 - since[face]) / 2.0;
                    since[face] += d;
                    Some(at + d)
                } else {
                    None
                }
            }
        };
        if let Some(t) = t {
            anchors.push((i, t));
            at = t;
        }
        before = Some(now);
    }
    let mut times = vec![0.0; reports.len()];
    let mut from = (0, 0.0);
    for &(i, t) in &anchors {
        let (i0, t0) = from;
        for (k, slot) in times.iter_mut().enumerate().take(i).skip(i0 + 1) {
            *slot = t0 + (t - t0) * (k - i0) as f64 / (i - i0) as f64;
        }
        times[i] = t;
        from = (i, t);
    }
    let (last, t_last) = from;
    for (k, slot) in times.iter_mut().enumerate().skip(last + 1) {
        *slot = t_last + AFTER_LAST_S * (k - last) as f64;
    }
    times
}

/// Game time: milliseconds since `start`, as the daemon's `GameTime` counts
/// them for a live board.
#[derive(Clone, Copy)]
struct GameTime {
    start: Instant,
}

impl GameTime {
    fn t(&self, at: Instant) -> Ms {
        (at.saturating_duration_since(self.start).as_secs_f64() * 1000.0) as Ms
    }
}

/// The daemon's game task, without its I/O: the session the daemon sets up
/// for a DGT board (`daemon::policy_of`, `daemon::header_of`, the policy
/// recorded in the header), the pause a sensor board's game begins with and
/// no clock to press until the board tells of one (`GameTask::begin`),
/// inputs stamped never before what the game has seen (`game::stamp`),
/// timers run at their deadlines before a later input (`GameTask::run`,
/// `tick`), and the mate search's verdict taken as an input. What it takes,
/// and what its timers did, is journaled as the journal would hold it.
struct GameLoop {
    header: Header,
    /// The policy's time warnings, which the header does not record.
    time_warnings: Vec<Ms>,
    session: Session,
    time: GameTime,
    last_t: Ms,
    journal: Vec<Entry>,
    events: Vec<Event>,
    /// Inputs that came after the game was over (the daemon waits for the
    /// starting position then, and gives them to no game).
    after_end: Vec<Record>,
}

/// A game on a DGT board as the daemon's default configuration has it:
/// this time control, this start.
fn dgt_game(time_control: &str, start_fen: Option<&str>) -> (Header, Policy) {
    let header = Header {
        time_control: Some(time_control.to_string()),
        start_fen: start_fen.map(str::to_string),
        board: Some(BoardKind::Dgt),
        ..Header::default()
    };
    let policy = Policy {
        debounce_ms: follow::DEBOUNCE_MS,
        settle_ms: Policy::default().settle_ms.max(follow::SETTLE_MS),
        // The config's warnings, at 5 min, 1 min and 10 s.
        time_warnings: vec![300_000, 60_000, 10_000],
        mate_search: MateSearch::Asked,
        ..Policy::default()
    };
    (header, policy)
}

impl GameLoop {
    fn new((mut header, policy): (Header, Policy), time: GameTime) -> Result<GameLoop, String> {
        policy.record(&mut header);
        let time_warnings = policy.time_warnings.clone();
        let mut session = Session::new(&header, policy).map_err(|e| e.to_string())?;
        let events = session.drain().collect();
        let mut game = GameLoop {
            header,
            time_warnings,
            session,
            time,
            last_t: 0,
            journal: Vec::new(),
            events,
            after_end: Vec::new(),
        };
        game.take_entry(Entry { t: 0, record: Record::Input(Input::Pause) });
        game.take_entry(Entry { t: 0, record: Record::Input(Input::ClockConnected(false)) });
        Ok(game)
    }

    fn take(&mut self, msg: Followed) {
        // As the game task stamps it: never before what the game has seen; a
        // notice is no input.
        let Followed::At(at, record) = msg else { return };
        let entry = Entry { t: self.time.t(at).max(self.last_t), record };
        self.run_timers(entry.t);
        if self.session.finished() {
            self.after_end.push(entry.record);
            return;
        }
        self.take_entry(entry);
    }

    /// The timers due by `t`, each at its deadline; as `GameTask::announce`
    /// has it, a `timers` line for what they said (a game they ended, its end).
    fn run_timers(&mut self, t: Ms) {
        while !self.session.finished()
            && let Some(due) = self.session.next_deadline().filter(|due| *due <= t)
        {
            let t = due.max(self.last_t);
            self.last_t = t;
            self.session.advance(t);
            if self.session.finished() {
                self.journal.push(Entry { t, record: Record::End });
            }
            let before = self.events.len();
            self.events.extend(self.session.drain());
            if self.events.len() > before && !self.session.finished() {
                self.journal.push(Entry { t, record: Record::Timers });
            }
            self.answer_mate_question();
        }
    }

    fn take_entry(&mut self, entry: Entry) {
        self.last_t = entry.t;
        self.journal.push(entry.clone());
        self.session.handle(entry);
        self.events.extend(self.session.drain());
        self.answer_mate_question();
    }

    /// The daemon searches off its loop and takes the answer as an input.
    fn answer_mate_question(&mut self) {
        if let Some(q) = self.session.mate_question() {
            let verdict = tactus_core::search_mate(&q);
            let t = self.last_t;
            self.take_entry(Entry { t, record: Record::Input(Input::Verdict { ply: q.ply, side: q.side, verdict }) });
        }
    }

    /// The journal as a trace file.
    fn trace(&self) -> Result<Vec<u8>, String> {
        let mut w = tactus_trace::TraceWriter::new(Vec::new());
        w.write_header(&self.header).map_err(|e| e.to_string())?;
        for e in &self.journal {
            w.write_entry(e).map_err(|e| e.to_string())?;
        }
        Ok(w.into_inner())
    }
}

/// A recording played through the daemon's path.
struct Played {
    setting: ClockSetting,
    orientation: Orientation,
    game: GameLoop,
    /// Game time of the clock's report that a flag fell, if it did.
    flag_report: Option<Ms>,
}

fn play(name: &str) -> Result<Played, String> {
    let reads = reads(name)?;
    let reports = clock_reports(name, &reads)?;
    let setting = clock_setting(name, &reports)?;
    let times = read_times(&reports, setting.increment_s);

    // The daemon's configuration for this board: a DGT board, the time
    // control its clock was set to, White's face where the clock has it.
    let time_control = format!("{}+{}", setting.start_s, setting.increment_s);
    let t0 = Instant::now();
    let mut game = GameLoop::new(dgt_game(&time_control, None), GameTime { start: t0 })?;
    let mut reader = BoardReader::new(OrientationMode::Detect);
    reader.opened(t0, &mut ReaderOut::default());
    // As the daemon's board::start and DgtBoard::start have it: no clock device.
    let clock = ClockOnBoard { white: setting.white, sole: true };
    let mut follow: Option<Follow> = None;
    let mut orientation = Orientation::Normal;
    let mut inputs = Vec::new();
    let mut last_at = t0;
    let mut flag_report = None;
    for ((bytes, t), report) in reads.iter().zip(times).zip(&reports) {
        let at = t0 + Duration::from_secs_f64(t);
        last_at = at;
        if report.is_some_and(|r| r.left.final_flag || r.right.final_flag) {
            flag_report.get_or_insert(game.time.t(at));
        }
        let mut out = ReaderOut::default();
        reader.received(bytes, at, &mut out);
        for event in out.events {
            if let ReaderEvent::Garbage(g) = &event {
                return Err(format!("{name}: garbage in a clean recording: {g:?}"));
            }
            if let ReaderEvent::Orientation(o) = &event {
                orientation = *o;
            }
            match &mut follow {
                Some(follow) => follow.event(event, &mut inputs),
                // DgtBoard::open waits for the board's position, passing
                // over what comes before; DgtBoard::start follows from it,
                // assuming the game's position.
                None => {
                    if let ReaderEvent::Placement { placement, at } = event {
                        let mut f = Follow::new(game.session.occupancy(), clock);
                        f.placement(&placement, at, &mut inputs);
                        follow = Some(f);
                    }
                }
            }
        }
        for msg in inputs.drain(..) {
            game.take(msg);
        }
    }
    // The daemon runs on: what its timers say by the recording's end.
    game.run_timers(game.time.t(last_at));
    Ok(Played { setting, orientation, game, flag_report })
}

/// The games played, in UCI.
fn expected(name: &str) -> Result<Vec<String>, String> {
    if let Ok(text) = data(&format!("{name}.uci")) {
        return Ok(text.split_whitespace().filter(|w| !w.ends_with('.') && *w != "*").map(str::to_string).collect());
    }
    let pgn = data(&format!("{name}.pgn"))?;
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for word in pgn.split_whitespace().filter(|w| !w.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(w)) {
        let m = San::from_str(word).ok().and_then(|san| san.to_move(&pos).ok()).ok_or(format!("{name}: {word}?"))?;
        moves.push(UciMove::from_standard(m).to_string());
        pos.play_unchecked(m);
    }
    Ok(moves)
}

/// What the core said, summed up.
#[derive(Debug, Default)]
struct Said {
    /// The moves announced, a correction replacing the move it corrects
    /// and a withdrawal taking it back.
    announced: Vec<MoveInfo>,
    /// Each correction: the move first announced, and the one after it.
    corrections: Vec<(MoveInfo, MoveInfo)>,
    withdrawn: usize,
    completed: Vec<String>,
    /// Every ruling (Article 7 and touch-move).
    rulings: Vec<String>,
    /// Observations (the piece went on from where it stood).
    observations: usize,
    /// Ambiguities, board mismatches, sensor faults.
    doubts: Vec<String>,
    over: Option<(Ms, GameResult, EndReason)>,
    /// Events after the game was over.
    after_over: usize,
    last: Option<EventKind>,
}

impl Said {
    fn announced(&self) -> Vec<String> {
        self.announced.iter().map(|m| m.uci.clone()).collect()
    }
}

fn said(events: &[Event]) -> Said {
    let mut s = Said::default();
    for e in events {
        if s.over.is_some() {
            s.after_over += 1;
        }
        match &e.kind {
            EventKind::Move { mv, correction } => {
                let ply = mv.ply as usize;
                if *correction && s.announced.len() >= ply {
                    s.corrections.push((s.announced[ply - 1].clone(), mv.clone()));
                    s.announced.truncate(ply - 1);
                }
                s.announced.push(mv.clone());
            }
            EventKind::Withdrawn { ply, .. } => {
                s.withdrawn += 1;
                s.announced.truncate(*ply as usize - 1);
            }
            EventKind::Complete { uci, .. } => s.completed.push(uci.clone()),
            EventKind::Irregularity(i) => s.rulings.push(format!("t={} {i:?}", e.t)),
            EventKind::Observation { .. } => s.observations += 1,
            EventKind::Ambiguous { .. } | EventKind::BoardMismatch { .. } | EventKind::SensorFault { .. } => {
                s.doubts.push(format!("t={} {:?}", e.t, e.kind))
            }
            EventKind::GameOver { result, reason, .. } => s.over = Some((e.t, *result, *reason)),
            _ => {}
        }
        s.last = Some(e.kind.clone());
    }
    s
}

/// Plays a recording and checks what holds for every one of them: the
/// moves announced are the game's, in order; nothing is ruled against a
/// legal game; a move announced and then corrected is a piece sliding on
/// along its line, caught on the way by the board's scan (the core's
/// observation, never a ruling); the journal replays to the same events.
fn check(name: &str) -> (Played, Said, Vec<String>) {
    let played = play(name).unwrap_or_else(|e| panic!("{e}"));
    let want = expected(name).unwrap_or_else(|e| panic!("{e}"));
    let s = said(&played.game.events);
    assert_eq!(s.announced(), want, "{name}: the moves announced");
    assert!(s.rulings.is_empty(), "{name}: a legal game, yet rulings: {:#?}", s.rulings);
    assert!(s.doubts.is_empty(), "{name}: {:#?}", s.doubts);
    assert_eq!(s.withdrawn, 0, "{name}: a move withdrawn");
    for (first, then) in &s.corrections {
        let on_the_way = first.from == then.from
            && first.to != then.to
            && shakmaty::attacks::between(then.from, then.to).contains(first.to);
        assert!(on_the_way, "{name}: {} corrected to {}, not on its way", first.san, then.san);
    }
    assert_eq!(s.observations, s.corrections.len(), "{name}: an observation for each correction");
    // The journal alone replays to what was said, as `tactus replay --say`
    // replays it (the time warnings given, which the header does not hold).
    let trace = played.game.trace().unwrap_or_else(|e| panic!("{e}"));
    let policy_for = |header: &Header| tactus_core::Policy {
        time_warnings: played.game.time_warnings.clone(),
        ..tactus_core::Policy::default().with_recorded(header)
    };
    let replay = |trace: &[u8], what: &str| {
        let replayed = tactus_core::replay::replay_with(trace, policy_for)
            .unwrap_or_else(|e| panic!("{name}: {what} does not replay: {e}"));
        assert!(replayed.error.is_none(), "{name}: {what}: {:?}", replayed.error);
        replayed.events
    };
    let live = &played.game.events;
    let same = |replayed: &[Event], what: &str| {
        if let Some(i) = (0..live.len().max(replayed.len())).find(|&i| replayed.get(i) != live.get(i)) {
            panic!(
                "{name}: {what} replays to other events from event {i}: live {:#?}, replayed {:#?}",
                &live[i..live.len().min(i + 3)],
                &replayed[i.min(replayed.len())..replayed.len().min(i + 3)]
            );
        }
    };
    same(&replay(&trace, "the journal"), "the journal");
    // The journal is version 2: every square filled says with which piece.
    // The core recognises from occupancy: without them, the same events.
    let (header, reader) = tactus_trace::TraceReader::new(&trace[..]).unwrap();
    assert_eq!((reader.version(), header.board), (2, Some(tactus_trace::BoardKind::Dgt)), "{name}");
    let placed = played.game.journal.iter().filter(|e| matches!(e.record, Record::Edge { on: true, .. }));
    assert!(placed.clone().count() > 0, "{name}: no placement");
    assert!(placed.clone().all(|e| matches!(e.record, Record::Edge { piece: Some(_), .. })), "{name}: a piece unsaid");
    let mut w = tactus_trace::TraceWriter::new(Vec::new());
    w.write_header(&played.game.header).unwrap();
    for e in &played.game.journal {
        let record = match &e.record {
            &Record::Edge { sq, on, .. } => Record::Edge { sq, on, piece: None },
            other => other.clone(),
        };
        w.write_entry(&Entry { t: e.t, record }).unwrap();
    }
    let without = w.into_inner();
    assert!(String::from_utf8_lossy(&trace).contains(r#""on": true, "piece": ""#), "{name}");
    assert!(!String::from_utf8_lossy(&without).contains(r#""on": true, "piece""#), "{name}");
    same(&replay(&without, "the journal without its pieces"), "the journal without its pieces");
    eprintln!(
        "{name}: {} plies announced, {} completed, {} corrected on the way: {:?}",
        s.announced.len(),
        s.completed.len(),
        s.corrections.len(),
        s.corrections.iter().map(|(a, b)| format!("{}→{}", a.san, b.san)).collect::<Vec<_>>()
    );
    (played, s, want)
}

#[test]
fn the_clock_times_the_reads() {
    // Game 1's start: the clock runs from 1 s + 1 s; White's face counts
    // down after a second, the move's two updates between.
    let reads = reads("1").unwrap();
    let reports = clock_reports("1", &reads).unwrap();
    let setting = clock_setting("1", &reports).unwrap();
    assert_eq!(setting, ClockSetting { white: ClockSide::Left, start_s: 182, increment_s: 2 });
    let t = read_times(&reports, setting.increment_s);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(t[1], 1.0) && close(t[2], 2.0) && close(t[3], 3.0), "{:?}", &t[..4]);
    // 4, 5: e2 off, e4 on; 6, 7: 3:00, 2:59; 8: pressed, halfway to 2:58.
    assert!(close(t[4], 3.0 + 1.0 / 3.0) && close(t[6], 4.0) && close(t[7], 5.0) && close(t[8], 5.5), "{:?}", &t[..9]);
    // 9: Black's face counts down a second after the press.
    assert!(close(t[9], 6.5), "{:?}", &t[..10]);
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "times never go back");
}

#[test]
fn game_1_through_the_daemon() {
    let (played, s, want) = check("1");
    assert_eq!(played.orientation, Orientation::Normal);
    assert_eq!(played.setting.white, ClockSide::Left);
    assert_eq!(s.completed, want, "every move was pressed");
    // The clock was stopped after 29. Bf6, with Black to move.
    assert_eq!(s.over, None);
    assert_eq!(s.last, Some(EventKind::Paused));
    assert_eq!(played.game.session.clock().and_then(|c| c.running()), None);
}

#[test]
fn game_2_through_the_daemon_on_a_board_turned_round() {
    let (played, s, want) = check("2");
    assert_eq!(played.orientation, Orientation::Rotated);
    assert_eq!(played.setting.white, ClockSide::Right, "White's face is the right one");
    // The recording ends before White pressed for 50. Qh6+: it is
    // announced, and waits for the press.
    assert_eq!(s.completed, want[..want.len() - 1], "every move but the last was pressed");
    assert_eq!(s.over, None);
    assert_eq!(played.game.session.game().played.len(), want.len() - 1);
    assert_eq!(played.game.session.clock().and_then(|c| c.running()), Some(shakmaty::Color::White));
}

#[test]
fn johans_game_through_the_daemon() {
    use shakmaty::Square::{D4, D5, E4, G1, G8};
    let (played, s, want) = check("johan");
    assert_eq!(played.setting.white, ClockSide::Left);
    assert_eq!(s.completed, want, "every move was pressed");
    // After 22. Qxc6 Black's time ran out: the game's clock, keeping the
    // DGT clock's time, ran out at its report of 0:00:00 (to the ms) and
    // White, who can mate, wins (6.9) — the 1-0 the game was given.
    let (t, result, reason) = s.over.expect("the game is over");
    assert_eq!((result, reason), (GameResult::WhiteWins, EndReason::FlagFall));
    let at_report = played.flag_report.expect("the clock reports the flag");
    assert!(t.abs_diff(at_report) <= 1, "the flag fell at {t} ms, the clock showed it at {at_report} ms");
    assert_eq!(s.after_over, 0);
    // Then both kings were put on the centre's light squares, DGT's way of
    // entering 1-0 on the board: no move, no ruling, after the end.
    let edge = |sq, on, piece| Record::Edge { sq, on, piece };
    let king = |color| Some(shakmaty::Role::King.of(color));
    assert_eq!(
        played.game.after_end,
        [
            edge(D4, false, None),
            edge(G8, false, None),
            edge(G1, false, None),
            edge(D5, true, king(shakmaty::Color::Black)),
            edge(E4, true, king(shakmaty::Color::White))
        ]
    );
}

/// Promotions and a board lost, from made-up DGT events through `Follow`
/// and the game loop the recordings use.
mod promotions_and_losses {
    use super::*;
    use shakmaty::{Bitboard, Color, Piece, Role, Square};
    use tactus_dgt::protocol::{Occupant, Placement};

    /// A DGT clock on the board, White's face on the left, and no other.
    const CLOCK: ClockOnBoard = ClockOnBoard { white: ClockSide::Left, sole: true };

    fn game_from(fen: &str) -> (GameLoop, Instant, Follow) {
        let t0 = Instant::now();
        let game = GameLoop::new(dgt_game("300+0", Some(fen)), GameTime { start: t0 }).unwrap();
        // As the daemon starts following: from the whole board.
        let mut follow = Follow::new(game.session.occupancy(), CLOCK);
        let shown = Placement::from_board(game.session.game().position().board());
        let mut none = Vec::new();
        follow.placement(&shown, t0, &mut none);
        assert!(none.is_empty(), "the board shows what the game believes");
        (game, t0, follow)
    }

    fn put(sq: Square, occupant: Occupant, at: Instant) -> ReaderEvent {
        ReaderEvent::Edge { sq, occupant, at }
    }

    fn piece(color: Color, role: Role) -> Occupant {
        Occupant::Piece(Piece { color, role })
    }

    /// The DGT clock found and started at 0.5 s, what the board reports
    /// (`board`, given the time of a second), the presses (second, side),
    /// and the clocks stopped at `end` s: the moves completed.
    fn completed(
        (game, t0, follow): &mut (GameLoop, Instant, Follow),
        board: impl FnOnce(&mut Follow, &dyn Fn(f64) -> Instant, &mut Vec<Followed>),
        presses: &[(f64, Color)],
        end: f64,
    ) -> Vec<String> {
        let t0 = *t0;
        let s = |secs: f64| t0 + Duration::from_secs_f64(secs);
        let mut out = vec![
            Followed::At(s(0.5), Record::Input(Input::ClockConnected(true))),
            Followed::At(s(0.5), Record::Input(Input::Resume)),
        ];
        board(follow, &s, &mut out);
        out.extend(presses.iter().map(|&(secs, side)| Followed::At(s(secs), Record::Clock(side))));
        out.push(Followed::At(s(end), Record::Input(Input::Pause)));
        for msg in out {
            game.take(msg);
        }
        game.run_timers(game.time.t(s(end)));
        said(&game.events).completed
    }

    /// What the board reports, one square after another.
    fn reports(
        events: &[(Square, Occupant, f64)],
    ) -> impl FnOnce(&mut Follow, &dyn Fn(f64) -> Instant, &mut Vec<Followed>) + '_ {
        move |follow, s, out| {
            for &(sq, occupant, secs) in events {
                follow.event(put(sq, occupant, s(secs)), out);
            }
        }
    }

    /// White promotes e7-e8 with a queen put down, then straightens the
    /// knight that stands on a8 (lifted and put back on its square) before
    /// pressing: the board shows a queen on e8, and the move is completed as
    /// e8=Q — a piece put back where it stood is no promotion.
    #[test]
    fn a_piece_straightened_on_the_last_rank_after_promoting_changes_nothing() {
        let mut game = game_from("N7/4P3/8/8/8/8/8/4K2k w - - 0 1");
        let events = [
            (Square::E7, Occupant::Empty, 1.0),
            (Square::E8, piece(Color::White, Role::Queen), 1.3),
            // j'adoube: the knight on a8 lifted and put back.
            (Square::A8, Occupant::Empty, 3.0),
            (Square::A8, piece(Color::White, Role::Knight), 3.2),
        ];
        let board = reports(&events);
        let completed = completed(&mut game, board, &[(5.0, Color::White)], 8.0);
        assert_eq!(completed, ["e7e8q"], "the board shows a queen on e8: {:#?}", game.0.events);
    }

    /// The board's stream of edges was missed (the board lost and back, a
    /// dump catching up): White's e7-e8 under-promotion to a knight comes in
    /// a whole-board placement. The journal says a knight was put on e8,
    /// and the move is completed as e8=N.
    #[test]
    fn an_under_promotion_seen_in_a_dump_is_taken() {
        let mut game = game_from("8/4P3/8/8/8/8/8/4K2k w - - 0 1");
        let mut placement = Placement::from_board(game.0.session.game().position().board());
        let dump = |follow: &mut Follow, s: &dyn Fn(f64) -> Instant, out: &mut Vec<Followed>| {
            placement.set(Square::E7, Occupant::Empty);
            placement.set(Square::E8, piece(Color::White, Role::Knight));
            follow.placement(&placement, s(1.0), out);
        };
        let completed = completed(&mut game, dump, &[(3.0, Color::White)], 6.0);
        let knight_put = game.0.journal.iter().any(|e| {
            matches!(e.record, Record::Edge { sq: Square::E8, on: true, piece: Some(Piece { role: Role::Knight, .. }) })
        });
        assert!(knight_put, "the journal says a knight was put on e8");
        assert_eq!(completed, ["e7e8n"], "the board shows a knight on e8");
    }

    /// A Bluetooth board out of range: its pings go unanswered (the reader's
    /// Lost), then the line itself goes (the link's Lost) before it answers
    /// again. The players hear "board lost" once for one loss.
    #[test]
    fn one_loss_of_the_board_is_said_once() {
        let mut follow = Follow::new(Bitboard::EMPTY, CLOCK);
        let mut out = Vec::new();
        follow.event(ReaderEvent::Lost { reason: "the board did not answer for 6s".into() }, &mut out);
        follow.event(ReaderEvent::Lost { reason: "/dev/rfcomm0 is gone".into() }, &mut out);
        let lost = out.iter().filter(|m| matches!(m, Followed::Lost(_))).count();
        assert_eq!(lost, 1, "one loss, said once");
    }

    /// Black's Kh2-h3, pressed at 4 s, then White's e7-e8=N in the order
    /// given, pressed at 6 s: the moves completed.
    fn king_move_then_under_promotion(white: [(Square, Occupant, f64); 2]) -> (Vec<String>, Vec<Event>) {
        let mut game = game_from("8/4P3/8/8/8/8/7k/4K3 b - - 0 1");
        let mut events = vec![(Square::H2, Occupant::Empty, 1.0), (Square::H3, piece(Color::Black, Role::King), 1.2)];
        events.extend(white);
        let completed = completed(&mut game, reports(&events), &[(4.0, Color::Black), (6.0, Color::White)], 9.0);
        (completed, game.0.events)
    }

    /// Black has moved (Kh2-h3 stands on the board) and not yet pressed;
    /// White replies at once, putting the knight down on e8 first and then
    /// taking the pawn off e7: the knight is White's promotion, not a
    /// selector for Black's ply.
    #[test]
    fn an_under_promotion_put_down_before_the_pawn_is_lifted_is_the_players_own() {
        let (completed, events) = king_move_then_under_promotion([
            (Square::E8, piece(Color::White, Role::Knight), 3.0),
            (Square::E7, Occupant::Empty, 3.3),
        ]);
        assert_eq!(completed, ["h2h3", "e7e8n"], "the board shows a knight on e8: {events:#?}");
    }

    /// The same with the pawn lifted first, then the knight put down: e8=N.
    #[test]
    fn an_under_promotion_with_the_pawn_lifted_first_is_taken() {
        let (completed, _) = king_move_then_under_promotion([
            (Square::E7, Occupant::Empty, 3.0),
            (Square::E8, piece(Color::White, Role::Knight), 3.3),
        ]);
        assert_eq!(completed, ["h2h3", "e7e8n"]);
    }
}
