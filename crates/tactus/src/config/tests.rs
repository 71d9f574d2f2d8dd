use std::path::{Path, PathBuf};

use tactus_dgt::protocol::ClockSide;
use tactus_net::{Tags, Title};

use super::*;
use crate::sink::VoiceSink;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shipped() -> String {
    std::fs::read_to_string(root().join("config/tactus.toml")).unwrap()
}

fn error_of(text: &str) -> String {
    parse(Path::new("t.toml"), text).unwrap_err().to_string()
}

#[test]
fn the_shipped_config_is_valid_and_suits_a_real_board() {
    let config = load(&root().join("config/tactus.toml")).unwrap();
    assert_eq!(config.board.kind, BoardKind::GpioMatrix);
    assert_eq!(config.voice.sink, VoiceSink::Sound);
    assert_eq!(config.state.dir, Path::new("/var/lib/tactus"));
}

/// The shipped file says every key's default: what it sets is what the
/// program would take without it (the 10, 100 and 250 ms of `[game]` among
/// them, which are `tactus_trace::range`'s).
#[test]
fn the_shipped_config_sets_the_defaults() {
    let config = load(&root().join("config/tactus.toml")).unwrap();
    assert_eq!(format!("{config:#?}"), format!("{:#?}", Config::default()));
    let game = &config.game;
    assert_eq!(
        (game.debounce_ms.get(), game.settle_ms.get(), game.press_grace_ms.get()),
        (tactus_core::Policy::default().debounce_ms, tactus_core::Policy::default().settle_ms, {
            tactus_core::Policy::default().press_grace_ms
        })
    );
}

#[test]
fn the_keys_are_the_tables_fields() {
    let keys = keys::all();
    let mut tables: Vec<&str> = keys.iter().map(|k| k.table).collect();
    tables.dedup();
    assert_eq!(
        tables,
        ["board", "game", "voice", "clock", "engine", "http", "mqtt", "pair", "lichess", "round", "state"]
    );
    assert!(keys.len() > 70, "{keys:?}");
    for key in [key!(pair.clock), key!(game.press_grace_ms), key!(lichess.seek), key!(state.dir)] {
        assert!(keys.contains(&key), "{key}");
    }
    assert_eq!(key!(engine.level).to_string(), "engine.level");
    assert_eq!(key!(engine.level).in_file(), "[engine] level");
}

#[test]
fn every_key_is_documented_in_the_shipped_config() {
    // Each key of each table appears, set or commented out, with a comment above.
    let text = shipped();
    for key in keys::all() {
        let start = text.find(&format!("\n[{}]\n", key.table)).unwrap_or_else(|| panic!("no [{}]", key.table));
        let end = text[start + 1..].find("\n[").map_or(text.len(), |i| start + 1 + i);
        let lines: Vec<&str> = text[start..end].lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start_matches("# ").starts_with(&format!("{} =", key.name)))
            .unwrap_or_else(|| panic!("{key} is not in the shipped config"));
        assert!(lines[at - 1].starts_with('#'), "{key} has no comment above it");
    }
}

/// The operator's guide lists each table's keys: a row `| `[table]` | keys
/// | flags |` names every key of the table.
#[test]
fn every_key_is_in_the_operator_guide() {
    let guide = std::fs::read_to_string(root().join("docs/operator-guide.md")).unwrap();
    for key in keys::all() {
        let row = guide
            .lines()
            .find(|l| l.starts_with(&format!("| `[{}]` |", key.table)))
            .unwrap_or_else(|| panic!("no row for [{}] in the operator guide", key.table));
        let keys = row.split('|').nth(2).unwrap();
        assert!(keys.contains(&format!("`{}`", key.name)), "{key} is not in the operator guide's row: {row}");
    }
}

