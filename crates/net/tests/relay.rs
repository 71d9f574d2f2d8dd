//! Boards and a relay through a real mosquitto (`apt-get install mosquitto`):
//! the test starts its own on a free port of 127.0.0.1.

mod common;

use std::time::Duration;

use common::{Events, Game, Mosquitto, eventually, get, played, request};
use rumqttc::{AsyncClient, MqttOptions, QoS};
use tactus_net::{
    BoardPublisher, Broker, Control, Hall, HallKey, HallLink, HomeAway, RelayOptions, SharedHall, Tags, Team,
    TeamMatch, relay, serve,
};
use tactus_sim::Profile;
use tactus_trace::Input;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(10);

fn link(port: u16) -> HallLink {
    HallLink::new(Broker::new("127.0.0.1", port)).with_key(HallKey::from_bytes(b"the relay tests' hall key").unwrap())
}

fn school_match() -> TeamMatch {
    TeamMatch {
        name: "Schools cup".into(),
        home: Team { name: "Oakfield".into(), boards: vec!["a".into(), "b".into()] },
        away: Team { name: "Riverside".into(), boards: Vec::new() },
        white_on_odd_boards_for: HomeAway::Home,
    }
}

/// What a daemon would show for these games: the relay must show the same.
fn local(games: &[(&str, &Game)]) -> Hall {
    let mut hall = Hall::new("hall1").with_matches(vec![school_match()]);
    for (id, game) in games {
        hall.set_tags(id, Tags::from(&game.header));
        for ev in &game.events {
            hall.apply(id, ev, None);
        }
    }
    hall
}

fn publish(board: &BoardPublisher, game: &Game) {
    board.set_tags(Tags::from(&game.header));
    for ev in &game.events {
        board.event(ev, None);
    }
}

async fn same_games(relayed: &SharedHall, expected: &Hall) -> bool {
    relayed.read(|h| h.games_pgn()) == expected.games_pgn()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_boards_end_to_end_and_a_late_relay() {
    let mosquitto = Mosquitto::start();
    let broker = link(mosquitto.port);
    let early = relay(
        &broker,
        Hall::new("hall1").with_matches(vec![school_match()]),
        RelayOptions::default(),
        &CancellationToken::new(),
    )
    .unwrap();

    let (a_tx, mut a_controls) = mpsc::channel(8);
    let board_a = BoardPublisher::start(&broker, "hall1", "a", Some(a_tx), &CancellationToken::new()).unwrap();
    let board_b = BoardPublisher::start(&broker, "hall1", "b", None, &CancellationToken::new()).unwrap();
    let game_a = played(51, 60, false, Profile::Realistic, Some("5400+30"));
    let game_b = played(52, 300, true, Profile::Clean, None);
    publish(&board_a, &game_a);
    publish(&board_b, &game_b);
    assert!(board_a.flush(WAIT).await && board_b.flush(WAIT).await);
    let expected = local(&[("a", &game_a), ("b", &game_b)]);
    assert!(expected.games_pgn().contains("[WhiteTeam \"Oakfield\"]"));

    eventually(WAIT, "the relay to hold both games", async || same_games(&early.hall, &expected).await).await;
    assert_eq!(early.stats.malformed.load(std::sync::atomic::Ordering::Relaxed), 0);

    // A relay started after the boards rebuilds them from the retained states.
    let late = relay(
        &broker,
        Hall::new("hall1").with_matches(vec![school_match()]),
        RelayOptions::default(),
        &CancellationToken::new(),
    )
    .unwrap();
    eventually(WAIT, "the late relay to hold both games", async || same_games(&late.hall, &expected).await).await;
    let scores = late.hall.read(Hall::scores);
    let want = expected.scores();
    assert_eq!(scores, want, "the match score");

    // The relay serves the hall; its arbiter's controls reach board a's daemon.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = tactus_net::AppState::new(late.hall.clone(), late.controls.clone().unwrap()).with_token("tok");
    tokio::spawn(serve(listener, state, &CancellationToken::new()));
    let pgn = get(addr, "/games.pgn").await;
    assert_eq!(pgn.body, expected.games_pgn());
    let hall: serde_json::Value = serde_json::from_str(&get(addr, "/api/hall").await.body).unwrap();
    assert_eq!(hall["boards"].as_array().unwrap().len(), 2);
    assert_eq!(hall["matches"][0]["home"]["name"], "Oakfield");

    let mut events = Events::open(addr).await;
    let headers = [("Authorization", "Bearer tok")];
    let r = request(addr, "POST", "/api/game/a/pause", &headers, "").await;
    assert_eq!(r.status, 202, "{}", r.body);
    let control = tokio::time::timeout(WAIT, a_controls.recv()).await.expect("the control arrives").unwrap();
    assert_eq!(control, Control { board: "a".into(), input: Input::Pause });

    // Live: what a board says now reaches the relay's page at once.
    board_a.spoken(999_999, "Arbiter: clocks stopped");
    let (name, data) = events.next_within(WAIT).await;
    assert_eq!(
        (name.as_str(), data["board"].as_str(), data["text"].as_str()),
        ("spoken", Some("a"), Some("Arbiter: clocks stopped"))
    );

    // Messages without the hall key's seal are counted and skipped; the relay goes on.
    let mut opts = MqttOptions::new("prankster", "127.0.0.1", mosquitto.port);
    opts.set_keep_alive(Duration::from_secs(5));
    let (prank, mut prank_loop) = AsyncClient::new(opts, 8);
    tokio::spawn(async move { while prank_loop.poll().await.is_ok() {} });
    prank.publish("tactus/hall1/a/events", QoS::AtLeastOnce, false, "{not json").await.unwrap();
    prank.publish("tactus/hall1/a/state", QoS::AtLeastOnce, false, "[1, 2]").await.unwrap();
    eventually(WAIT, "the unsealed messages to be refused", async || late.stats.refused.count() == 2).await;
    assert_eq!(late.stats.malformed.load(std::sync::atomic::Ordering::Relaxed), 0);
    board_b.spoken(1, "still here");
    eventually(WAIT, "the relay to go on", async || {
        late.hall.read(|h| h.feed("b").is_some_and(|f| f.spoken.back().is_some_and(|s| s.text == "still here")))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_survives_a_broker_restart() {
    let mosquitto = Mosquitto::start();
    let port = mosquitto.port;
    let broker = link(port);
    let board = BoardPublisher::start(&broker, "hall2", "z", None, &CancellationToken::new()).unwrap();
    let game = played(61, 80, false, Profile::Realistic, Some("5400+30"));
    let (first, rest) = game.events.split_at(game.events.len() / 2);
    board.set_tags(Tags::from(&game.header));
    for ev in first {
        board.event(ev, None);
    }
    assert!(board.flush(WAIT).await);

    // The broker goes away (losing its retained messages) while play goes on.
    drop(mosquitto);
    for ev in rest {
        board.event(ev, None);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _mosquitto = Mosquitto::on(port);

    let mut expected = Hall::new("hall2");
    expected.set_tags("z", Tags::from(&game.header));
    for ev in &game.events {
        expected.apply("z", ev, None);
    }
    let relayed = relay(&broker, Hall::new("hall2"), RelayOptions::default(), &CancellationToken::new()).unwrap();
    eventually(WAIT, "the state re-published after the restart", async || same_games(&relayed.hall, &expected).await)
        .await;
    assert_eq!(board.dropped(), 0);
}
