//! The Board API against the test server (written from Lichess's API
//! reference): whole games on each side, a dropped and a silent stream, a
//! 429, offers, a refused move, aborts, challenges, a seek, a restart.

mod common;

use std::time::Duration;

use common::{BOARD_TOKEN, Server, USER};
use serde_json::json;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position};
use tactus_lichess::api::{ChallengeClock, ChallengeSpec, DeclineReason, EndRequest, SeekSpec};
use tactus_lichess::follower::{Action, EndReason, OfferKind, Refusal};
use tactus_lichess::http::Error;
use tactus_lichess::play::{Command, Failure, GameCommand, Play, PlayOptions, Resume, TokenFault, TokenState, Update};
use tactus_lichess::retry::Link;
use tactus_lichess::wire::{Declined, Side, Status};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const PAUSE: Duration = Duration::from_secs(2);
/// Ten keep-alives' time (the server sends one each 0.5 s): a server or a
/// client slowed by a loaded machine, or by qemu, is not taken for silent.
const SILENCE: Duration = Duration::from_secs(5);
/// Only for failure: every wait ends on an update long before.
const LIMIT: Duration = Duration::from_secs(90);

struct Owner {
    play: Play,
    updates: mpsc::Receiver<Update>,
    seen: Vec<Update>,
}

impl Owner {
    fn start(server: &Server, options: PlayOptions) -> Owner {
        let (play, updates) =
            Play::start(server.client(BOARD_TOKEN, PAUSE, SILENCE), options, &CancellationToken::new());
        Owner { play, updates, seen: Vec::new() }
    }

    async fn until(&mut self, what: &str, f: impl Fn(&Update) -> bool) -> Update {
        let wait = async {
            loop {
                let u = self.updates.recv().await.expect("the actor runs");
                self.seen.push(u.clone());
                if f(&u) {
                    return u;
                }
            }
        };
        match tokio::time::timeout(LIMIT, wait).await {
            Ok(u) => u,
            Err(_) => panic!("no {what} came; seen: {:#?}", self.seen),
        }
    }

    async fn action(&mut self, what: &str, f: impl Fn(&Action) -> bool) -> Action {
        match self.until(what, |u| matches!(u, Update::Game { action, .. } if f(action))).await {
            Update::Game { action, .. } => action,
            _ => unreachable!(),
        }
    }

    async fn started(&mut self) -> (String, Color) {
        match self.until("a game", |u| matches!(u, Update::Game { action: Action::Started(_), .. })).await {
            Update::Game { id, action: Action::Started(s) } => (id, s.color),
            _ => unreachable!(),
        }
    }

    fn game(&self, id: &str, what: GameCommand) {
        self.play.command(Command::Game { id: id.into(), what }).unwrap();
    }

    fn our_move(&self, id: &str, uci: &str) {
        self.game(id, GameCommand::Move { uci: uci.into(), offering_draw: false });
    }

    async fn confirmed(&mut self, ply: u32) {
        self.action(&format!("ply {ply} confirmed"), |a| matches!(a, Action::Confirmed { ply: p, .. } if *p == ply))
            .await;
    }
}

async fn new_game(server: &Server, our: &str) -> String {
    server.post("/_test/game", json!({"our_color": our, "opponent": "Rival"})).await["id"].as_str().unwrap().to_string()
}

/// A game on the server with the board playing `our` side, and the board's
/// owner once the game has started.
async fn playing(our: &str) -> (Server, String, Owner) {
    let server = Server::start(0.5);
    let id = new_game(&server, our).await;
    let mut owner = Owner::start(&server, PlayOptions::default());
    owner.started().await;
    (server, id, owner)
}

async fn opponent(server: &Server, id: &str, what: &str) -> serde_json::Value {
    server.post(&format!("/_test/game/{id}/{what}"), json!({})).await
}