/// Wherever a message, a guide or the shipped file names a key as the
/// file spells it (`[board] kind`), the key is there.
#[test]
fn every_key_named_anywhere_is_a_key() {
    let keys = keys::all();
    let mut tables: Vec<&str> = keys.iter().map(|k| k.table).collect();
    tables.dedup();
    let mut files = vec![root().join("README.md"), root().join("config/tactus.toml")];
    let mut dirs = vec![root().join("docs"), root().join("crates"), root().join("hardware"), root().join("install")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.ends_with("node_modules") {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md" || e == "rs") {
                files.push(path);
            }
        }
    }
    let mut named = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for table in &tables {
            let spelled = format!("[{table}] ");
            for (at, _) in text.match_indices(&spelled) {
                let rest = &text[at + spelled.len()..];
                let name: String =
                    rest.chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_').collect();
                if name.is_empty() {
                    continue;
                }
                named += 1;
                assert!(
                    keys.iter().any(|k| k.table == *table && k.name == name),
                    "{}: [{table}] {name} is no key",
                    file.display()
                );
            }
        }
    }
    assert!(named > 50, "the keys are named in {named} places");
}

#[test]
fn syntax_errors_name_file_line_and_key() {
    let text = "[board]\nkind = \"sim\"\nscan_hz = \"fast\"\n";
    let e = parse(Path::new("/etc/tactus/tactus.toml"), text).unwrap_err().to_string();
    assert!(e.starts_with("/etc/tactus/tactus.toml:3: key `board.scan_hz`:"), "{e}");
    let e = error_of("[voice]\nsay = \"de:annex-d\"\nvolume = 3\n");
    assert!(e.starts_with("t.toml:3: key `voice.volume`:") && e.contains("unknown field"), "{e}");
    assert!(e.contains("expected one of `sink`, `say`"), "what it could be: {e}");
    let e = error_of("[nonsense]\n");
    assert!(e.contains("t.toml:1") && e.contains("nonsense"), "{e}");
    // The key of a value TOML cannot read at all.
    let e = error_of("[voice]\n\nsay = de:annex-d\n");
    assert!(e.starts_with("t.toml:3: key `voice.say`:") && e.contains("quoted"), "{e}");
    let e = error_of("[board]\nkind = \"sim\"\n[board]\n");
    assert!(e.starts_with("t.toml:3"), "{e}");
}

/// The key is TOML's own, however the file writes it: a table header, an
/// inline table, a dotted key, an array over lines.
#[test]
fn the_key_is_found_however_the_file_writes_it() {
    let cases = [
        ("voice = { rate = 0 }\n", "t.toml:1: key `voice.rate`: 0 is out of range"),
        ("voice.rate = 0\n", "t.toml:1: key `voice.rate`: 0 is out of range"),
        ("[voice] # the voice\n  rate   =   0\n", "t.toml:2: key `voice.rate`: 0 is out of range"),
        ("[voice]\ntime_warnings = [\n  60,\n  0,\n]\n", "t.toml:4: key `voice.time_warnings`: 0 is out of range"),
        ("[board]\nkind = \"sim\" # [game] settle_ms = 5\n[game]\nsettle_ms = -5\n", "t.toml:4: key `game.settle_ms`"),
    ];
    for (text, want) in cases {
        let e = error_of(text);
        assert!(e.starts_with(want), "{text:?}: {e}");
    }
    // Every key, given a value no key takes, is named with its line.
    for key in keys::all() {
        let e = error_of(&format!("# {key}\n[{}]\n{} = {{ x = 1 }}\n", key.table, key.name));
        assert!(e.starts_with(&format!("t.toml:3: key `{key}`: ")), "{e}");
    }
}

