//! A hall whose broker lets anyone in, and a stranger on it without the hall
//! key: they cannot end a game, add time, replay an arbiter's control, forge
//! a board's changes or state, invent boards, or put anything into
//! `/games.pgn`; the board plays to its real end and the relay serves only
//! real games. Then the broker of `config/mosquitto/` as shipped: logins,
//! the ACL and TLS. All through a real mosquitto (`apt-get install
//! mosquitto`), started by each test on a free port of 127.0.0.1.

mod common;

use std::time::Duration;

use common::{Game, Mosquitto, eventually, get, played, request};
use rumqttc::{AsyncClient, ConnectReturnCode, ConnectionError, Event, MqttOptions, Packet, Publish, QoS};
use shakmaty::Color;
use tactus_net::{
    AppState, BoardPublisher, Broker, Control, Hall, HallKey, HallLink, Login, RelayOptions, Tags, relay, serve,
};
use tactus_sim::Profile;
use tactus_speech::{Lang, Scribe, Style, Words};
use tactus_trace::{GameResult, Input};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(15);

fn key() -> HallKey {
    HallKey::from_bytes(b"the hall key of the club, 32 byte").unwrap()
}

fn link(port: u16) -> HallLink {
    HallLink::new(Broker::new("127.0.0.1", port)).with_key(key())
}

/// Someone on the broker without the hall key: publishes what they like,
/// and keeps what they hear on the topics they subscribed to.
struct Stranger {
    client: AsyncClient,
    heard: mpsc::UnboundedReceiver<Publish>,
}

impl Stranger {
    async fn connect(port: u16, topics: &[&str]) -> Stranger {
        let mut opts = MqttOptions::new(format!("stranger-{}", rand_id()), "127.0.0.1", port);
        opts.set_keep_alive(Duration::from_secs(5));
        opts.set_max_packet_size(1 << 22, 1 << 22);
        let (client, mut eventloop) = AsyncClient::new(opts, 1024);
        let (tx, heard) = mpsc::unbounded_channel();
        let (subscribed_tx, mut subscribed) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(event) = eventloop.poll().await {
                match event {
                    Event::Incoming(Packet::Publish(p)) => {
                        let _ = tx.send(p);
                    }
                    Event::Incoming(Packet::SubAck(_)) => {
                        let _ = subscribed_tx.send(());
                    }
                    _ => {}
                }
            }
        });
        for topic in topics {
            client.subscribe(*topic, QoS::AtLeastOnce).await.unwrap();
            tokio::time::timeout(WAIT, subscribed.recv()).await.expect("the broker answers a subscription");
        }
        Stranger { client, heard }
    }

    async fn publish(&self, topic: &str, retain: bool, payload: impl Into<Vec<u8>>) {
        self.client.publish(topic, QoS::AtLeastOnce, retain, payload.into()).await.unwrap();
    }
}

fn rand_id() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

fn publish(board: &BoardPublisher, game: &Game, events: std::ops::Range<usize>) {
    if events.start == 0 {
        board.set_tags(Tags::from(&game.header));
    }
    for ev in &game.events[events] {
        board.event(ev, None);
    }
}

/// The hall as a daemon with this game would show it.
fn expected(board: &str, game: &Game) -> Hall {
    let mut hall = Hall::new("club");
    hall.set_tags(board, Tags::from(&game.header));
    for ev in &game.events {
        hall.apply(board, ev, None);
    }
    hall
}

async fn serve_relay(hall: tactus_net::SharedHall, controls: Option<mpsc::Sender<Control>>) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = match controls {
        Some(tx) => AppState::new(hall, tx),
        None => AppState::read_only(hall, tactus_net::UNTRUSTED),
    };
    tokio::spawn(serve(listener, state.with_token("tok"), &CancellationToken::new()));
    addr
}

