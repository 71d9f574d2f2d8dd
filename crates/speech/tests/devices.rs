//! A board or clock that stops answering is said, and said again when it
//! answers, in every language.

use shakmaty::Color;
use tactus_core::{Device, Event, EventKind};
use tactus_speech::{Announcer, Choice, SpeechPolicy, Words};

fn said(choice: &str, kind: EventKind) -> String {
    let c: Choice = choice.parse().unwrap();
    let policy = SpeechPolicy { listener: Some(Color::White), ..SpeechPolicy::everything() };
    let mut a = Announcer::new(Words::new(c.lang, c.style), policy);
    a.hear(&Event { t: 0, kind }).map(|u| u.text).expect("said")
}

#[test]
fn a_device_lost_and_back_is_said_in_every_language() {
    let lost = |device| EventKind::DeviceLost { device, detail: "/dev/rfcomm0: no answer".into() };
    let back = |device| EventKind::DeviceBack { device };
    assert_eq!(
        said("en:natural", lost(Device::Board)),
        "The board is not answering: check its cable or its connection."
    );
    assert_eq!(said("en:natural", back(Device::Board)), "The board answers again.");
    assert!(said("en:natural", lost(Device::Clock)).contains("timed here"));
    for (lang, board) in [("de", "Brett"), ("ru", "Доска"), ("pl", "Szachownica")] {
        assert!(said(&format!("{lang}:natural"), lost(Device::Board)).contains(board), "{lang}");
        assert!(said(&format!("{lang}:natural"), back(Device::Board)).contains(board), "{lang}");
        assert_ne!(
            said(&format!("{lang}:natural"), lost(Device::Clock)),
            said(&format!("{lang}:natural"), lost(Device::Board))
        );
    }
}