#[test]
fn a_pair_needs_the_hall_and_no_engine() {
    let base = "[mqtt]\nbroker = \"127.0.0.1:1883\"\nhall = \"h\"\nboard_id = \"A\"\nhall_key_file = \"/k\"\n";
    // Parsing checks the whole.
    let check = |text: &str| parse(Path::new("t.toml"), text).map(|_| ()).map_err(|e| e.to_string());
    let paired = format!("{base}[pair]\nwith = \"B\"\nplays = \"white\"\n");
    assert_eq!(check(&paired), Ok(()));
    let plan = parse(Path::new("t.toml"), &paired).unwrap().opponent().unwrap();
    let OpponentPlan::Partner(pair) = &plan else { panic!("{plan:?}") };
    assert_eq!((pair.side, pair.partner.as_str(), pair.board.as_str()), (shakmaty::Color::White, "B", "A"));
    assert_eq!(plan.guided_side(), Some(shakmaty::Color::Black), "the partner's side");
    let e = check(&paired.replace("hall_key_file = \"/k\"\n", "")).unwrap_err();
    assert!(e.contains("mqtt.hall_key_file") && e.contains("--hall-key"), "{e}");
    let e = check(&paired.replace("plays = \"white\"\n", "")).unwrap_err();
    assert!(e.contains("pair.plays"), "{e}");
    let e = check(&paired.replace("board_id = \"A\"\n", "")).unwrap_err();
    assert!(e.contains("mqtt.board_id") && e.contains("--board-id"), "the host's name is no name to pair by: {e}");
    let e = check(&paired.replace("with = \"B\"", "with = \"A\"")).unwrap_err();
    assert!(e.contains("this board itself"), "{e}");
    let e = check(&format!("{paired}[engine]\npath = \"/usr/games/stockfish\"\n")).unwrap_err();
    assert!(e.contains("engine.path"), "{e}");
    assert!(parse(Path::new("t.toml"), "[pair]\nwith = \"a/b\"\n").is_err(), "a partner's name is one topic level");
    // One clock at the table: attached here or to the partner board.
    let table = |clock: &str| parse(Path::new("t.toml"), &format!("{paired}clock = \"{clock}\"\n"));
    let table_clock = |c: Config| c.opponent().unwrap().table_clock();
    assert_eq!(table_clock(parse(Path::new("t.toml"), &paired).unwrap()), None, "own, by default");
    assert_eq!(table_clock(table("here").unwrap()), Some(tactus_trace::TableClock::Here));
    assert_eq!(table_clock(table("partner").unwrap()), Some(tactus_trace::TableClock::Partner));
    assert!(table("both").is_err());
    let e = check(&format!("{paired}clock = \"partner\"\n[clock]\ndevice = \"open\"\n")).unwrap_err();
    assert!(e.contains("pair.clock"), "{e}");
}

/// Two opponents are never seated: of an engine, a partner board and a
/// player on Lichess, the second named is refused, at its line.
#[test]
fn a_board_plays_one_opponent() {
    let partner = "[pair]\nwith = \"B\"\nplays = \"white\"\n";
    let engine = "[engine]\npath = \"/usr/games/stockfish\"\n";
    let lichess = "[lichess]\ntoken_file = \"/etc/tactus/lichess.token\"\n";
    let hall = "[mqtt]\nbroker = \"127.0.0.1:1883\"\nhall = \"h\"\nboard_id = \"A\"\nhall_key_file = \"/k\"\n";
    for (first, second, key, line) in [
        (partner, engine, "engine.path", 5),
        (partner, lichess, "lichess.token_file", 5),
        (engine, lichess, "lichess.token_file", 4),
    ] {
        let e = error_of(&format!("{first}{second}{hall}"));
        assert!(e.starts_with(&format!("t.toml:{line}: key `{key}`: this board plays one opponent")), "{e}");
        assert!(e.ends_with(", not both"), "{e}");
    }
    let plan = |text: &str| parse(Path::new("t.toml"), text).unwrap().opponent().unwrap();
    assert!(matches!(plan(engine), OpponentPlan::Engine(e) if e.side == shakmaty::Color::Black));
    assert!(matches!(plan(lichess), OpponentPlan::Lichess(l) if l.challenge.is_none() && l.seek.is_none()));
    assert_eq!(plan(""), OpponentPlan::None);
}

