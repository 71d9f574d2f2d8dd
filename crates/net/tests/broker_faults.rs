//! What a hall's broker may hold or do that no board asked for, through a
//! real mosquitto (`apt-get install mosquitto`) of each test's own: a
//! message far larger than any board sends, retained on the hall's topics;
//! boards invented by whoever can publish there; the broker going away and
//! coming back while a game goes on. Whatever happens, the relay goes on
//! serving the real boards, and nothing reconnects in a loop.

mod common;

use std::time::Duration;

use common::{Game, Mosquitto, eventually, played};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tactus_net::{BoardFeed, BoardPublisher, Broker, Hall, HallKey, HallLink, RelayOptions, Tags, relay};
use tactus_sim::Profile;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(20);

/// More than any board's state (a long game's is well under 1 MB), and more
/// than a client takes in one packet.
const FIVE_MB: usize = 5 << 20;

fn link(port: u16, key: bool) -> HallLink {
    let link = HallLink::new(Broker::new("127.0.0.1", port));
    if key { link.with_key(HallKey::from_bytes(b"the broker fault tests' hall key").unwrap()) } else { link }
}

/// Publishes messages as a stranger would, retained, and returns once the
/// broker has them all (their PUBACKs).
async fn stranger_publishes(port: u16, messages: impl IntoIterator<Item = (String, Vec<u8>)>) {
    let mut opts = MqttOptions::new(format!("stranger-{}", std::process::id()), "127.0.0.1", port);
    opts.set_max_packet_size(FIVE_MB * 2, FIVE_MB * 2);
    let (client, mut eventloop) = AsyncClient::new(opts, 16);
    let (acked_tx, mut acked) = tokio::sync::watch::channel(0usize);
    let poll = tokio::spawn(async move {
        while let Ok(event) = eventloop.poll().await {
            if let Event::Incoming(Packet::PubAck(_)) = event {
                acked_tx.send_modify(|n| *n += 1);
            }
        }
    });
    let mut sent = 0;
    for (topic, payload) in messages {
        client.publish(topic, QoS::AtLeastOnce, true, payload).await.unwrap();
        sent += 1;
    }
    tokio::time::timeout(WAIT, acked.wait_for(|n| *n == sent)).await.expect("the broker takes every message").unwrap();
    poll.abort();
}

/// A board's state as a stranger would invent it: valid, and nobody's.
fn invented(hall: &str, board: &str) -> (String, Vec<u8>) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let tags = Tags { white: Some(format!("Nobody {board}")), ..Tags::default() };
    let feed = BoardFeed { epoch: now, seq: 1, tags, ..BoardFeed::new(board) };
    (format!("tactus/{hall}/{board}/state"), serde_json::to_vec(&feed).unwrap())
}

fn publish(board: &BoardPublisher, game: &Game, events: std::ops::Range<usize>) {
    if events.start == 0 {
        board.set_tags(Tags::from(&game.header));
    }
    for ev in &game.events[events] {
        board.event(ev, None);
    }
}

fn pgn_of(board: &str, game: &Game, events: usize) -> String {
    let mut hall = Hall::new("club");
    hall.set_tags(board, Tags::from(&game.header));
    for ev in &game.events[..events] {
        hall.apply(board, ev, None);
    }
    hall.games_pgn()
}

