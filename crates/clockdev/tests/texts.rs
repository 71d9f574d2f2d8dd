//! Texts and beeps for the clock come from software on the emulated DGT
//! board, as fast as it likes: while the clock's thread is held up (a
//! device that does not take its write), they are dropped beyond a few,
//! never kept without bound.

use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Instant;

use tactus_clockdev::{ClockDevice, ClockLink, Display, Outbox};

/// A device whose first text holds its thread until the test lets it go;
/// it counts the texts it is given.
struct Held {
    release: Arc<Barrier>,
    texts: mpsc::Sender<String>,
    held: bool,
}

impl ClockDevice for Held {
    fn opened(&mut self, _: Instant, _: &mut Outbox) {}
    fn closed(&mut self) {}
    fn received(&mut self, _: &[u8], _: Instant, _: &mut Outbox) {}
    fn show(&mut self, _: &Display, _: Instant, _: &mut Outbox) {}
    fn beep(&mut self, _: u32, _: Instant, _: &mut Outbox) {}
    fn text(&mut self, text: &str, _: Instant, _: &mut Outbox) {
        let _ = self.texts.send(text.to_string());
        if !std::mem::replace(&mut self.held, true) {
            self.release.wait();
        }
    }
    fn poll(&mut self, _: Instant, _: &mut Outbox) -> Option<Instant> {
        None
    }
}

#[test]
fn texts_sent_while_the_clock_is_held_up_are_bounded() {
    let release = Arc::new(Barrier::new(2));
    let (texts_tx, texts) = mpsc::channel();
    let device = Held { release: release.clone(), texts: texts_tx, held: false };
    let dir = tempfile::tempdir().unwrap();
    // No device at the path: the link keeps trying, and takes texts meanwhile.
    let (link, _reports) = ClockLink::with_device(Box::new(device), &dir.path().join("none"), 9600);
    let from_software = link.texts();
    from_software.text("first");
    assert_eq!(texts.recv().unwrap(), "first", "the device's thread is held in its first text");
    for i in 0..100_000 {
        from_software.text(&format!("t{i}"));
        from_software.beep(10);
    }
    release.wait();
    drop(from_software);
    drop(link);
    let taken: Vec<String> = texts.try_iter().collect();
    assert!(
        taken.len() <= 1 + tactus_clockdev::TEXTS_WAITING,
        "{} texts were kept while the clock was held up: {:?}…",
        taken.len(),
        &taken[..taken.len().min(5)]
    );
}