/// Online games asked for without the token that plays them: `tactus
/// doctor` reads the file (and says what it lacks), the daemon does not
/// start.
#[test]
fn online_games_need_the_token() {
    let dir = std::env::temp_dir().join(format!("tactus-config-online-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("online.toml");
    std::fs::write(&file, "[game]\ntime_control = \"1800+5\"\n\n[lichess]\nchallenge = \"friend\"\n").unwrap();
    assert!(Draft::read(Some(&file)).unwrap().checked().is_ok(), "doctor reads it");
    let e = Draft::read(Some(&file)).unwrap().plan().unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}:5: key `lichess.challenge`", file.display())), "{e}");
    assert!(e.contains("--lichess-token-file"), "{e}");
    let mut draft = Draft::read(Some(&file)).unwrap();
    draft.config.lichess.token_file = Some("/etc/tactus/lichess.token".into());
    let plan = draft.plan().unwrap();
    let OpponentPlan::Lichess(online) = plan.opponent else { panic!("{:?}", plan.opponent) };
    let (who, clock) = online.challenge.unwrap();
    assert_eq!((who.as_str(), clock.limit_s(), clock.increment_s()), ("friend", 1800, 5));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_is_checked_whole_once_the_flags_are_on_top() {
    let dir = std::env::temp_dir().join(format!("tactus-config-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pair.toml");
    std::fs::write(&file, "[mqtt]\nhall = \"h\"\n\n[pair]\nwith = \"B\"\nplays = \"white\"\n").unwrap();
    let e = Draft::read(Some(&file)).unwrap().checked().unwrap_err().to_string();
    assert!(e.contains("key `mqtt.broker`") && e.contains("--mqtt"), "{e}");
    let mut draft = Draft::read(Some(&file)).unwrap();
    draft.config.mqtt.broker = Some("127.0.0.1:1883".parse().unwrap());
    let e = draft.clone().plan().unwrap_err().to_string();
    assert!(e.contains("key `mqtt.hall_key_file`"), "the next need, after --mqtt: {e}");
    draft.config.mqtt.hall_key_file = Some("/k".into());
    draft.config.mqtt.board_id = BoardId::Named("B".parse().unwrap());
    let e = draft.clone().plan().unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}:5: key `pair.with`", file.display())), "the file's line: {e}");
    draft.config.mqtt.board_id = BoardId::Named("A".parse().unwrap());
    let plan = draft.plan().unwrap();
    assert_eq!(plan.file.as_deref(), Some(file.as_path()));
    assert!(matches!(plan.opponent, OpponentPlan::Partner(_)));
    std::fs::remove_dir_all(&dir).unwrap();
    // A key a flag set, that the file does not: the file, no line.
    let mut draft = Draft::of(Config::default());
    draft.config.pair.with = Some("B".parse().unwrap());
    let e = draft.plan().unwrap_err().to_string();
    assert!(e.starts_with("the built-in defaults (no config file): key `pair.plays`"), "{e}");
}

#[test]
fn value_errors_name_file_line_and_key() {
    let cases = [
        ("[game]\n\ntime_control = \"40/\"\n", "t.toml:3: key `game.time_control`:"),
        ("[board]\nkind = \"magic\"\n", "t.toml:2: key `board.kind`:"),
        ("[voice]\nsay = \"xx:annex-d\"\n", "t.toml:2: key `voice.say`: unknown language"),
        ("[voice]\nsink = \"loud\"\n", "t.toml:2: key `voice.sink`:"),
        ("[voice]\ntouches = \"some\"\n", "t.toml:2: key `voice.touches`:"),
        ("[voice]\nreadout = \"by-file\"\n", "t.toml:2: key `voice.readout`:"),
        ("[game]\nvariant = \"crazyhouse\"\n", "t.toml:2: key `game.variant`:"),
        ("[board]\nsim_speed = 1e-300\n", "t.toml:2: key `board.sim_speed`:"),
        ("[board]\nscan_hz = 0\n", "t.toml:2: key `board.scan_hz`:"),
        ("[board]\nrows = [1, 2]\n", "t.toml:2: key `board.rows`:"),
        ("[clock]\ndevice = \"dgt2010\"\n", "t.toml:2: key `clock.device`:"),
        ("[clock]\nwhite = \"up\"\n", "t.toml:2: key `clock.white`:"),
        ("[engine]\nplays = \"both\"\n", "t.toml:2: key `engine.plays`:"),
        ("[http]\nlisten = \"everywhere\"\n", "t.toml:2: key `http.listen`:"),
        ("[mqtt]\nbroker = \"a b:1\"\n", "t.toml:2: key `mqtt.broker`:"),
        ("# x\n[game]\nstart_fen = \"not a fen\"\n", "t.toml:3: key `game.start_fen`:"),
        ("[board]\nrows = [4, 4, 27, 22, 5, 6, 13, 26]\n", "t.toml:2: key `board.rows`:"),
        // A column on a row's pin: the column is at fault.
        ("[board]\ncols = [4, 24, 25, 8, 7, 12, 16, 9]\n", "t.toml:2: key `board.cols`: column 0: BCM 4"),
        ("[board]\ncols = [23, 24, 25, 8, 7, 12, 16, 28]\n", "t.toml:2: key `board.cols`: column 7: BCM 28"),
        ("[game]\nsupervision = \"lenient\"\n", "t.toml:2: key `game.supervision`: unknown supervision"),
        ("[game]\nwhite_title = \"XM\"\n", "t.toml:2: key `game.white_title`: \"XM\" is not a FIDE title: one of GM"),
        ("[lichess]\nurl = \"lichess.org\"\n", "t.toml:2: key `lichess.url`: \"lichess.org\": Lichess's address"),
        (
            "[lichess]\nbroadcast = [\"AbCd1234\", \"short\"]\n",
            "t.toml:2: key `lichess.broadcast`: \"short\": a Lichess round id",
        ),
        (
            "[lichess]\nbroadcast = [\"AbCd1234=1-100\", \"AbCd1234=101-200\"]\n",
            "t.toml:2: key `lichess.broadcast`: the round AbCd1234 is given twice",
        ),
        (
            "[lichess]\n\nbroadcast = [\"AbCd1234=1-100\", \"Zz999999=50-149\"]\n",
            "t.toml:3: key `lichess.broadcast`: the rounds AbCd1234=1-100 and Zz999999=50-149 share boards",
        ),
        (
            "[board]\nhall_addresses = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x30]\n",
            "t.toml:2: key `board.hall_addresses`:",
        ),
    ];
    for (text, want) in cases {
        let e = error_of(text);
        assert!(e.starts_with(want), "{text:?}: {e}");
    }
}

/// Every number has a range, and a time control, a broker and the
/// names on the broker must make sense: out of it, the error names the
/// file, the line, the key and the range (`settle_ms` = 2^63 - 1 once
/// announced a move 3 ms after the placement; `baud = 0`,
/// `time_control = "0"` and `broker = "::::"` were taken).
#[test]
fn values_out_of_range_name_file_line_key_and_range() {
    let cases = [
        (
            "[game]\nsettle_ms = 9223372036854775807\n",
            "t.toml:2: key `game.settle_ms`: 9223372036854775807 is out of range: 0 to 10000 ms",
        ),
        (
            "[game]\nsettle_ms = 18446744073709551615\n",
            "t.toml:2: key `game.settle_ms`: 18446744073709551615 is out of range: 0 to 10000 ms",
        ),
        ("[game]\ndebounce_ms = 1001\n", "t.toml:2: key `game.debounce_ms`: 1001 is out of range: 0 to 1000 ms"),
        ("[game]\npress_grace_ms = -1\n", "t.toml:2: key `game.press_grace_ms`: -1 is out of range: 0 to 10000 ms"),
        ("[game]\ntime_control = \"0\"\n", "t.toml:2: key `game.time_control`: \"0\" starts the clocks at 0:00"),
        ("[game]\ntime_control = \"0+5\"\n", "t.toml:2: key `game.time_control`: \"0+5\" starts the clocks at 0:00"),
        ("[game]\ntime_control = \"*0\"\n", "t.toml:2: key `game.time_control`:"),
        ("[clock]\nbaud = 0\n", "t.toml:2: key `clock.baud`: 0 is out of range: 1200 to 4000000 baud"),
        ("[clock]\nbaud = 99999999999\n", "t.toml:2: key `clock.baud`: 99999999999 is out of range"),
        ("[mqtt]\nbroker = \"::::\"\n", "t.toml:2: key `mqtt.broker`: \"::::\" is not a broker address"),
        ("[mqtt]\nbroker = \"hall:0\"\n", "t.toml:2: key `mqtt.broker`:"),
        ("[mqtt]\nhall = \"a/b\"\n", "t.toml:2: key `mqtt.hall`: \"a/b\" is not a plain name"),
        ("[mqtt]\nboard_id = \"#\"\n", "t.toml:2: key `mqtt.board_id`:"),
        ("[http]\nlisten = \"127.0.0.1:0\"\n", "t.toml:2: key `http.listen`: port 0"),
        ("[board]\nscan_hz = 2001\n", "t.toml:2: key `board.scan_hz`: 2001 is out of range: 1 to 2000 scans a second"),
        (
            "[board]\nscan_hz = \"fast\"\n",
            "t.toml:2: key `board.scan_hz`: invalid type: string \"fast\", expected a whole number (the range is 1 to 2000 scans a second)",
        ),
        ("[board]\ni2c_address = 0x40\n", "t.toml:2: key `board.i2c_address`: 64 is out of range"),
        ("[board]\nsettle_us = 1000000\n", "t.toml:2: key `board.settle_us`: 1000000 is out of range: 0 to 1000 µs"),
        ("[voice]\nrate = 0\n", "t.toml:2: key `voice.rate`: 0 is out of range: 80 to 450 words a minute"),
        (
            "[voice]\ntime_warnings = [60, 0]\n",
            "t.toml:2: key `voice.time_warnings`: 0 is out of range: 1 to 35999 seconds",
        ),
        ("[voice]\ntime_warnings = [9223372036854775807]\n", "t.toml:2: key `voice.time_warnings`:"),
        (
            "[voice]\ntime_warnings = [1,2,3,4,5,6,7,8,9,10,11]\n",
            "t.toml:2: key `voice.time_warnings`: 11 warnings: at most 10",
        ),
        ("[engine]\nlevel = 11\n", "t.toml:2: key `engine.level`: 11 is out of range: 0 to 10"),
        ("[engine]\nlevel = 256\n", "t.toml:2: key `engine.level`: 256 is out of range: 0 to 10"),
        ("[engine]\nbook_plies = 100000\n", "t.toml:2: key `engine.book_plies`: 100000 is out of range: 0 to 200"),
        ("[engine]\nthink_ms = 0\n", "t.toml:2: key `engine.think_ms`: 0 is out of range: 1 to 600000 ms"),
        ("[game]\nwhite_fide_id = 0\n", "t.toml:2: key `game.white_fide_id`: 0 is out of range: 1 to 999999999"),
        ("[game]\nblack_fide_id = 1000000000\n", "t.toml:2: key `game.black_fide_id`: 1000000000 is out of range"),
        ("[game]\nblack_elo = 3501\n", "t.toml:2: key `game.black_elo`: 3501 is out of range: 1 to 3500 rating points"),
    ];
    for (text, want) in cases {
        let e = error_of(text);
        assert!(e.starts_with(want), "{text:?}: {e}");
    }
    // The edges of the ranges are in them.
    let edges = "[board]\nscan_hz = 2000\nsettle_us = 1000\ni2c_address = 0x27\n\
                 [game]\nsettle_ms = 10000\ndebounce_ms = 0\npress_grace_ms = 10000\ntime_control = \"0s5\"\n\
                 [voice]\nrate = 450\ntime_warnings = [35999, 1]\n[clock]\nbaud = 1200\n\
                 [engine]\nlevel = 10\nbook_plies = 0\nthink_ms = 600000\n\
                 [mqtt]\nbroker = \"[::1]:65535\"\nhall = \"club_1\"\nboard_id = \"b-1\"\n";
    let c = parse(Path::new("t.toml"), edges).unwrap();
    let warnings: Vec<u64> = c.voice.time_warnings.seconds().collect();
    assert_eq!((c.game.settle_ms.get(), c.clock.baud(), warnings), (10_000, 1200, vec![35_999, 1]));
}

/// A challenge or a seek takes the game's clock as Lichess takes clocks:
/// one period, whole minutes (or a few short limits), an increment of
/// whole seconds.
#[test]
fn a_challenge_or_a_seek_takes_the_games_clock_as_lichess_takes_clocks() {
    let asked = |tc: &str, ask: &str| {
        parse(Path::new("t.toml"), &format!("[game]\ntime_control = \"{tc}\"\n[lichess]\n{ask}\n"))
            .map_err(|e| e.to_string())
    };
    for good in ["1800+5", "900", "30+0"] {
        assert!(asked(good, "challenge = \"friend\"").is_ok(), "{good}");
    }
    for bad in ["-", "1830+5", "1800+0.5", "40/5400+30:1800+30", "20000+0", "1800+200", "5400d30"] {
        let e = asked(bad, "challenge = \"friend\"").unwrap_err();
        assert!(e.starts_with("t.toml:2: key `game.time_control`:") && e.contains("Lichess"), "{bad}: {e}");
    }
    let err = asked("300+3", "seek = true").unwrap_err();
    assert!(err.contains("lichess.seek") && err.contains("rapid") && err.contains("\"300+3\""), "{err}");
    let text = "[game]\ntime_control = \"1800+5\"\n[lichess]\nchallenge = \"friend\"\naccept_from = [\"coach\"]\n";
    let c = parse(Path::new("t.toml"), text).unwrap();
    assert_eq!(
        (c.lichess.challenge.as_deref(), &c.lichess.accept_from[..]),
        (Some("friend"), &["coach".to_owned()][..])
    );
}

/// The players' FIDE IDs, titles and ratings go on the game's tags; the
/// Lichess table gives the relay its rounds.
#[test]
fn players_and_lichess_keys_are_read() {
    let text = "[game]\nwhite = \"Ann\"\nwhite_fide_id = 1503014\nwhite_title = \"wgm\"\nblack_elo = 1987\n\
                [lichess]\ntoken_file = \"/etc/tactus/lichess.token\"\nbroadcast = [\"AbCd1234=1-100\", \"Zz999999=101-200\"]\n";
    let c = parse(Path::new("t.toml"), text).unwrap();
    let tags = c.game.player_tags(Tags { white: Some("Ann".into()), ..Tags::default() });
    assert_eq!(tags.white.as_deref(), Some("Ann"));
    assert_eq!((tags.white_fide_id, tags.white_title, tags.black_elo), (Some(1_503_014), Some(Title::Wgm), Some(1987)));
    assert_eq!((tags.white_elo, tags.black_fide_id, tags.black_title), (None, None, None));
    assert_eq!(c.lichess.url.as_str(), "https://lichess.org");
    let rounds: Vec<String> = c.lichess.broadcast.iter().map(ToString::to_string).collect();
    assert_eq!(rounds, ["AbCd1234=1-100", "Zz999999=101-200"]);
    assert!(Config::default().lichess.broadcast.is_empty());
}

#[test]
fn the_dgt_3000_has_its_own_defaults() {
    let c = parse(Path::new("t.toml"), "[clock]\ndevice = \"dgt3000\"\nwhite = \"right\"\n").unwrap();
    assert_eq!((c.clock.path(), c.clock.baud(), c.clock.white), ("/dev/tactus-dgt".into(), 9600, ClockSide::Right));
    let c = parse(Path::new("t.toml"), "[clock]\ndevice = \"open\"\nbaud = 57600\n").unwrap();
    assert_eq!((c.clock.path(), c.clock.baud()), ("/dev/tactus-clock".into(), 57600));
}

/// `board_id = ""` is the host's name, wherever the name is used; `hall =
/// ""` is the hall `tactus`.
#[test]
fn an_empty_name_is_the_default_name() {
    let c = parse(Path::new("t.toml"), "[mqtt]\nhall = \"\"\nboard_id = \"\"\n").unwrap();
    assert_eq!((c.mqtt.board_id.clone(), c.mqtt.hall_name().as_str()), (BoardId::Host, "tactus"));
    let c = parse(Path::new("t.toml"), "[mqtt]\nhall = \"club\"\nboard_id = \"b3\"\n").unwrap();
    assert_eq!((c.mqtt.board_id.name().as_str(), c.mqtt.hall_name().as_str()), ("b3", "club"));
}

#[test]
fn a_file_that_cannot_be_read_is_named() {
    let e = load(Path::new("/nonexistent/tactus.toml")).unwrap_err().to_string();
    assert!(e.starts_with("/nonexistent/tactus.toml: cannot read:"), "{e}");
}
