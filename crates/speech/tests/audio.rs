//! Audio rendered with espeak-ng. These tests need the Debian package
//! espeak-ng and fail (not skip) without it.

use std::time::Duration;

use tactus_speech::{
    Announcer, EspeakNg, Lang, PhraseCache, Speaker, SpeechError, SpeechPolicy, Style, Synth, TextSink, Utterance,
    Voice, VoiceSettings, WavDirSink, Words, moves_from_san,
};

fn voice(lang: Lang) -> Voice {
    Voice::espeak(lang, VoiceSettings::default())
}

#[test]
fn every_language_renders_audible_speech_of_plausible_length() {
    for (lang, text) in [
        (Lang::En, "Springer takes Eva fuenf, check"),
        (Lang::De, "Springer Felix drei"),
        (Lang::Ru, "шпрингер Феликс драй"),
        (Lang::Pl, "skoczek bije e5, szach"),
    ] {
        let audio = voice(lang)
            .render(text)
            .unwrap_or_else(|e| panic!("{lang}: {e}\nespeak-ng must be installed: apt-get install espeak-ng"));
        let d = audio.duration();
        assert!(d > Duration::from_millis(500) && d < Duration::from_secs(5), "{lang}: {text:?} lasts {d:?}");
        assert!(audio.rms() > 300.0, "{lang}: {text:?} is nearly silent (rms {})", audio.rms());
    }
}

#[test]
fn a_cached_phrase_is_the_same_audio_without_running_espeak_again() {
    let mut v = voice(Lang::De);
    let first = v.render("Kurze Rochade").unwrap();
    assert_eq!(v.cache().len(), 1);
    let again = v.render("Kurze Rochade").unwrap();
    assert!(std::sync::Arc::ptr_eq(&first.samples, &again.samples), "served from the cache");
    assert_eq!(v.cache().len(), 1);
}

#[test]
fn a_missing_program_says_what_to_install() {
    let synth = EspeakNg::new(Lang::En, VoiceSettings::default()).with_program("/nonexistent/espeak-ng");
    let err = synth.synth("check").unwrap_err();
    assert!(matches!(err, SpeechError::SynthMissing { .. }));
    assert!(
        err.to_string().contains("apt-get install") || err.to_string().contains("Debian package espeak-ng"),
        "{err}"
    );
}

#[test]
fn a_game_goes_to_numbered_wav_files_and_text_lines() {
    let dir = std::env::temp_dir().join(format!("tactus-speech-wav-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let text = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut speaker = Speaker::new(Some(voice(Lang::De)));
    speaker.add(Box::new(WavDirSink::new(&dir).unwrap()));
    speaker.add(Box::new(TextSink::transcript(Shared(text.clone()))));
    let mut announcer = Announcer::new(Words::new(Lang::De, Style::AnnexD), SpeechPolicy::default());
    for mv in moves_from_san(None, &["e4", "e5", "Nf3"]).unwrap() {
        let ev = tactus_core::Event {
            t: u64::from(mv.ply) * 1000,
            kind: tactus_core::EventKind::Move { mv, correction: false },
        };
        speaker.speak(&announcer.hear(&ev).unwrap()).unwrap();
    }
    let mut files: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files, ["0001.wav", "0002.wav", "0003.wav"]);
    let third = tactus_speech::Audio::read_wav(&std::fs::read(dir.join("0003.wav")).unwrap()).unwrap();
    assert!(third.rms() > 300.0 && third.duration() > Duration::from_millis(500));
    assert_eq!(
        String::from_utf8(text.lock().unwrap().clone()).unwrap(),
        "1000\tEva vier\n2000\tEva fünf\n3000\tSpringer Felix drei\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn text_only_speakers_need_no_voice() {
    let mut out = Vec::new();
    {
        let mut speaker = Speaker::new(None);
        speaker.add(Box::new(TextSink::plain(&mut out)));
        speaker.speak(&Utterance { t: 5, kind: tactus_speech::Kind::Move, text: "knight f3".into() }).unwrap();
    }
    assert_eq!(out, b"knight f3\n");
    let mut speaker = Speaker::new(None);
    speaker.add(Box::new(WavDirSink::new(std::env::temp_dir().join("tactus-speech-novoice")).unwrap()));
    let err = speaker.speak(&Utterance { t: 5, kind: tactus_speech::Kind::Move, text: "x".into() }).unwrap_err();
    assert!(matches!(err, SpeechError::NoVoice));
}

#[test]
fn the_disk_cache_serves_a_new_voice() {
    let dir = std::env::temp_dir().join(format!("tactus-speech-disk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = || PhraseCache::new(1 << 20).with_dir(&dir).unwrap();
    let synth = || Box::new(EspeakNg::new(Lang::Pl, VoiceSettings::default()));
    let first = Voice::new(Lang::Pl, synth(), cache()).render("Lange Rochade").unwrap();
    let mut later = Voice::new(Lang::Pl, synth(), cache());
    assert_eq!(later.render("Lange Rochade").unwrap(), first);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_listener_s_own_move_can_be_a_tone() {
    let dir = std::env::temp_dir().join(format!("tactus-speech-tone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut speaker = Speaker::new(Some(voice(Lang::En)));
    speaker.add(Box::new(WavDirSink::new(&dir).unwrap()));
    speaker.speak(&Utterance { t: 5, kind: tactus_speech::Kind::Tone, text: "knight f3".into() }).unwrap();
    let tone = tactus_speech::Audio::read_wav(&std::fs::read(dir.join("0001.wav")).unwrap()).unwrap();
    // A beep, not the words: short, and not silent.
    assert!(tone.duration() < Duration::from_millis(200), "{:?}", tone.duration());
    assert!(tone.rms() > 1000.0, "rms {}", tone.rms());
    speaker.speak(&Utterance { t: 6, kind: tactus_speech::Kind::Echo, text: "knight f3".into() }).unwrap();
    let echo = tactus_speech::Audio::read_wav(&std::fs::read(dir.join("0002.wav")).unwrap()).unwrap();
    assert!(echo.duration() > Duration::from_millis(400), "the echo says the move");
    std::fs::remove_dir_all(&dir).unwrap();
}
