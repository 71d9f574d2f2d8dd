//! Words on the wire, for every layer above: the names and topics of the
//! hall's broker, a change's envelope, the arbiter's controls, and the wall
//! clock. No I/O but reading that clock; strings become types here, at the
//! edge, and nowhere else.

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tactus_trace::{Entry, GameResult, Input, Record, TraceError};

/// The wall clock in Unix ms: a publisher's run, a clock reading's stamp.
pub(crate) fn unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A hall or board name that cannot be one level of a topic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {name:?} cannot be part of an MQTT topic: use letters, digits, '-' or '_' (at most 64)")]
pub struct BadName {
    pub what: &'static str,
    pub name: String,
}

/// Checks one level of a topic: a hall or board name. Names are plain
/// (letters, digits, `-`, `_`) so that they read the same in a topic, a URL
/// and a file name.
pub fn check_name(what: &'static str, name: &str) -> Result<(), BadName> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok { Ok(()) } else { Err(BadName { what, name: name.to_string() }) }
}

/// What a board's topic carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// Its changes, one a message (an [`Envelope`]).
    Events,
    /// Its whole feed, retained.
    State,
    /// The arbiter's controls for it, one trace input line a message.
    Control,
    /// The round's pairing for it, from a relay given the round's file.
    Pairing,
}

impl Leaf {
    pub fn as_str(self) -> &'static str {
        match self {
            Leaf::Events => "events",
            Leaf::State => "state",
            Leaf::Control => "control",
            Leaf::Pairing => "pairing",
        }
    }

    fn parse(text: &str) -> Option<Leaf> {
        [Leaf::Events, Leaf::State, Leaf::Control, Leaf::Pairing].into_iter().find(|l| l.as_str() == text)
    }
}

impl fmt::Display for Leaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A board's topic: `tactus/<hall>/<board>/<leaf>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Topic<'a> {
    pub hall: &'a str,
    pub board: &'a str,
    pub leaf: Leaf,
}

impl<'a> Topic<'a> {
    pub fn new(hall: &'a str, board: &'a str, leaf: Leaf) -> Topic<'a> {
        Topic { hall, board, leaf }
    }

    /// Reads a topic as the broker passed it on: an error when it is not
    /// `tactus/<hall>/<board>/<leaf>`, `None` for a leaf no board publishes.
    pub fn parse(text: &'a str) -> Result<Option<Topic<'a>>, &'static str> {
        let mut levels = text.split('/');
        let (Some("tactus"), Some(hall), Some(board), Some(leaf), None) =
            (levels.next(), levels.next(), levels.next(), levels.next(), levels.next())
        else {
            return Err("not a tactus/<hall>/<board>/<leaf> topic");
        };
        Ok(Leaf::parse(leaf).map(|leaf| Topic { hall, board, leaf }))
    }

    /// The filter for this leaf of every board of `hall`.
    pub fn every_board(hall: &str, leaf: Leaf) -> String {
        Topic::new(hall, "+", leaf).to_string()
    }
}

impl fmt::Display for Topic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tactus/{}/{}/{}", self.hall, self.board, self.leaf)
    }
}

/// The topic of what board `from` tells its partner `to` (two boards, one
/// game): `tactus/<hall>/pair/<from>/<to>`. The one place it is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PairTopic<'a> {
    pub hall: &'a str,
    pub from: &'a str,
    pub to: &'a str,
}

impl<'a> PairTopic<'a> {
    pub fn new(hall: &'a str, from: &'a str, to: &'a str) -> PairTopic<'a> {
        PairTopic { hall, from, to }
    }

    /// The filter for what any board of `hall` tells board `to`.
    pub fn to_board(hall: &str, to: &str) -> String {
        PairTopic::new(hall, "+", to).to_string()
    }

    /// Reads a topic as the broker passed it on; `None` when it is not a
    /// pair topic.
    pub fn parse(text: &'a str) -> Option<PairTopic<'a>> {
        let mut levels = text.split('/');
        let (Some("tactus"), Some(hall), Some("pair"), Some(from), Some(to), None) =
            (levels.next(), levels.next(), levels.next(), levels.next(), levels.next(), levels.next())
        else {
            return None;
        };
        Some(PairTopic { hall, from, to })
    }
}

impl fmt::Display for PairTopic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tactus/{}/pair/{}/{}", self.hall, self.from, self.to)
    }
}

/// One change on the `events` topic: `epoch` names the publisher's run (its
/// start in Unix ms) and `seq` counts the changes of the run.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Envelope<C> {
    pub epoch: u64,
    pub seq: u64,
    #[serde(flatten)]
    pub change: C,
}

