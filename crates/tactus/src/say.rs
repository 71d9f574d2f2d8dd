//! `tactus say`: speak any phrase, move or event, for trying voices.

use std::process::ExitCode;

use tactus_speech::{Announcer, Choice, Kind, SpeechPolicy, Utterance, VoiceSettings, Words};

use crate::sink::{VoiceSink, speaker};

#[derive(clap::Args)]
pub struct Args {
    /// Language and style, e.g. `de:annex-d`, `en:natural`, `ru:nato`, `pl:literate`.
    #[arg(long, default_value = "en:natural")]
    say: Choice,
    /// Where to speak: sound, text, wav:DIR, none.
    #[arg(long, default_value = "sound")]
    voice: VoiceSink,
    /// Speaking rate in words per minute.
    #[arg(long, default_value_t = 160)]
    rate: u32,
    /// Read a move in SAN (`Nf3`, `O-O`, `exd8=Q+`) the way the style says it.
    #[arg(long, conflicts_with = "event")]
    san: Option<String>,
    /// Read an event given as JSON (docs/events.md).
    #[arg(long)]
    event: Option<String>,
    /// Plain text to speak as it is.
    text: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let words = Words::new(args.say.lang, args.say.style);
    let text = if let Some(san) = &args.san {
        // Only a move written in SAN is read as one; anything else would be
        // spelled out letter by letter as if it were.
        san.parse::<shakmaty::san::SanPlus>()
            .map_err(|_| anyhow::anyhow!("--san {san:?} is not a move in SAN (e.g. Nf3, exd5, O-O, e8=Q+)"))?;
        words.san(san)
    } else if let Some(json) = &args.event {
        let event: tactus_core::Event = serde_json::from_str(json).map_err(|e| anyhow::anyhow!("--event: {e}"))?;
        let mut announcer = Announcer::new(words, SpeechPolicy::everything());
        match announcer.hear(&event) {
            Some(u) => u.text,
            None => anyhow::bail!("nothing is said for a {:?} event", serde_json::to_value(&event)?["event"]),
        }
    } else if !args.text.is_empty() {
        args.text.join(" ")
    } else {
        anyhow::bail!("give a text, --san MOVE or --event JSON");
    };
    let settings = VoiceSettings { speed: args.rate, ..VoiceSettings::default() };
    let mut speaker = speaker(&args.voice, args.say, &settings, Box::new(std::io::stdout()))?;
    speaker.speak(&Utterance { t: 0, kind: Kind::Readout, text })?;
    Ok(ExitCode::SUCCESS)
}
