//! One stop for everything net starts, through a real mosquitto of each
//! test's own: a board and a relay stop on their owner's token or on their
//! own `shutdown`, hand the broker what they hold, say goodbye (MQTT's
//! DISCONNECT, which the broker logs as such), and are waited for; the
//! server stops on its owner's token.

mod common;

use std::time::Duration;

use common::{Mosquitto, eventually, get, played};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tactus_net::{AppState, BoardFeed, BoardPublisher, Broker, Hall, HallLink, RelayOptions, Tags, relay, serve};
use tactus_sim::Profile;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(20);

/// The state the broker keeps retained for a board, as a new subscriber gets it.
async fn retained(port: u16, board: &str) -> BoardFeed {
    let (client, mut eventloop) = AsyncClient::new(MqttOptions::new("reader", "127.0.0.1", port), 16);
    client.subscribe(format!("tactus/club/{board}/state"), QoS::AtLeastOnce).await.unwrap();
    let feed = tokio::time::timeout(WAIT, async {
        loop {
            if let Event::Incoming(Packet::Publish(p)) = eventloop.poll().await.expect("the broker is there") {
                assert!(p.retain, "the state is retained");
                return serde_json::from_slice::<BoardFeed>(&p.payload).expect("a board's state");
            }
        }
    })
    .await
    .expect("a retained state");
    let _ = client.try_disconnect();
    feed
}

/// Says how a client left, once the broker has logged it.
async fn departure(mosquitto: &Mosquitto, client: &str) -> (usize, usize) {
    eventually(WAIT, &format!("the broker to see {client} leave"), async || mosquitto.departures(client) != (0, 0))
        .await;
    mosquitto.departures(client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_and_a_relay_that_shut_down_hand_over_what_they_hold_and_say_goodbye() {
    let mosquitto = Mosquitto::start();
    let link = HallLink::new(Broker::new("127.0.0.1", mosquitto.port));
    let owner = CancellationToken::new();
    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &owner).unwrap();
    let board = BoardPublisher::start(&link, "club", "b1", None, &owner).unwrap();
    eventually(WAIT, "the board to connect", async || board.connected()).await;
    let game = played(95, 60, false, Profile::Realistic, Some("5400+30"));
    board.set_tags(Tags::from(&game.header));
    for ev in &game.events {
        board.event(ev, None);
    }
    // No flush: shutting down hands over what the board still holds.
    let last = board.feed().seq;
    tokio::time::timeout(WAIT, board.shutdown(WAIT)).await.expect("the board stops");
    assert_eq!(departure(&mosquitto, "tactus-club-b1").await, (1, 0), "the board said goodbye");
    assert_eq!(retained(mosquitto.port, "b1").await.seq, last, "the broker holds the board's last state");
    board.spoken(1, "too late");
    assert!(!board.flush(WAIT).await, "a board that stopped hands nothing more, and says so at once");

    eventually(WAIT, "the relay to have the game", async || {
        relay.hall.read(|h| h.feed("b1").map(|f| f.seq)) == Some(last)
    })
    .await;
    tokio::time::timeout(WAIT, relay.shutdown()).await.expect("the relay stops");
    assert_eq!(departure(&mosquitto, "tactus-relay-club").await, (1, 0), "the relay said goodbye");
    assert!(!owner.is_cancelled(), "each stopped itself, not its owner");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owners_token_stops_a_board_a_relay_and_the_server() {
    let mosquitto = Mosquitto::start();
    let link = HallLink::new(Broker::new("127.0.0.1", mosquitto.port));
    let owner = CancellationToken::new();
    let relay = relay(&link, Hall::new("club"), RelayOptions::default(), &owner).unwrap();
    let board = BoardPublisher::start(&link, "club", "b1", None, &owner).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(serve(listener, AppState::read_only(relay.hall.clone(), "no actions here"), &owner));
    let game = played(96, 40, false, Profile::Realistic, Some("5400+30"));
    board.set_tags(Tags::from(&game.header));
    for ev in &game.events {
        board.event(ev, None);
    }
    let last = board.feed().seq;
    eventually(WAIT, "the relay to serve the game", async || {
        get(addr, "/api/game/b1").await.body.contains(&format!("\"seq\":{last}"))
    })
    .await;

    owner.cancel();
    tokio::time::timeout(WAIT, async {
        board.stopped().await;
        relay.stopped().await;
        server.await.unwrap().unwrap();
    })
    .await
    .expect("all three stop");
    assert_eq!(departure(&mosquitto, "tactus-club-b1").await, (1, 0), "the board said goodbye");
    assert_eq!(departure(&mosquitto, "tactus-relay-club").await, (1, 0), "the relay said goodbye");
    assert_eq!(retained(mosquitto.port, "b1").await.seq, last);
    assert!(tokio::net::TcpStream::connect(addr).await.is_err(), "the server no longer listens");
}

/// A broker that takes a connection (MQTT 5.0, 3.2: CONNACK, success, no
/// properties) and then says nothing and never closes it: it acknowledges
/// no publication and ignores a DISCONNECT. The kinds of the packets the
/// client sent (the fixed header's upper four bits, 2.1.2) come back on the
/// channel as they arrive.
async fn silent_broker() -> (u16, tokio::sync::mpsc::UnboundedReceiver<u8>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut buffer = Vec::new();
        let mut connected = false;
        loop {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            buffer.extend_from_slice(&chunk[..n]);
            // Whole packets: a byte of kind and flags, the remaining length
            // as a variable byte integer (1.5.5), then that many bytes.
            while let Some((kind, len)) = packet(&buffer) {
                buffer.drain(..len);
                if kind == 1 && !connected {
                    stream.write_all(&[0x20, 0x03, 0x00, 0x00, 0x00]).await.unwrap();
                    connected = true;
                }
                let _ = tx.send(kind);
            }
        }
    });
    (port, rx)
}

/// The kind and whole length of the first packet in `bytes`, once it is all there.
fn packet(bytes: &[u8]) -> Option<(u8, usize)> {
    let mut remaining = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(1).take(4) {
        remaining |= usize::from(b & 0x7f) << (7 * (i - 1));
        if b & 0x80 == 0 {
            let len = i + 1 + remaining;
            return (bytes.len() >= len).then_some((bytes[0] >> 4, len));
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_says_goodbye_to_a_broker_that_never_answers_and_stops_in_its_time() {
    let (port, mut kinds) = silent_broker().await;
    let link = HallLink::new(Broker::new("127.0.0.1", port));
    let board = BoardPublisher::start(&link, "club", "b1", None, &CancellationToken::new()).unwrap();
    eventually(WAIT, "the board to connect", async || board.connected()).await;
    board.set_tags(Tags { white: Some("Ann".into()), ..Tags::default() });
    // The broker never acknowledges nor closes: only the bound ends the stop.
    // Waited for far longer than its 2 s (time enough, on a loaded machine,
    // to write the goodbye), and less than the client's own keep-alive would
    // take to give up on the broker (twice 10 s).
    let bound = Duration::from_secs(10);
    tokio::time::timeout(bound, board.shutdown(Duration::from_secs(2))).await.expect("the board stops in its time");
    let mut said = Vec::new();
    let goodbye = tokio::time::timeout(WAIT, async {
        while let Some(kind) = kinds.recv().await {
            said.push(kind);
            if kind == 14 {
                return;
            }
        }
    })
    .await;
    assert!(goodbye.is_ok(), "the board said goodbye (DISCONNECT): {said:?}");
    assert_eq!(said.first(), Some(&1), "CONNECT first: {said:?}");
    assert!(said.contains(&3), "the board published before it: {said:?}");
}
