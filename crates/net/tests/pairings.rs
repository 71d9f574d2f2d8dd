//! A round's pairing from a relay's sender to a board, through a real
//! mosquitto, and a stranger on the broker without the hall key who records
//! what goes by and plays it back: the board takes each pairing once, only
//! in the run of the board it was sealed for, never one retained or forged.
//! (Whether a pairing is newer than the board's — a later round — is the
//! daemon's to decide: `crates/tactus/src/daemon/pairing.rs`.)

mod common;

use std::time::Duration;

use common::{Mosquitto, eventually};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, Publish, QoS};
use tactus_net::{BoardPublisher, Broker, Control, HallKey, HallLink, PairingSender, SentPairing};
use tactus_trace::{Pairing, Player};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(15);
const TOPIC: &str = "tactus/club/b3/pairing";

fn link(port: u16) -> HallLink {
    HallLink::new(Broker::new("127.0.0.1", port))
        .with_key(HallKey::from_bytes(b"the hall key of the club, 32 byte").unwrap())
}

fn pairing(round: u32) -> Pairing {
    let player =
        |name: &str| Player { name: name.into(), title: None, elo: Some(2400), fide_id: None, federation: None };
    Pairing {
        tournament: Some("Hall Open".into()),
        round,
        board: 3,
        white: player("Kowalczyk, Irina"),
        black: player("Volkov, Dmitri"),
    }
}

/// A board `b3` taking controls, so pairings too; and its pairings.
fn board(link: &HallLink) -> (BoardPublisher, mpsc::Receiver<SentPairing>, mpsc::Receiver<Control>) {
    let (tx, controls) = mpsc::channel(8);
    let board = BoardPublisher::start(link, "club", "b3", Some(tx), &CancellationToken::new()).unwrap();
    let pairings = board.pairings().expect("pairings with the hall key");
    assert!(board.pairings().is_none(), "taken once");
    (board, pairings, controls)
}

/// Sends `pairing` to the board's run until it arrives (the board
/// subscribes once it is connected, a little after). Each wait is twice the
/// last, so that on a slow machine a copy that was only late is not sent
/// again and again; a late copy of an earlier pairing is passed over.
async fn deliver(
    sender: &PairingSender,
    board: &BoardPublisher,
    rx: &mut mpsc::Receiver<SentPairing>,
    p: &Pairing,
) -> SentPairing {
    eventually(WAIT, "the board connected", async || board.connected()).await;
    let mut wait = Duration::from_millis(300);
    loop {
        assert!(sender.send("b3", board.feed().epoch, p));
        let end = tokio::time::Instant::now() + wait;
        while let Ok(Some(sent)) = tokio::time::timeout_at(end, rx.recv()).await {
            if sent.pairing == *p {
                return sent;
            }
        }
        wait = (wait * 2).min(Duration::from_secs(5));
    }
}

/// Someone on the broker without the key, hearing the board's pairing topic.
async fn stranger(port: u16) -> (AsyncClient, mpsc::UnboundedReceiver<Publish>) {
    let opts = MqttOptions::new("a-stranger", "127.0.0.1", port);
    let (client, mut eventloop) = AsyncClient::new(opts, 64);
    let (tx, heard) = mpsc::unbounded_channel();
    let (acked, mut subscribed) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(event) = eventloop.poll().await {
            match event {
                Event::Incoming(Packet::Publish(p)) => drop(tx.send(p)),
                Event::Incoming(Packet::SubAck(_)) => drop(acked.send(())),
                _ => {}
            }
        }
    });
    client.subscribe(TOPIC, QoS::AtLeastOnce).await.unwrap();
    tokio::time::timeout(WAIT, subscribed.recv()).await.unwrap();
    (client, heard)
}

/// Nothing more reaches the board's daemon for a while, and the board
/// refused `refused` more messages.
async fn refused(board: &BoardPublisher, rx: &mut mpsc::Receiver<SentPairing>, before: u64, more: u64) {
    eventually(WAIT, "the refusals", async || board.refused() >= before + more).await;
    assert_eq!(board.refused(), before + more);
    assert!(tokio::time::timeout(Duration::from_millis(300), rx.recv()).await.is_err(), "nothing taken");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_takes_its_pairing_once_and_a_stranger_replays_nothing() {
    let mosquitto = Mosquitto::start();
    let link = link(mosquitto.port);
    let stop = CancellationToken::new();
    let sender = PairingSender::start(&link, "club", &stop).unwrap();
    let (board, mut pairings, _controls) = board(&link);
    let (stranger, mut heard) = stranger(mosquitto.port).await;

    let first = deliver(&sender, &board, &mut pairings, &pairing(1)).await;
    assert_eq!(first.pairing, pairing(1));
    let again = deliver(&sender, &board, &mut pairings, &pairing(2)).await;
    assert_eq!(again.pairing, pairing(2));
    assert!(again.n > first.n, "numbered by the sender's clock, only growing");
    assert_eq!(again.from, first.from);

    // The stranger heard the round-1 pairing go by, sealed, and plays it back.
    let recorded = loop {
        let p = tokio::time::timeout(WAIT, heard.recv()).await.unwrap().unwrap();
        if String::from_utf8_lossy(&p.payload).contains("\"round\":1") {
            break p;
        }
    };
    assert!(recorded.payload.starts_with(b"tactus-auth1 epoch="), "sealed for the board's run");
    let before = board.refused();
    stranger.publish(TOPIC, QoS::AtLeastOnce, false, recorded.payload.clone()).await.unwrap();
    refused(&board, &mut pairings, before, 1).await;
    // Retained, or forged without the key, or not sealed at all.
    stranger.publish(TOPIC, QoS::AtLeastOnce, true, recorded.payload.clone()).await.unwrap();
    let forged = String::from_utf8_lossy(&recorded.payload).replace("Kowalczyk", "Mallory").into_bytes();
    stranger.publish(TOPIC, QoS::AtLeastOnce, false, forged).await.unwrap();
    stranger.publish(TOPIC, QoS::AtLeastOnce, false, serde_json::to_vec(&pairing(9)).unwrap()).await.unwrap();
    refused(&board, &mut pairings, before + 1, 3).await;
    stranger.publish(TOPIC, QoS::AtLeastOnce, true, Vec::new()).await.unwrap();

    // The board restarts: a new run. What was sealed for the last one is
    // refused; its relay's next sending is taken.
    board.shutdown(Duration::from_secs(2)).await;
    let (board, mut pairings, _controls) = self::board(&link);
    eventually(WAIT, "the board connected again", async || board.connected()).await;
    let before = board.refused();
    let mut refusals = 0;
    // Until the board's subscription is in place, a play-back may go unheard.
    while board.refused() == before {
        stranger.publish(TOPIC, QoS::AtLeastOnce, false, recorded.payload.clone()).await.unwrap();
        refusals += 1;
        assert!(refusals < 1200, "the board refuses a pairing sealed for its last run");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(pairings.try_recv().is_err());
    let taken = deliver(&sender, &board, &mut pairings, &pairing(2)).await;
    assert_eq!(taken.pairing, pairing(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_hall_key_nothing_is_sent_or_taken() {
    let mosquitto = Mosquitto::start();
    let open = HallLink::new(Broker::new("127.0.0.1", mosquitto.port));
    assert!(PairingSender::start(&open, "club", &CancellationToken::new()).is_err());
    let (tx, _controls) = mpsc::channel(8);
    let board = BoardPublisher::start(&open, "club", "b3", Some(tx), &CancellationToken::new()).unwrap();
    assert!(board.pairings().is_none());
}