/// An arbiter's action for a board's core, as the daemon applies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    pub board: String,
    pub input: Input,
}

/// The most time an arbiter may set on a clock: 9:59:59, what a chess
/// clock can show (a trace's range, `tactus_trace::range::CLOCK_MS`).
pub const MAX_CLOCK_SET_MS: u64 = *tactus_trace::range::CLOCK_MS.values.end();
/// The most time one penalty or addition may give (FIDE's are minutes).
pub const MAX_ADDED_MS: u64 = *tactus_trace::range::ADDED_MS.values.end();

/// Why an arbiter's action is not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAnAction {
    #[error("{key} {ms} ms is more than a clock shows (9:59:59 = {MAX_CLOCK_SET_MS} ms)")]
    ClockBeyond { key: &'static str, ms: u64 },
    #[error("time added must be more than 0 ms")]
    NoTimeAdded,
    #[error("{0} ms is more time than one addition gives (at most {MAX_ADDED_MS} ms, an hour)")]
    TooMuchAdded(u64),
    #[error("not an arbiter's action (result, set_clock, add_time, claim, pause, resume)")]
    NotArbiters,
}

/// Checks an arbiter's action as the board will take it, from the page or
/// over MQTT: only the actions of `API.md`, with values in range.
pub fn check_arbiter_input(input: &Input) -> Result<(), NotAnAction> {
    let clock = |key: &'static str, ms: u64| {
        if ms > MAX_CLOCK_SET_MS { Err(NotAnAction::ClockBeyond { key, ms }) } else { Ok(()) }
    };
    match *input {
        Input::SetClock { white_ms, black_ms } => clock("white_ms", white_ms).and(clock("black_ms", black_ms)),
        Input::AddTime { ms: 0, .. } => Err(NotAnAction::NoTimeAdded),
        Input::AddTime { ms, .. } if ms > MAX_ADDED_MS => Err(NotAnAction::TooMuchAdded(ms)),
        Input::AddTime { .. } | Input::Result { .. } | Input::Claim { .. } | Input::Pause | Input::Resume => Ok(()),
        _ => Err(NotAnAction::NotArbiters),
    }
}

/// What a control's seal carries besides its MAC: the board's run it is
/// for (`epoch`), its sender's run (`from`) and the sender's count (`n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ControlSeal {
    pub epoch: u64,
    pub from: u64,
    pub n: u64,
}

impl ControlSeal {
    /// The seal's parameters, as `HallKey::seal` takes them.
    pub fn params(&self) -> String {
        format!("epoch={} from={} n={}", self.epoch, self.from, self.n)
    }

    /// From an opened seal's parameters, each read by `number`; `None`
    /// when one is missing.
    pub fn read(number: impl Fn(&str) -> Option<u64>) -> Option<ControlSeal> {
        Some(ControlSeal { epoch: number("epoch")?, from: number("from")?, n: number("n")? })
    }
}

/// A control as the `control` topic carries it: one trace input line, its
/// `t` 0 (the board stamps it).
pub(crate) fn control_payload(input: Input) -> String {
    let mut line = String::new();
    tactus_trace::format_entry(&mut line, &Entry { t: 0, record: Record::Input(input) });
    line
}

/// A control whose body is not one input line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotAControl {
    #[error(transparent)]
    Utf8(#[from] std::str::Utf8Error),
    #[error("not an input line")]
    NotInput,
    /// The line's error; its number is no news (a control is one line).
    #[error("{}", .0.message)]
    Line(TraceError),
}

pub(crate) fn parse_control(payload: &[u8]) -> Result<Input, NotAControl> {
    let text = std::str::from_utf8(payload)?;
    match tactus_trace::parse_entry(1, text.trim()) {
        Ok(Entry { record: Record::Input(input), .. }) => Ok(input),
        Ok(_) => Err(NotAControl::NotInput),
        Err(e) => Err(NotAControl::Line(e)),
    }
}

/// A game's result as the wire spells it (`"1-0"`, `"0-1"`, `"1/2-1/2"`, or
/// `null`), for `#[serde(with = "…")]`: anything else is an error naming it.
pub(crate) mod opt_result {
    use super::*;