async fn server_moves(server: &Server, id: &str) -> Vec<String> {
    let g = server.get(&format!("/_test/game/{id}")).await;
    g["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect()
}

/// A random game (castling, promotions, en passant come often) played to
/// its end: our moves through the actor, the opponent's through the server.
async fn whole_game(our: Color, seed: u64) {
    let server = Server::start(0.5);
    let id = new_game(&server, if our == Color::White { "white" } else { "black" }).await;
    let mut owner = Owner::start(&server, PlayOptions::default());
    let (started, color) = owner.started().await;
    assert_eq!((started.as_str(), color), (id.as_str(), our));
    let spec = tactus_sim::random_game(seed, 120, false);
    let mut pos = Chess::default();
    let mut played = Vec::new();
    let mut ended = None;
    for (i, &m) in spec.moves.iter().enumerate() {
        let ply = i as u32 + 1;
        let uci = UciMove::from_standard(m).to_string();
        if pos.turn() == our {
            owner.our_move(&id, &uci);
            owner.confirmed(ply).await;
        } else {
            opponent(&server, &id, &format!("move/{uci}")).await;
            let a = owner.action("the opponent's move", |a| matches!(a, Action::Move(_))).await;
            let Action::Move(sm) = a else { unreachable!() };
            let san = SanPlus::from_move(pos.clone(), m).to_string();
            assert_eq!(
                (sm.ply, sm.side, sm.uci.as_str(), sm.san.as_str(), sm.ours),
                (ply, !our, uci.as_str(), san.as_str(), false)
            );
        }
        pos.play_unchecked(m);
        played.push(uci);
        if pos.is_game_over() || pos.halfmoves() >= 150 {
            ended = Some(owner.action("the end", |a| matches!(a, Action::Ended(_))).await);
            break;
        }
    }
    if ended.is_none() {
        owner.game(&id, GameCommand::End(EndRequest::Resign));
        let Action::Ended(e) = owner.action("the end", |a| matches!(a, Action::Ended(_))).await else { unreachable!() };
        assert_eq!((e.reason(), e.winner), (EndReason::Resignation, Some(!our)));
    }
    assert_eq!(server_moves(&server, &id).await, played, "the server's moves are the game played");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_as_white() {
    whole_game(Color::White, 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_as_black() {
    whole_game(Color::Black, 8).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_to_mate_ends_with_the_result() {
    let (server, id, mut owner) = playing("black").await;
    for (i, m) in ["f2f3", "e7e5", "g2g4", "d8h4"].iter().enumerate() {
        let ply = i as u32 + 1;
        if ply % 2 == 1 {
            opponent(&server, &id, &format!("move/{m}")).await;
            owner.action("the opponent's move", |a| matches!(a, Action::Move(sm) if sm.ply == ply)).await;
        } else if ply < 4 {
            owner.our_move(&id, m);
            owner.confirmed(ply).await;
        } else {
            owner.our_move(&id, m);
        }
    }
    let Action::Ended(e) = owner.action("the end", |a| matches!(a, Action::Ended(_))).await else { unreachable!() };
    assert_eq!(
        (e.status, e.winner, e.result(), e.reason()),
        (Status::Mate, Some(Color::Black), "0-1", EndReason::Checkmate)
    );
    let moves =
        owner.seen.iter().filter(|u| matches!(u, Update::Game { action: Action::Move(m), .. } if m.san == "g4"));
    assert_eq!(moves.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_or_silent_game_stream_is_reopened_and_the_game_goes_on() {
    let (server, id, mut owner) = playing("white").await;
    owner.our_move(&id, "e2e4");
    owner.confirmed(1).await;

    // Dropped without an end: reopened with back-off, said once, and back.
    opponent(&server, &id, "drop").await;
    owner.until("the link lost", |u| matches!(u, Update::Link(Link::Lost { .. }))).await;
    owner.until("the link back", |u| matches!(u, Update::Link(Link::Restored))).await;
    opponent(&server, &id, "move/e7e5").await;
    owner.action("e5", |a| matches!(a, Action::Move(m) if m.san == "e5")).await;

    // Silent (no keep-alive) for longer than the client waits: reopened.
    let streams = |log: &[serde_json::Value]| {
        log.iter().filter(|e| e["path"].as_str().unwrap().contains("/game/stream/")).count()
    };
    let before = streams(&server.log().await);
    opponent(&server, &id, "silence").await;
    server.wait_requests("GET /api/board/game/stream/", before + 1).await;
    owner.our_move(&id, "g1f3");
    owner.confirmed(3).await;
    opponent(&server, &id, "move/b8c6").await;
    owner.action("Nc6", |a| matches!(a, Action::Move(m) if m.san == "Nc6")).await;
    let lost = owner.seen.iter().filter(|u| matches!(u, Update::Link(Link::Lost { .. }))).count();
    let back = owner.seen.iter().filter(|u| matches!(u, Update::Link(Link::Restored))).count();
    assert!(lost <= 2 && back == lost, "each loss said once and its end once: {lost} lost, {back} back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_429_no_request_reaches_lichess_for_the_pause() {
    let (server, id, mut owner) = playing("white").await;
    server.post("/_test/fault", json!({"path": "/move/", "status": 429, "body": {"error": "Too many requests"}})).await;
    owner.our_move(&id, "d2d4");
    let limited = owner.until("a 429 said", |u| matches!(u, Update::RateLimited { .. })).await;
    assert_eq!(limited, Update::RateLimited { for_s: PAUSE.as_secs() });
    owner.confirmed(1).await;
    let log = server.log().await;
    let limited = log.iter().find(|e| e["status"] == 429).expect("the 429 is logged")["t"].as_f64().unwrap();
    let after: Vec<f64> = log.iter().map(|e| e["t"].as_f64().unwrap()).filter(|&t| t > limited).collect();
    assert!(!after.is_empty(), "the move went again");
    let first = after.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(first - limited >= PAUSE.as_secs_f64() - 0.01, "a request {:.3} s after the 429", first - limited);
    // Sent twice on the wire (the 429 took nothing), once on the board.
    let posts = log.iter().filter(|e| e["path"].as_str().unwrap().ends_with("/move/d2d4")).count();
    assert_eq!(posts, 2);
    assert_eq!(server_moves(&server, &id).await, ["d2d4"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_and_takeback_offers_are_said_and_answered() {
    let (server, id, mut owner) = playing("white").await;
    owner.our_move(&id, "e2e4");
    owner.confirmed(1).await;
    opponent(&server, &id, "move/c7c5").await;
    owner.action("c5", |a| matches!(a, Action::Move(_))).await;

    // The opponent offers a draw; we decline.
    opponent(&server, &id, "offer/draw").await;
    let offer = |kind, by, open| move |a: &Action| *a == Action::Offer { kind, by, open };
    owner.action("the draw offer", offer(OfferKind::Draw, Color::Black, true)).await;
    owner.game(&id, GameCommand::Draw(false));
    owner.action("the offer gone", offer(OfferKind::Draw, Color::Black, false)).await;

    // We move; the opponent asks for a takeback; we accept: the board goes back.
    owner.our_move(&id, "g1f3");
    owner.confirmed(3).await;
    opponent(&server, &id, "offer/takeback").await;
    owner.action("the takeback offer", offer(OfferKind::Takeback, Color::Black, true)).await;
    owner.game(&id, GameCommand::Takeback(true));
    owner.action("taken back", |a| *a == Action::TakenBack { ply: 2 }).await;
    assert_eq!(server_moves(&server, &id).await, ["e2e4"]);

    // The opponent plays again; we offer a draw; it is accepted.
    opponent(&server, &id, "move/e7e5").await;
    owner.action("e5", |a| matches!(a, Action::Move(m) if m.san == "e5")).await;
    owner.game(&id, GameCommand::Draw(true));
    owner.action("our offer", offer(OfferKind::Draw, Color::White, true)).await;
    opponent(&server, &id, "answer/draw/yes").await;
    let Action::Ended(e) = owner.action("the end", |a| matches!(a, Action::Ended(_))).await else { unreachable!() };
    assert_eq!((e.result(), e.reason()), ("1/2-1/2", EndReason::Draw));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_move_is_said_and_the_board_goes_back() {
    let (server, id, mut owner) = playing("white").await;
    server
        .post(
            "/_test/fault",
            json!({"path": "/move/e2e4", "status": 400, "body": {"error": "Not your turn, or game already over"}}),
        )
        .await;
    owner.our_move(&id, "e2e4");
    let a = owner.action("the refusal", |a| matches!(a, Action::Refused { .. })).await;
    assert_eq!(
        a,
        Action::Refused {
            ply: 1,
            uci: "e2e4".into(),
            why: Refusal::Server("Not your turn, or game already over".into())
        }
    );
    assert!(server_moves(&server, &id).await.is_empty());
    // The board, put back, makes its move again.
    owner.our_move(&id, "e2e4");
    owner.confirmed(1).await;
    assert_eq!(server_moves(&server, &id).await, ["e2e4"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_aborted_by_us_and_by_the_opponent() {
    let (server, id, mut owner) = playing("white").await;
    owner.game(&id, GameCommand::End(EndRequest::Abort));
    let Action::Ended(e) = owner.action("the end", |a| matches!(a, Action::Ended(_))).await else { unreachable!() };
    assert_eq!((e.status, e.result(), e.reason()), (Status::Aborted, "*", EndReason::Aborted));

    // The next game starts on the same actor; the opponent aborts it.
    let id2 = new_game(&server, "black").await;
    let (started, _) = owner.started().await;
    assert_eq!(started, id2);
    opponent(&server, &id2, "abort").await;
    let Action::Ended(e) = owner.action("the end", |a| matches!(a, Action::Ended(_))).await else { unreachable!() };
    assert_eq!(e.status, Status::Aborted);

    // Too late to abort: the server says so, and we hear it.
    let id3 = new_game(&server, "white").await;
    owner.started().await;
    owner.our_move(&id3, "e2e4");
    owner.confirmed(1).await;
    opponent(&server, &id3, "move/e7e5").await;
    owner.action("e5", |a| matches!(a, Action::Move(_))).await;
    owner.game(&id3, GameCommand::End(EndRequest::Abort));
    let Update::Failed { why, .. } = owner.until("the refusal", |u| matches!(u, Update::Failed { .. })).await else {
        unreachable!()
    };
    assert!(matches!(why, Failure::Lichess(Error::Refused { status: 400, .. })), "{why:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_start_from_challenges_ours_and_theirs() {
    let server = Server::start(0.5);
    let options = PlayOptions { accept_from: vec!["Friend".into()], ..PlayOptions::default() };
    let mut owner = Owner::start(&server, options);
    let spec = ChallengeSpec {
        clock: ChallengeClock::RealTime { limit_s: 1800, increment_s: 10 },
        rated: false,
        color: Some(Side::Black),
    };
    // Ours, accepted: the game's id is the challenge's.
    owner.play.command(Command::Challenge { username: "Rival".into(), spec: spec.clone() }).unwrap();
    let Update::Challenge { challenge, incoming } =
        owner.until("our challenge", |u| matches!(u, Update::Challenge { .. })).await
    else {
        unreachable!()
    };
    assert!(!incoming);
    let Update::Game { id, action: Action::Started(s) } =
        owner.until("the game", |u| matches!(u, Update::Game { action: Action::Started(_), .. })).await
    else {
        unreachable!()
    };
    assert_eq!(id, challenge.id);
    assert_eq!(s.color, Color::Black);
    assert_eq!(s.clock.map(|c| (c.initial, c.increment)), Some((1_800_000, 10_000)));
    owner.game(&id, GameCommand::End(EndRequest::Resign));
    owner.action("the end", |a| matches!(a, Action::Ended(_))).await;

    // Theirs, from a listed player: accepted at once.
    let cid = server
        .post("/_test/challenge", json!({"from": "Friend", "limit": 900, "increment": 0, "color": "white"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let Update::Challenge { challenge, incoming } =
        owner.until("their challenge", |u| matches!(u, Update::Challenge { incoming: true, .. })).await
    else {
        unreachable!()
    };
    assert_eq!((challenge.id.as_str(), challenge.challenger.name.as_str()), (cid.as_str(), "Friend"));
    assert!(incoming);
    let (id, color) = owner.started().await;
    assert_eq!((id.as_str(), color), (cid.as_str(), Color::Black));
    owner.game(&id, GameCommand::End(EndRequest::Abort));
    owner.action("the end", |a| matches!(a, Action::Ended(_))).await;

    // Ours, declined: said with the reason.
    server.post("/_test/challenge-policy", json!({"accept": false})).await;
    owner.play.command(Command::Challenge { username: "Rival".into(), spec }).unwrap();
    let Update::ChallengeGone { declined, .. } =
        owner.until("the decline", |u| matches!(u, Update::ChallengeGone { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(declined, Some(Declined::For(DeclineReason::Generic)), "the reason's key, read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_starts_a_game() {
    let server = Server::start(0.5);
    let mut owner = Owner::start(&server, PlayOptions::default());
    owner.play.command(Command::Seek(SeekSpec { minutes: 30, increment_s: 20, rated: false })).unwrap();
    server.get("/_test/wait?what=seek&count=1&timeout=60").await;
    let id = server.post("/_test/seek/pair", json!({"our_color": "white"})).await["id"].as_str().unwrap().to_string();
    let (started, _) = owner.started().await;
    assert_eq!(started, id);
    if !owner.seen.iter().any(|u| matches!(u, Update::SeekEnded { .. })) {
        owner.until("the seek's end", |u| matches!(u, Update::SeekEnded { .. })).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opponent_gone_and_the_win_claimed() {
    let (server, id, mut owner) = playing("white").await;
    owner.our_move(&id, "e2e4");
    owner.confirmed(1).await;
    server.post(&format!("/_test/game/{id}/gone"), json!({"gone": true, "claimWinInSeconds": 0})).await;
    let gone = owner.action("the opponent gone", |a| matches!(a, Action::OpponentGone { .. })).await;
    assert_eq!(gone, Action::OpponentGone { gone: true, claim_win_in_s: Some(0) });
    owner.game(&id, GameCommand::End(EndRequest::ClaimVictory));
    let Action::Ended(e) = owner.action("the end", |a| matches!(a, Action::Ended(_))).await else { unreachable!() };
    assert_eq!((e.result(), e.reason()), ("1-0", EndReason::OpponentLeft));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_mid_game_never_sends_a_move_twice() {
    let (server, id, mut owner) = playing("white").await;
    owner.our_move(&id, "e2e4");
    owner.confirmed(1).await;
    opponent(&server, &id, "move/e7e5").await;
    owner.action("e5", |a| matches!(a, Action::Move(_))).await;
    // Our move reaches the server, and the daemon dies before it hears.
    owner.our_move(&id, "g1f3");
    server.wait_requests("POST .*/move/g1f3", 1).await;
    drop(owner);

    // Restarted with its journal: the server has the move; nothing is sent.
    let journal = vec!["e2e4".to_string(), "e7e5".into(), "g1f3".into()];
    let resume = Resume { game_id: id.clone(), moves: journal.clone() };
    let mut owner = Owner::start(&server, PlayOptions { resume: Some(resume), ..PlayOptions::default() });
    owner.started().await;
    opponent(&server, &id, "move/b8c6").await;
    owner.action("Nc6", |a| matches!(a, Action::Move(m) if m.san == "Nc6")).await;
    // The board completes a move and the daemon dies before sending it.
    drop(owner);

    // Restarted: the journal's last move, ours and not on the server, goes once.
    let mut journal = journal;
    journal.extend(["b8c6".to_string(), "f1b5".into()]);
    let resume = Resume { game_id: id.clone(), moves: journal.clone() };
    let mut owner = Owner::start(&server, PlayOptions { resume: Some(resume), ..PlayOptions::default() });
    owner.started().await;
    owner.confirmed(5).await;
    assert_eq!(server_moves(&server, &id).await, journal);
    let log = server.log().await;
    for m in ["e2e4", "g1f3", "f1b5"] {
        let posts = log.iter().filter(|e| e["path"].as_str().unwrap().ends_with(&format!("/move/{m}"))).count();
        assert_eq!(posts, 1, "{m} sent once");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_token_is_said_once_while_it_is_retried_and_for_good_as_lichess_says() {
    let server = Server::start(0.5);
    let (play, mut updates) =
        Play::start(server.client("lip_unknown", PAUSE, SILENCE), PlayOptions::default(), &CancellationToken::new());
    // Who the token plays as is asked first, again and again.
    server.wait_requests("GET /api/account", 3).await;
    drop(play);
    let mut seen = Vec::new();
    while let Some(u) = updates.recv().await {
        seen.push(u);
    }
    let [Update::Token(TokenState::Refused { why }), Update::Token(TokenState::ForGood(TokenFault::Unknown))] =
        &seen[..]
    else {
        panic!("refused once, and for good once Lichess's token check says so: {seen:?}")
    };
    assert!(why.contains("401") && !why.contains("lip_unknown"), "{why}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_and_the_tokens_scopes() {
    let server = Server::start(0.5);
    let client = server.client(BOARD_TOKEN, PAUSE, SILENCE);
    assert_eq!(client.account().await.unwrap().username, USER);
    let check = client.token_check().await.unwrap().expect("a token the server knows");
    assert!(check.has("board:play") && !check.has("study:write"));
    let stranger = server.client("lip_unknown", PAUSE, SILENCE);
    assert!(stranger.token_check().await.unwrap().is_none());
    let e = stranger.account().await.unwrap_err();
    assert!(e.to_string().contains("401"), "{e}");
    // A study token cannot play.
    let study = server.client(common::STUDY_TOKEN, PAUSE, SILENCE);
    let e = study.board_move("Gm000001", "e2e4", false).await.unwrap_err();
    assert!(e.to_string().contains("403"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_event_stream_is_reopened_and_said_back_without_any_event() {
    let server = Server::start(0.5);
    let mut owner = Owner::start(&server, PlayOptions::default());
    server.wait_requests("GET /api/stream/event", 1).await;
    server.post("/_test/events/drop", json!({})).await;
    owner.until("the link lost", |u| matches!(u, Update::Link(Link::Lost { .. }))).await;
    server.wait_requests("GET /api/stream/event", 2).await;
    owner.until("the link back", |u| matches!(u, Update::Link(Link::Restored))).await;
    // The reopened stream carries what comes next.
    let id = new_game(&server, "white").await;
    assert_eq!(owner.started().await.0, id);
}

/// The server's log entries of the POSTs of `uci` in game `id`.
async fn posts_of(server: &Server, id: &str, uci: &str) -> Vec<serde_json::Value> {
    let path = format!("/api/board/game/{id}/move/{uci}");
    server.log().await.into_iter().filter(|e| e["method"] == "POST" && e["path"] == path.as_str()).collect()
}

/// Issue 32: stopping sends the move queued just before the stop and
/// waits for Lichess's answer (held a while by the server); nobody reads
/// the updates meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_sends_the_last_move_and_waits_for_its_answer() {
    let (server, id, owner) = playing("white").await;
    server.post("/_test/fault", json!({"method": "POST", "path": "/move/e2e4$", "delay": 0.3})).await;
    let Owner { play, updates, .. } = owner;
    drop(updates);
    play.command(Command::Game {
        id: id.clone(),
        what: GameCommand::Move { uci: "e2e4".into(), offering_draw: false },
    })
    .unwrap();
    play.stop(std::time::Instant::now() + Duration::from_secs(60)).await;
    let posts = posts_of(&server, &id, "e2e4").await;
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert_eq!((&posts[0]["status"], &posts[0]["hung_up"]), (&json!(200), &json!(false)), "answered: {posts:?}");
    assert_eq!(server_moves(&server, &id).await, ["e2e4"]);
}

/// A move's POST the server holds past the stop's deadline is given up by
/// then: the stop does not wait for the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_gives_up_a_held_request_by_its_deadline() {
    let (server, id, owner) = playing("white").await;
    server.post("/_test/fault", json!({"method": "POST", "path": "/move/e2e4$", "delay": 60})).await;
    owner.our_move(&id, "e2e4");
    server.wait_requests("POST .*/move/e2e4$", 1).await;
    let asked = std::time::Instant::now();
    owner.play.stop(asked + Duration::from_millis(300)).await;
    assert!(asked.elapsed() < Duration::from_secs(30), "the stop waited for the held POST: {:?}", asked.elapsed());
    assert!(server_moves(&server, &id).await.is_empty(), "held still");
}
