//! `cargo bench -p tactus-speech`: event → first audio sample, cold and warm,
//! for every language in Annex D style. Needs espeak-ng.

use tactus_speech::{Choice, Lang, Style, VoiceSettings, bench};

fn main() {
    for lang in Lang::ALL {
        let choice = Choice { lang, style: Style::AnnexD };
        match bench::latency(choice, VoiceSettings::default()) {
            Ok(latency) => print!("{choice}\n{latency}"),
            Err(e) => {
                eprintln!("{choice}: {e}");
                std::process::exit(1);
            }
        }
    }
}