    pub fn serialize<S: Serializer>(result: &Option<GameResult>, s: S) -> Result<S::Ok, S::Error> {
        match result {
            Some(r) => s.serialize_str(r.as_str()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<GameResult>, D::Error> {
        Option::<String>::deserialize(d)?.map(|text| text.parse().map_err(D::Error::custom)).transpose()
    }
}

/// A move in UCI as the wire spells it (`e2e4`, `e7e8q`, `0000`), for
/// `#[serde(with = "…")]`: anything else is an error naming it.
pub(crate) mod uci_text {
    use super::*;
    use shakmaty::uci::UciMove;

    pub fn serialize<S: Serializer>(uci: &UciMove, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(uci)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<UciMove, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.parse().map_err(|_| {
            let shown: String = text.chars().take(16).collect();
            D::Error::custom(format!("{shown:?} is not a move in UCI"))
        })
    }
}

/// One of the trace's spelled words (a result, a claim, a reason), for
/// `#[serde(deserialize_with = "…")]`: anything else is an error naming the
/// word and the choices.
pub(crate) fn spelled<'de, D: Deserializer<'de>, T: FromStr<Err: std::fmt::Display>>(d: D) -> Result<T, D::Error> {
    String::deserialize(d)?.parse().map_err(D::Error::custom)
}

/// [`spelled`], or `null`.
pub(crate) fn opt_spelled<'de, D: Deserializer<'de>, T: FromStr<Err: std::fmt::Display>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<String>::deserialize(d)?.map(|text| text.parse().map_err(D::Error::custom)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_be_one_plain_topic_level() {
        assert!(check_name("board", "12").is_ok());
        assert!(check_name("board", "table-3_b").is_ok());
        for bad in ["", "a/b", "+", "#", "x#", "a b", "é", &"x".repeat(65)] {
            assert!(check_name("board", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn topics_are_written_and_read_back() {
        let topic = Topic::new("club", "b1", Leaf::State);
        assert_eq!(topic.to_string(), "tactus/club/b1/state");
        assert_eq!(Topic::parse("tactus/club/b1/state"), Ok(Some(topic)));
        assert_eq!(Topic::parse("tactus/club/b1/other"), Ok(None));
        assert_eq!(Topic::every_board("club", Leaf::Events), "tactus/club/+/events");
        for bad in ["tactus/club/b1", "tactus/club/b1/state/x", "other/club/b1/state", ""] {
            assert!(Topic::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn pair_topics_are_written_and_read_back() {
        let topic = PairTopic::new("schools", "A", "B");
        assert_eq!(topic.to_string(), "tactus/schools/pair/A/B");
        assert_eq!(PairTopic::parse("tactus/schools/pair/A/B"), Some(topic));
        assert_eq!(PairTopic::to_board("schools", "B"), "tactus/schools/pair/+/B");
        for bad in ["tactus/schools/A/B/state", "tactus/schools/pair/A", "tactus/schools/pair/A/B/x", ""] {
            assert_eq!(PairTopic::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn results_are_the_three_words() {
        #[derive(Serialize, Deserialize, Debug, PartialEq)]
        struct Over {
            #[serde(default, with = "opt_result")]
            result: Option<GameResult>,
        }
        for (text, result) in [
            (r#"{"result":"1-0"}"#, Some(GameResult::WhiteWins)),
            (r#"{"result":"1/2-1/2"}"#, Some(GameResult::Draw)),
            (r#"{"result":null}"#, None),
        ] {
            assert_eq!(serde_json::from_str::<Over>(text).unwrap(), Over { result }, "{text}");
            assert_eq!(serde_json::to_string(&Over { result }).unwrap(), text);
        }
        assert_eq!(serde_json::from_str::<Over>("{}").unwrap(), Over { result: None });
        let e = serde_json::from_str::<Over>(r#"{"result":"2-0"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown result \"2-0\""), "{e}");
    }

    #[test]
    fn a_controls_seal_names_its_run_sender_and_count() {
        let seal = ControlSeal { epoch: 7, from: 99, n: 3 };
        assert_eq!(seal.params(), "epoch=7 from=99 n=3");
        let number =
            |name: &str| seal.params().split(' ').find_map(|p| p.strip_prefix(name)?.strip_prefix('=')?.parse().ok());
        assert_eq!(ControlSeal::read(number), Some(seal));
        assert_eq!(ControlSeal::read(|name| (name != "n").then_some(1)), None);
    }

    #[test]
    fn controls_are_trace_input_lines() {
        let input = Input::AddTime { side: shakmaty::Color::Black, ms: 60_000 };
        let line = control_payload(input);
        assert_eq!(line, r#"{"t": 0, "input": "add_time", "side": "black", "ms": 60000}"#);
        assert_eq!(parse_control(line.as_bytes()), Ok(input));
        assert!(parse_control(br#"{"t": 0, "sq": "e4", "on": true}"#).is_err());
        assert!(parse_control(b"\xff").is_err());
    }
}