const RESIGN: &str = r#"{"t": 0, "input": "result", "result": "1-0", "reason": "resignation"}"#;
const AN_HOUR: &str = r#"{"t": 0, "input": "add_time", "side": "black", "ms": 3600000}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_cannot_end_a_game_add_time_or_replay_a_control() {
    let mosquitto = Mosquitto::start();
    let link = link(mosquitto.port);
    let (tx, mut controls) = mpsc::channel(8);
    let board = BoardPublisher::start(&link, "club", "b1", Some(tx), &CancellationToken::new()).unwrap();
    let game = played(71, 80, false, Profile::Realistic, Some("5400+30"));
    let half = game.events.len() / 2;
    publish(&board, &game, 0..half);
    assert!(board.flush(WAIT).await);
    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let moves = board.feed().moves;
    // The retained state carries every change that changes the feed; one
    // that does not may be missed by a relay started after it, so the
    // relay has caught up when it has the board's moves, whatever its seq.
    eventually(WAIT, "the relay to follow the board", async || {
        relay.hall.read(|h| h.feed("b1").is_some_and(|f| f.moves == moves))
    })
    .await;
    let mut stranger = Stranger::connect(mosquitto.port, &["tactus/club/b1/control"]).await;

    // In the clear, retained, and under a seal made up without the key.
    let epoch = board.feed().epoch;
    let forged_seal = format!("tactus-auth1 epoch={epoch} from=1 n=99999999999 mac={}\n{RESIGN}", "0".repeat(64));
    stranger.publish("tactus/club/b1/control", false, RESIGN).await;
    stranger.publish("tactus/club/b1/control", true, AN_HOUR).await;
    stranger.publish("tactus/club/b1/control", false, forged_seal).await;
    eventually(WAIT, "the board to refuse the three", async || board.refused() == 3).await;
    assert!(controls.try_recv().is_err(), "no control reached the daemon");
    // The broker passed each of them on: the board heard and refused them.
    for _ in 0..3 {
        tokio::time::timeout(WAIT, stranger.heard.recv()).await.unwrap();
    }

    // The arbiter, through the relay: taken once.
    let addr = serve_relay(relay.hall.clone(), relay.controls.clone()).await;
    let auth = [("Authorization", "Bearer tok"), ("Content-Type", "application/json")];
    let r = request(addr, "POST", "/api/game/b1/penalty", &auth, r#"{"side": "white", "ms": 60000}"#).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let taken = tokio::time::timeout(WAIT, controls.recv()).await.unwrap().unwrap();
    assert_eq!(taken.input, Input::AddTime { side: Color::White, ms: 60_000 });
    // The stranger heard it go by, and sends it again: refused.
    let heard = tokio::time::timeout(WAIT, stranger.heard.recv()).await.unwrap().unwrap();
    assert!(heard.payload.starts_with(b"tactus-auth1 epoch="), "controls are sealed");
    stranger.publish("tactus/club/b1/control", false, heard.payload.to_vec()).await;
    eventually(WAIT, "the board to refuse the replay", async || board.refused() == 4).await;
    assert!(controls.try_recv().is_err(), "a replayed control is not taken again");
    // The daemon stops (its game will go on in its next run).
    drop(board);

    // Kept retained by the broker, it does not reach the board's next run
    // either (a new game on the board).
    stranger.publish("tactus/club/b1/control", true, heard.payload.to_vec()).await;
    let (tx2, mut controls2) = mpsc::channel(8);
    let next_run = BoardPublisher::start(&link, "club", "b1", Some(tx2), &CancellationToken::new()).unwrap();
    eventually(WAIT, "the next run to refuse the retained control", async || next_run.refused() >= 1).await;
    assert!(controls2.try_recv().is_err());
    drop(next_run);

    // The board plays to its real end, and the relay shows just that. (The
    // next run was started and stopped: the relay follows the newest run, so
    // the game is published again by a third run, as a restarted daemon does.)
    let board = BoardPublisher::start(&link, "club", "b1", None, &CancellationToken::new()).unwrap();
    publish(&board, &game, 0..game.events.len());
    assert!(board.flush(WAIT).await);
    let want = expected("b1", &game).games_pgn();
    eventually(WAIT, "the real game in the relay's feed", async || relay.hall.read(Hall::games_pgn) == want).await;
    assert_eq!(relay.stats.malformed.load(std::sync::atomic::Ordering::Relaxed), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_cannot_forge_a_board_or_the_feed() {
    let mosquitto = Mosquitto::start();
    let link = link(mosquitto.port);
    let board = BoardPublisher::start(&link, "club", "b1", None, &CancellationToken::new()).unwrap();
    let game = played(72, 70, false, Profile::Realistic, Some("5400+30"));
    let half = game.events.len() / 2;
    publish(&board, &game, 0..half);
    assert!(board.flush(WAIT).await);
    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let (seq, moves) = (board.feed().seq, board.feed().moves);
    // The retained state carries every change that changes the feed; one
    // that does not may be missed by a relay started after it, so the
    // relay has caught up when it has the board's moves, whatever its seq.
    eventually(WAIT, "the relay to follow the board", async || {
        relay.hall.read(|h| h.feed("b1").is_some_and(|f| f.moves == moves))
    })
    .await;

    let stranger = Stranger::connect(mosquitto.port, &[]).await;
    let epoch = board.feed().epoch;
    // A result far ahead in the board's real run, in the clear and under a made-up seal.
    let over = format!(
        r#"{{"epoch": {epoch}, "seq": {}, "event": {{"t": 1, "event": "game_over", "result": "1-0", "reason": "resignation", "article": "5.1.2"}}}}"#,
        seq + 1000
    );
    stranger.publish("tactus/club/b1/events", false, over.clone()).await;
    let sealed = format!("tactus-auth1 mac={}\n{over}", "ab".repeat(32));
    stranger.publish("tactus/club/b1/events", false, sealed).await;
    // A retained state that would pin the board for good and inject a game.
    let mut forged = BoardFeed::new("b1");
    forged.epoch = u64::MAX;
    forged.seq = u64::MAX;
    forged.result = Some(GameResult::WhiteWins);
    forged.moves.push(tactus_net::FeedMove {
        ply: 1,
        san: tactus_net::MoveName::Told("e4 1-0\n\n[Event \"Injected\"]\n\n1. f3 e5 2. g4 Qh4# 0-1".into()),
        uci: "e2e4".parse().unwrap(),
        clock_ms: None,
        off_record: false,
    });
    stranger.publish("tactus/club/b1/state", true, serde_json::to_vec(&forged).unwrap()).await;
    // Invented boards.
    for i in 0..200 {
        let change = r#"{"epoch": 1, "seq": 1, "tags": {"white": "Nobody"}}"#;
        stranger.publish(&format!("tactus/club/x{i}/events"), false, change).await;
    }
    eventually(WAIT, "the relay to refuse all of it", async || relay.stats.refused.count() == 203).await;
    let (boards, pgn) = relay.hall.read(|h| (h.len(), h.games_pgn()));
    assert_eq!(boards, 1, "no invented board is followed");
    assert!(!pgn.contains("Injected") && !pgn.contains("[Result \"1-0\"]"), "{pgn}");

    // The board put its own state back over the forged one (a relay that
    // starts now gets the real game), and plays on to its real end.
    eventually(WAIT, "the board to notice the write to its state", async || board.refused() >= 1).await;
    publish(&board, &game, half..game.events.len());
    assert!(board.flush(WAIT).await);
    let want = expected("b1", &game).games_pgn();
    eventually(WAIT, "the real game in the relay's feed", async || relay.hall.read(Hall::games_pgn) == want).await;
    let late = relay_late(&link).await;
    eventually(WAIT, "a late relay to get the real game", async || late.hall.read(Hall::games_pgn) == want).await;
}

/// The board's words for its rulings travel with them, under the board's
/// seal: the relay serves them as the board wrote them, and a stranger who
/// changes a word of a sealed message is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_boards_words_travel_under_its_seal() {
    let mosquitto = Mosquitto::start();
    let link = link(mosquitto.port);
    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let mut stranger = Stranger::connect(mosquitto.port, &["tactus/club/b1/events"]).await;
    let board = BoardPublisher::start(&link, "club", "b1", None, &CancellationToken::new()).unwrap();
    let game = played(74, 80, false, Profile::Irregular, Some("5400+30"));
    let mut scribe = Scribe::new(Words::new(Lang::De, Style::Natural));
    board.set_tags(Tags::from(&game.header));
    for ev in &game.events {
        board.event(ev, scribe.write(ev).as_deref());
    }
    assert!(board.flush(WAIT).await);
    let seq = board.feed().seq;
    eventually(WAIT, "the relay to follow the board", async || {
        relay.hall.read(|h| h.feed("b1").is_some_and(|f| f.seq == seq))
    })
    .await;
    let texts = |feed: &BoardFeed| feed.irregularities.iter().map(|t| t.text.clone()).collect::<Vec<_>>();
    let ours = texts(&board.feed());
    assert!(!ours.is_empty() && ours.iter().all(Option::is_some), "the board's rulings have words: {ours:?}");
    assert_eq!(relay.hall.read(|h| texts(h.feed("b1").unwrap())), ours, "the relay keeps the board's words");

    // A sealed ruling with its words, as the broker passed it on.
    let (payload, words) = loop {
        let heard = tokio::time::timeout(WAIT, stranger.heard.recv()).await.unwrap().unwrap();
        let payload = String::from_utf8(heard.payload.to_vec()).unwrap();
        let (_, body) = payload.split_once('\n').unwrap();
        let change: serde_json::Value = serde_json::from_str(body).unwrap();
        if change["event"]["event"] == "irregularity" {
            break (payload, change["event"]["text"].as_str().unwrap().to_string());
        }
    };
    let quoted = |s: &str| format!("\"text\":{}", serde_json::to_string(s).unwrap());
    assert!(payload.contains(&quoted(&words)), "the words ride in the sealed payload: {payload}");
    let forged = payload.replace(&quoted(&words), &quoted("erfundene Worte"));
    let refused = relay.stats.refused.count();
    stranger.publish("tactus/club/b1/events", false, forged).await;
    eventually(WAIT, "the relay to refuse the changed words", async || relay.stats.refused.count() == refused + 1)
        .await;
    let shown = relay.hall.read(|h| serde_json::to_string(h.feed("b1").unwrap()).unwrap());
    assert!(!shown.contains("erfundene"), "{shown}");
}

async fn relay_late(link: &HallLink) -> tactus_net::Relay {
    relay(link, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap()
}

use tactus_net::BoardFeed;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_follows_the_boards_that_hold_the_key_up_to_its_cap() {
    let mosquitto = Mosquitto::start();
    let link = link(mosquitto.port);
    let relay = relay(&link, Hall::new("club"), RelayOptions { max_boards: 3 }, &CancellationToken::new()).unwrap();
    let boards: Vec<BoardPublisher> = (1..=5)
        .map(|i| BoardPublisher::start(&link, "club", &format!("t{i}"), None, &CancellationToken::new()).unwrap())
        .collect();
    for (i, b) in boards.iter().enumerate() {
        b.set_tags(Tags { white: Some(format!("Player {i}")), ..Tags::default() });
    }
    eventually(WAIT, "three boards followed, the others refused", async || {
        relay.hall.read(|h| h.len()) == 3 && relay.stats.refused.count() >= 2
    })
    .await;
    assert_eq!(relay.hall.read(|h| h.len()), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_hall_key_control_is_off_and_the_relay_says_it_cannot_tell() {
    let mosquitto = Mosquitto::start();
    let open = HallLink::new(Broker::new("127.0.0.1", mosquitto.port));
    let (tx, mut controls) = mpsc::channel(8);
    let board = BoardPublisher::start(&open, "club", "b1", Some(tx), &CancellationToken::new()).unwrap();
    let game = played(73, 20, false, Profile::Clean, Some("5400+30"));
    publish(&board, &game, 0..game.events.len());
    assert!(board.flush(WAIT).await);
    let relay = relay(&open, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    assert!(relay.controls.is_none());
    eventually(WAIT, "the relay to follow the board", async || relay.hall.read(|h| h.len()) == 1).await;
    let addr = serve_relay(relay.hall.clone(), None).await;
    let hall: serde_json::Value = serde_json::from_str(&get(addr, "/api/hall").await.body).unwrap();
    assert_eq!(hall["trust"], "none");
    let auth = [("Authorization", "Bearer tok")];
    let r = request(addr, "POST", "/api/game/b1/pause", &auth, "").await;
    assert_eq!(r.status, 503);
    assert!(r.body.contains("no hall key") && r.body.contains("cannot tell"), "{}", r.body);

    // The board does not listen for controls at all: a stranger's result
    // goes nowhere. (Its write to the state topic after it shows the board
    // heard what the broker passed on by then.)
    let stranger = Stranger::connect(mosquitto.port, &[]).await;
    stranger.publish("tactus/club/b1/control", false, RESIGN).await;
    stranger.publish("tactus/club/b1/state", false, "{}").await;
    eventually(WAIT, "the board to notice the write to its state", async || board.refused() == 1).await;
    assert!(controls.try_recv().is_err());
}

/// The shipped broker configuration: TLS, logins and the ACL, with the
/// hall key on top.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_broker_keeps_strangers_out_and_boards_to_their_own_topics() {
    let users = [("relay", "relay-pw"), ("b1", "b1-pw"), ("b2", "b2-pw")];
    let mosquitto = Mosquitto::shipped(&users);
    let ca = mosquitto.ca_file.clone().unwrap();
    let tls = |user: Option<(&str, &str)>| {
        let mut link = HallLink::new(format!("mqtts://127.0.0.1:{}", mosquitto.port).parse().unwrap())
            .with_ca_file(&ca)
            .with_key(key());
        if let Some((user, password)) = user {
            link = link.with_login(Login::new(user, password));
        }
        link
    };

    // No login, or a wrong one: the broker says no.
    for (who, login) in [("anonymous", None), ("wrong password", Some(("b1", "guess")))] {
        let mut opts = MqttOptions::new(format!("probe-{}", rand_id()), "127.0.0.1", mosquitto.port);
        let tls = rumqttc::TlsConfiguration::Simple { ca: std::fs::read(&ca).unwrap(), alpn: None, client_auth: None };
        opts.set_transport(rumqttc::Transport::tls_with_config(tls));
        if let Some((u, p)) = login {
            opts.set_credentials(u, p);
        }
        let (_client, mut eventloop) = AsyncClient::new(opts, 8);
        let refused = tokio::time::timeout(WAIT, async {
            loop {
                match eventloop.poll().await {
                    Err(ConnectionError::ConnectionRefused(code)) => return code,
                    Err(e) => panic!("{who}: {e}"),
                    Ok(Event::Incoming(Packet::ConnAck(_))) => panic!("{who}: let in"),
                    Ok(_) => {}
                }
            }
        })
        .await
        .unwrap();
        assert!(
            matches!(refused, ConnectReturnCode::NotAuthorized | ConnectReturnCode::BadUserNamePassword),
            "{who}: {refused:?}"
        );
    }

    // The relay and board b1, each with its login, over TLS.
    let relay =
        relay(&tls(Some(users[0])), Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let board = BoardPublisher::start(&tls(Some(users[1])), "club", "b1", None, &CancellationToken::new()).unwrap();
    let game = played(74, 40, false, Profile::Realistic, Some("5400+30"));
    publish(&board, &game, 0..game.events.len());
    assert!(board.flush(WAIT).await);
    let want = expected("b1", &game).games_pgn();
    eventually(WAIT, "b1's game in the relay's feed", async || relay.hall.read(Hall::games_pgn) == want).await;

    // Board b2 (a real user of the broker) cannot write b1's topics: the
    // broker drops it. What b2 writes next on its own topic reaches the
    // relay (and is refused there, as it has no seal): so b2's first write
    // would have too, had the broker let it through.
    let mut opts = MqttOptions::new("b2-impostor", "127.0.0.1", mosquitto.port);
    let t = rumqttc::TlsConfiguration::Simple { ca: std::fs::read(&ca).unwrap(), alpn: None, client_auth: None };
    opts.set_transport(rumqttc::Transport::tls_with_config(t));
    opts.set_credentials("b2", "b2-pw");
    let (b2, mut b2_loop) = AsyncClient::new(opts, 8);
    tokio::spawn(async move { while b2_loop.poll().await.is_ok() {} });
    let before = relay.stats.refused.count();
    b2.publish("tactus/club/b1/events", QoS::AtLeastOnce, false, "not for b2 to write").await.unwrap();
    b2.publish("tactus/club/b1/state", QoS::AtLeastOnce, true, "not for b2 either").await.unwrap();
    b2.publish("tactus/club/b2/events", QoS::AtLeastOnce, false, "b2's own topic").await.unwrap();
    eventually(WAIT, "b2's own write to reach the relay", async || relay.stats.refused.count() > before).await;
    assert_eq!(relay.stats.refused.count(), before + 1, "only the write to b2's own topic got through");
    assert_eq!(relay.hall.read(Hall::games_pgn), want);
}