/// 5 MB retained on a state topic of the hall, a stranger's board's and
/// the real board's own: the relay and the board connect once, and every
/// update of the real board reaches the relay.
async fn a_huge_retained_message_is_passed_over(key: bool) {
    let mosquitto = Mosquitto::start();
    let link = link(mosquitto.port, key);
    let huge = |fill: u8| {
        let mut payload = Vec::with_capacity(FIVE_MB);
        if key {
            // A seal's first line: the size is what counts, not the seal.
            payload.extend_from_slice(b"tactus-auth1 mac=");
            payload.extend_from_slice(&[b'0'; 64]);
            payload.push(b'\n');
        }
        payload.resize(FIVE_MB, fill);
        payload
    };
    let messages = [("tactus/club/ghost/state", huge(b'x')), ("tactus/club/b1/state", huge(b'y'))];
    stranger_publishes(mosquitto.port, messages.map(|(topic, payload)| (topic.to_string(), payload))).await;

    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let board = BoardPublisher::start(&link, "club", "b1", None, &CancellationToken::new()).unwrap();
    let game = played(91, 40, false, Profile::Realistic, Some("5400+30"));
    let half = game.events.len() / 2;
    publish(&board, &game, 0..half);
    assert!(board.flush(WAIT).await);
    let want = pgn_of("b1", &game, half);
    eventually(WAIT, "the first half of the game in the relay", async || relay.hall.read(Hall::games_pgn) == want)
        .await;
    publish(&board, &game, half..game.events.len());
    assert!(board.flush(WAIT).await);
    let want = pgn_of("b1", &game, game.events.len());
    eventually(WAIT, "the whole game in the relay", async || relay.hall.read(Hall::games_pgn) == want).await;

    assert_eq!(mosquitto.connections("tactus-relay-club"), 1, "the relay connected once, and stayed");
    assert_eq!(mosquitto.connections("tactus-club-b1"), 1, "the board connected once, and stayed");
    assert_eq!(relay.hall.read(|h| h.len()), 1, "only the real board");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_retained_message_without_a_hall_key_is_passed_over() {
    a_huge_retained_message_is_passed_over(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_retained_message_with_a_hall_key_is_passed_over() {
    a_huge_retained_message_is_passed_over(true).await;
}

/// Without a hall key, a relay cannot tell a board from a stranger's
/// invention: more boards invented than it holds must not keep a real
/// board out, and inventing more must not push out a board that plays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boards_invented_without_a_hall_key_do_not_keep_real_boards_out() {
    let mosquitto = Mosquitto::start();
    let link = link(mosquitto.port, false);
    let max = tactus_net::MAX_BOARDS;
    let invent = |from: usize| (from..from + max + 44).map(|i| invented("club", &format!("fake{i}")));
    stranger_publishes(mosquitto.port, invent(0)).await;
    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let heard = |n: u64| {
        let stats = relay.stats.clone();
        async move || stats.messages.load(std::sync::atomic::Ordering::Relaxed) >= n
    };
    eventually(WAIT, "the relay to hear of every invented board", heard(max as u64 + 44)).await;
    assert_eq!(relay.hall.read(|h| h.len()), max, "the hall is full");

    let board = BoardPublisher::start(&link, "club", "b1", None, &CancellationToken::new()).unwrap();
    let game = played(92, 40, false, Profile::Realistic, Some("5400+30"));
    publish(&board, &game, 0..game.events.len());
    assert!(board.flush(WAIT).await);
    let want = pgn_of("b1", &game, game.events.len());
    let real_game = || relay.hall.read(|h| h.game_pgn("b1")) == Some(want.clone());
    eventually(WAIT, "the real board's game in the relay", async || real_game()).await;

    // The stranger invents as many again: the board that played stays.
    let before = relay.stats.messages.load(std::sync::atomic::Ordering::Relaxed);
    stranger_publishes(mosquitto.port, invent(max + 44)).await;
    eventually(WAIT, "the relay to hear of the new inventions", heard(before + max as u64 + 44)).await;
    assert!(real_game(), "the real board keeps its place");
    assert_eq!(relay.hall.read(|h| h.len()), max, "and the hall holds no more than it may");
}

/// The broker killed in the middle of a game and started again: the game
/// goes on meanwhile, the board and the relay come back on their own (once
/// each, no loop), and the relay has every move; with the broker away, a
/// board shuts down without waiting for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broker_killed_and_restarted_mid_game() {
    let mosquitto = Mosquitto::start();
    let port = mosquitto.port;
    let link = link(port, true);
    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    let board = BoardPublisher::start(&link, "club", "b1", None, &CancellationToken::new()).unwrap();
    let game = played(93, 60, false, Profile::Realistic, Some("5400+30"));
    let (third, two_thirds, all) = (game.events.len() / 3, 2 * game.events.len() / 3, game.events.len());
    publish(&board, &game, 0..third);
    assert!(board.flush(WAIT).await);
    let want = pgn_of("b1", &game, third);
    eventually(WAIT, "the first third in the relay", async || relay.hall.read(Hall::games_pgn) == want).await;

    drop(mosquitto);
    eventually(WAIT, "the board to notice the broker is away", async || !board.connected()).await;
    publish(&board, &game, third..two_thirds);
    let mosquitto = Mosquitto::on(port);
    publish(&board, &game, two_thirds..all);
    eventually(WAIT, "the board to connect again", async || board.connected()).await;
    assert!(board.flush(WAIT).await);
    let want = pgn_of("b1", &game, all);
    eventually(WAIT, "the whole game in the relay", async || relay.hall.read(Hall::games_pgn) == want).await;
    assert_eq!(mosquitto.connections("tactus-relay-club"), 1, "the relay came back once");
    assert_eq!(mosquitto.connections("tactus-club-b1"), 1, "the board came back once");

    // Away again, with more changes than the client takes while it cannot
    // send: the board stops at once, whatever time it was given.
    drop(mosquitto);
    eventually(WAIT, "the board to notice the broker is away again", async || !board.connected()).await;
    for _ in 0..4 {
        publish(&board, &game, 0..all);
    }
    tokio::time::timeout(WAIT, board.shutdown(Duration::from_secs(3600)))
        .await
        .expect("a board with its broker away shuts down without waiting for it");
}
