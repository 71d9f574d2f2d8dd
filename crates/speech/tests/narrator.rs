//! A long readout cut off by a move, a ruling or a new question: between
//! its chunks (the queue) and in the middle of one (the sink). The sink
//! here plays nothing: it reports each utterance as it begins and says it
//! until the test lets it end or the narrator raises the interrupt — the
//! two ways a real sink's playback ends (`RodioSink` waits the same way).

use std::sync::mpsc::{Receiver, Sender, channel};

use shakmaty::Color;
use tactus_core::{Article, Event, EventKind, Irregularity, Reason};
use tactus_speech::{
    Announcer, Audio, Interrupt, Lang, Narrator, Played, Sink, Speaker, SpeechError, SpeechPolicy, Style, Utterance,
    Words, moves_from_san,
};

/// Reports each utterance as it begins, with the handle that ends it.
struct Held(Sender<(String, Interrupt)>);

impl Sink for Held {
    fn wants_audio(&self) -> bool {
        false
    }

    fn play(&mut self, _: &Utterance, _: Option<&Audio>) -> Result<(), SpeechError> {
        unreachable!("the narrator plays with an interrupt")
    }

    fn play_until(&mut self, u: &Utterance, _: Option<&Audio>, interrupt: &Interrupt) -> Result<Played, SpeechError> {
        interrupt.begin();
        self.0.send((u.text.clone(), interrupt.clone())).unwrap();
        Ok(interrupt.wait())
    }
}

struct Rig {
    narrator: Narrator,
    begun: Receiver<(String, Interrupt)>,
    said: Receiver<(String, Played)>,
}

impl Rig {
    fn new() -> Rig {
        let (begun_tx, begun) = channel();
        let (said_tx, said) = channel();
        let announcer = Announcer::new(Words::new(Lang::En, Style::Natural), SpeechPolicy::default());
        let narrator = Narrator::spawn(
            announcer,
            move || {
                let mut speaker = Speaker::new(None);
                speaker.add(Box::new(Held(begun_tx)));
                Ok(speaker)
            },
            Box::new(move |u: &Utterance, outcome: Result<Played, SpeechError>| {
                said_tx.send((u.text.clone(), outcome.unwrap())).unwrap();
            }),
        )
        .unwrap();
        Rig { narrator, begun, said }
    }

    fn hear(&self, kind: EventKind) {
        self.narrator.hear(&Event { t: 0, kind });
    }

    /// Waits for the next utterance to begin.
    fn begins(&self) -> (String, Interrupt) {
        self.begun.recv().unwrap()
    }

    /// Lets the utterance being said end by itself.
    fn ends(&self) -> (String, Played) {
        let (text, handle) = self.begins();
        handle.finished();
        let said = self.said.recv().unwrap();
        assert_eq!(said.0, text);
        said
    }

    fn finish(self) -> Vec<(String, Played)> {
        self.narrator.finish();
        self.said.try_iter().collect()
    }
}

const RUY: &str = "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4";

fn position() -> EventKind {
    EventKind::Position { fen: RUY.into(), pending: None }
}

fn castle() -> EventKind {
    let sans = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"];
    EventKind::Move { mv: moves_from_san(None, &sans).unwrap().pop().unwrap(), correction: false }
}

#[test]
fn a_move_cuts_off_a_readout_in_the_middle_of_a_chunk_and_drops_the_rest() {
    let rig = Rig::new();
    rig.hear(position());
    assert_eq!(rig.ends(), ("White: king e1.".to_owned(), Played::Whole));
    let (second, _) = rig.begins();
    assert_eq!(second, "Queen d1.");
    rig.hear(castle());
    assert_eq!(rig.said.recv().unwrap(), ("Queen d1.".to_owned(), Played::Cut));
    // The rest of the readout is gone: the move is said next.
    assert_eq!(rig.ends(), ("short castling".to_owned(), Played::Whole));
    assert!(rig.finish().is_empty());
}

#[test]
fn a_new_question_replaces_the_answer_being_read() {
    let rig = Rig::new();
    rig.hear(position());
    let (first, _) = rig.begins();
    assert_eq!(first, "White: king e1.");
    rig.hear(EventKind::OnSquare { sq: "d5".parse().unwrap(), piece: None, board: None, pending: None });
    assert_eq!(rig.said.recv().unwrap().1, Played::Cut);
    assert_eq!(rig.ends(), ("d5: empty.".to_owned(), Played::Whole));
    assert!(rig.finish().is_empty());
}

#[test]
fn a_ruling_cuts_in_but_a_time_warning_waits_its_turn() {
    let rig = Rig::new();
    rig.hear(position());
    let (_, first) = rig.begins();
    // A warning does not make the readout stale: the chunk ends by itself
    // and the readout goes on, the warning after it.
    rig.hear(EventKind::TimeWarning { side: Color::White, remaining_ms: 60_000 });
    first.finished();
    assert_eq!(rig.said.recv().unwrap(), ("White: king e1.".to_owned(), Played::Whole));
    assert_eq!(rig.ends().0, "Queen d1.");
    let (third, _) = rig.begins();
    assert_eq!(third, "Rooks a1, h1.");
    rig.hear(EventKind::Irregularity(Irregularity {
        article: Article::A7_5_3,
        side: Color::White,
        ply: 7,
        reason: Reason::NoMove,
        stands: false,
        attempt: None,
        touched: None,
        fix: vec![],
    }));
    assert_eq!(rig.said.recv().unwrap(), ("Rooks a1, h1.".to_owned(), Played::Cut));
    // The warning came before the ruling and was not stale: it is said, in order.
    assert_eq!(rig.ends().0, "White: 1 minute left.");
    assert!(rig.ends().0.starts_with("White pressed the clock without a move"));
    assert!(rig.finish().is_empty());
}

#[test]
fn everything_queued_is_said_before_the_narrator_finishes() {
    let rig = Rig::new();
    rig.hear(castle());
    rig.hear(EventKind::Paused);
    // Let both end from another thread while `finish` waits for them.
    let begun = rig.begun;
    let ender = std::thread::spawn(move || {
        for _ in 0..2 {
            begun.recv().unwrap().1.finished();
        }
    });
    rig.narrator.finish();
    ender.join().unwrap();
    let said: Vec<(String, Played)> = rig.said.try_iter().collect();
    assert_eq!(said, [("short castling".to_owned(), Played::Whole), ("Clocks stopped.".to_owned(), Played::Whole)]);
}

#[test]
fn hush_stops_an_answer_but_not_a_move() {
    let rig = Rig::new();
    rig.hear(position());
    let (first, _) = rig.begins();
    assert_eq!(first, "White: king e1.");
    rig.narrator.hush();
    assert_eq!(rig.said.recv().unwrap(), ("White: king e1.".to_owned(), Played::Cut));
    rig.hear(castle());
    let (said, handle) = rig.begins();
    assert_eq!(said, "short castling");
    rig.narrator.hush();
    handle.finished();
    assert_eq!(rig.said.recv().unwrap(), ("short castling".to_owned(), Played::Whole));
    assert!(rig.finish().is_empty());
}

#[test]
fn a_speaker_that_cannot_start_is_an_error_at_start() {
    let announcer = Announcer::new(Words::new(Lang::De, Style::AnnexD), SpeechPolicy::default());
    let failed = Narrator::spawn(announcer, || Err(SpeechError::NoDevice("no sound card".into())), Box::new(|_, _| {}));
    assert!(matches!(failed, Err(SpeechError::NoDevice(_))));
}

/// Stopping within a bound (SIGTERM): what is not said by the deadline is
/// dropped, and what is being said is cut off.
#[test]
fn finishing_by_a_deadline_cuts_off_what_is_left() {
    let rig = Rig::new();
    rig.hear(castle());
    // The move begins and is never let end by the sink; the readout waits.
    let (first, _) = rig.begins();
    assert_eq!(first, "short castling");
    rig.hear(position());
    let asked = std::time::Instant::now();
    assert!(rig.narrator.finish_by(asked + std::time::Duration::from_millis(50)), "the voice thread ended");
    assert!(asked.elapsed() < std::time::Duration::from_secs(2), "{:?}", asked.elapsed());
    let said: Vec<(String, Played)> = rig.said.try_iter().collect();
    assert_eq!(said, [(first, Played::Cut)], "nothing more is said once the time is up");
}

/// A sink stuck in a write that no interrupt reaches (a terminal or pipe
/// nobody reads): the voice thread is left behind, and the caller is not.
struct Stuck(std::sync::Arc<std::sync::Barrier>);

impl Sink for Stuck {
    fn wants_audio(&self) -> bool {
        false
    }

    fn play(&mut self, _: &Utterance, _: Option<&Audio>) -> Result<(), SpeechError> {
        unreachable!("the narrator plays with an interrupt")
    }

    fn play_until(&mut self, _: &Utterance, _: Option<&Audio>, _: &Interrupt) -> Result<Played, SpeechError> {
        self.0.wait();
        Ok(Played::Whole)
    }
}

#[test]
fn a_voice_stuck_in_a_write_is_left_behind_at_the_deadline() {
    let release = std::sync::Arc::new(std::sync::Barrier::new(2));
    let stuck = release.clone();
    let announcer = Announcer::new(Words::new(Lang::En, Style::Natural), SpeechPolicy::default());
    let narrator = Narrator::spawn(
        announcer,
        move || {
            let mut speaker = Speaker::new(None);
            speaker.add(Box::new(Stuck(stuck)));
            Ok(speaker)
        },
        Box::new(|_: &Utterance, _: Result<Played, SpeechError>| {}),
    )
    .unwrap();
    narrator.hear(&Event { t: 0, kind: castle() });
    let asked = std::time::Instant::now();
    assert!(!narrator.finish_by(asked + std::time::Duration::from_millis(50)), "the stuck thread is not waited for");
    let took = asked.elapsed();
    assert!(took < std::time::Duration::from_secs(2), "{took:?}");
    release.wait();
}
