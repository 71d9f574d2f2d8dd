use super::*;
use crate::ndjson::{Line, LineReader};
use proptest::prelude::*;
use shakmaty::Role;

// Lines as the game stream sends them (GameFullEvent, GameStateEvent in
// lichess-org/api doc/specs/schemas), with the fields tests vary.

#[derive(Clone)]
struct St {
    moves: String,
    status: &'static str,
    winner: Option<&'static str>,
    extra: &'static str,
}

fn st(moves: &str) -> St {
    St { moves: moves.into(), status: "started", winner: None, extra: "" }
}

fn state_json(s: &St) -> String {
    let winner = s.winner.map(|w| format!(r#","winner":"{w}""#)).unwrap_or_default();
    format!(
        r#"{{"type":"gameState","moves":"{}","wtime":600000,"btime":590000,"winc":2000,"binc":2000,"status":"{}"{winner}{}}}"#,
        s.moves, s.status, s.extra
    )
}

fn full_json(s: &St) -> String {
    full_json_from(s, "standard", "startpos")
}

fn full_json_from(s: &St, variant: &str, fen: &str) -> String {
    format!(
        r#"{{"type":"gameFull","id":"Gm000001","variant":{{"key":"{variant}","name":"x"}},"clock":{{"initial":600000,"increment":2000}},"speed":"rapid","perf":{{"name":"Rapid"}},"rated":false,"createdAt":1,"white":{{"id":"ours","name":"Ours"}},"black":{{"id":"them","name":"Them"}},"initialFen":"{fen}","state":{}}}"#,
        state_json(s)
    )
}

fn ev(json: &str) -> GameEvent {
    serde_json::from_str(json).unwrap()
}

fn full(f: &mut Follower, s: &St) -> Vec<Action> {
    f.server(ev(&full_json(s))).unwrap();
    f.drain().collect()
}

fn state(f: &mut Follower, s: &St) -> Vec<Action> {
    f.server(ev(&state_json(s))).unwrap();
    f.drain().collect()
}

fn opened(color: Color, s: &St) -> Follower {
    let mut f = Follower::new(color);
    f.stream_opened();
    full(&mut f, s);
    f
}

fn moves_of(actions: &[Action]) -> Vec<(u32, Color, String, String, bool)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Move(m) => Some((m.ply, m.side, m.uci.clone(), m.san.clone(), m.ours)),
            _ => None,
        })
        .collect()
}

fn sends(actions: &[Action]) -> Vec<(u32, String)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Send { ply, uci, .. } => Some((*ply, uci.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_whole_game_as_white_to_mate() {
    let mut f = Follower::new(Color::White);
    f.stream_opened();
    let a = full(&mut f, &st(""));
    let Action::Started(started) = &a[0] else { panic!("{a:?}") };
    assert_eq!((started.color, started.ply, started.id.as_str()), (Color::White, 1, "Gm000001"));
    assert_eq!(started.white.name.as_deref(), Some("Ours"));
    let mut line = String::new();
    let game = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"];
    for (i, uci) in game.iter().enumerate() {
        let ply = i as u32 + 1;
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(uci);
        if i % 2 == 0 {
            f.our_move(uci, false).unwrap();
            assert_eq!(
                f.drain().collect::<Vec<_>>(),
                vec![Action::Send { ply, uci: uci.to_string(), offering_draw: false }]
            );
            f.sent(ply, Sent::Accepted);
            assert_eq!(f.drain().count(), 0);
            let mut s = st(&line);
            if ply == 7 {
                (s.status, s.winner) = ("mate", Some("white"));
            }
            let a = state(&mut f, &s);
            assert_eq!(a[0], Action::Confirmed { ply, uci: uci.to_string() });
            if ply == 7 {
                let ending = Ending { status: Status::Mate, winner: Some(Color::White) };
                assert_eq!(a.last(), Some(&Action::Ended(ending)));
                assert_eq!((ending.result(), ending.reason()), ("1-0", EndReason::Checkmate));
            }
        } else {
            let a = state(&mut f, &st(&line));
            let m = &moves_of(&a)[0];
            assert_eq!((m.0, m.1, m.2.as_str(), m.4), (ply, Color::Black, *uci, false));
            assert!(a.iter().any(|x| matches!(x, Action::Clocks(c) if c.running == Some(Color::White))), "{a:?}");
        }
    }
    assert_eq!(f.line(), game);
    assert_eq!(f.our_move("a2a3", false), Err(MoveError::Over));
}

#[test]
fn a_game_as_black_says_the_opponents_moves_with_san() {
    let mut f = opened(Color::Black, &st(""));
    assert_eq!(f.our_move("e7e5", false), Err(MoveError::NotOurTurn));
    let a = state(&mut f, &st("g1f3"));
    assert_eq!(moves_of(&a), vec![(1, Color::White, "g1f3".into(), "Nf3".into(), false)]);
    // No clock runs before each side has moved.
    assert!(!a.iter().any(|x| matches!(x, Action::Clocks(c) if c.running.is_some())), "{a:?}");
    f.our_move("d7d5", false).unwrap();
    assert_eq!(sends(&f.drain().collect::<Vec<_>>()), vec![(2, "d7d5".into())]);
    let a = state(&mut f, &st("g1f3 d7d5 d2d4"));
    assert_eq!(a[0], Action::Confirmed { ply: 2, uci: "d7d5".into() });
    assert_eq!(moves_of(&a), vec![(3, Color::White, "d2d4".into(), "d4".into(), false)]);
}

#[test]
fn moves_missed_while_away_come_in_order_from_the_next_game_full() {
    let mut f = opened(Color::Black, &st("e2e4"));
    f.our_move("c7c5", false).unwrap();
    f.drain().for_each(drop);
    f.sent(2, Sent::Accepted);
    // The stream dropped; the next one's gameFull has our move and two more.
    f.stream_opened();
    let a = full(&mut f, &st("e2e4 c7c5 g1f3"));
    assert_eq!(a[0], Action::Confirmed { ply: 2, uci: "c7c5".into() });
    assert_eq!(moves_of(&a), vec![(3, Color::White, "g1f3".into(), "Nf3".into(), false)]);
    // A repeated line changes nothing.
    assert!(moves_of(&full(&mut f, &st("e2e4 c7c5 g1f3"))).is_empty());
}

#[test]
fn a_post_without_answer_is_sent_again_only_when_a_later_stream_lacks_it() {
    let mut f = opened(Color::White, &st(""));
    f.our_move("e2e4", false).unwrap();
    f.drain().for_each(drop);
    f.sent(1, Sent::Unknown);
    assert_eq!(f.drain().collect::<Vec<_>>(), vec![Action::Resync]);
    // Lines of the old stream, or a gameState, are not the server's word.
    assert!(sends(&full(&mut f, &st(""))).is_empty());
    assert!(sends(&state(&mut f, &st(""))).is_empty());
    f.stream_opened();
    assert_eq!(sends(&full(&mut f, &st(""))), vec![(1, "e2e4".into())]);
    // Lost again, but the server had it this time.
    f.sent(1, Sent::Unknown);
    f.drain().for_each(drop);
    f.stream_opened();
    let a = full(&mut f, &st("e2e4"));
    assert!(sends(&a).is_empty());
    assert_eq!(a[0], Action::Confirmed { ply: 1, uci: "e2e4".into() });
}

#[test]
fn a_refused_move_sends_the_board_back_once_the_server_confirms_it_lacks_it() {
    let mut f = opened(Color::White, &st(""));
    f.our_move("e2e4", false).unwrap();
    f.drain().for_each(drop);
    f.sent(1, Sent::Refused("Not your turn, or game already over".into()));
    assert_eq!(f.drain().collect::<Vec<_>>(), vec![Action::Resync]);
    f.stream_opened();
    let a = full(&mut f, &st(""));
    assert_eq!(
        a[0],
        Action::Refused {
            ply: 1,
            uci: "e2e4".into(),
            why: Refusal::Server("Not your turn, or game already over".into())
        }
    );
    assert!(matches!(a[1..], [Action::Clocks(_)]), "the stream's times: {a:?}");
    assert!(f.line().is_empty());
    // The board may move again, and another move.
    f.our_move("d2d4", false).unwrap();
    assert_eq!(sends(&f.drain().collect::<Vec<_>>()), vec![(1, "d2d4".into())]);
}

#[test]
fn a_400_for_a_move_the_server_already_has_confirms_it() {
    let mut f = opened(Color::White, &st(""));
    f.our_move("e2e4", false).unwrap();
    f.drain().for_each(drop);
    f.sent(1, Sent::Refused("Not your turn, or game already over".into()));
    f.drain().for_each(drop);
    f.stream_opened();
    assert_eq!(full(&mut f, &st("e2e4"))[0], Action::Confirmed { ply: 1, uci: "e2e4".into() });
}

#[test]
fn another_move_at_our_ply_supersedes_ours() {
    let mut f = opened(Color::White, &st(""));
    f.our_move("e2e4", false).unwrap();
    f.drain().for_each(drop);
    let a = state(&mut f, &st("d2d4"));
    assert_eq!(a[0], Action::Refused { ply: 1, uci: "e2e4".into(), why: Refusal::Superseded { uci: "d2d4".into() } });
    assert_eq!(moves_of(&a), vec![(1, Color::White, "d2d4".into(), "d4".into(), true)]);
    assert_eq!(f.line(), ["d2d4"]);
}

#[test]
fn a_takeback_on_the_server_takes_the_board_back() {
    let mut f = opened(Color::Black, &st("e2e4 e7e5 g1f3"));
    let a = state(&mut f, &st("e2e4"));
    assert_eq!(a[0], Action::TakenBack { ply: 2 });
    assert_eq!(f.line(), ["e2e4"]);
    // Taken back and replayed differently in one line (a reconnect): back, then on.
    f.stream_opened();
    let a = full(&mut f, &st("d2d4 d7d5"));
    assert_eq!(a[0], Action::TakenBack { ply: 1 });
    assert_eq!(moves_of(&a).len(), 2);
    assert!(moves_of(&a)[1].4, "black's move, ours, made elsewhere");
}

#[test]
fn offers_are_said_when_made_and_when_gone() {
    let mut f = opened(Color::White, &st("e2e4"));
    let mut s = st("e2e4");
    s.extra = r#","bdraw":true"#;
    assert_eq!(state(&mut f, &s), vec![Action::Offer { kind: OfferKind::Draw, by: Color::Black, open: true }]);
    assert_eq!(state(&mut f, &s), vec![], "said once");
    s.extra = r#","bdraw":false,"btakeback":true"#;
    assert_eq!(
        state(&mut f, &s),
        vec![
            Action::Offer { kind: OfferKind::Draw, by: Color::Black, open: false },
            Action::Offer { kind: OfferKind::Takeback, by: Color::Black, open: true }
        ]
    );
}

#[test]
fn opponent_gone_and_chat_pass_through() {
    let mut f = opened(Color::White, &st(""));
    f.server(ev(r#"{"type":"opponentGone","gone":true,"claimWinInSeconds":10}"#)).unwrap();
    f.server(ev(r#"{"type":"opponentGone","gone":true,"claimWinInSeconds":10}"#)).unwrap();
    f.server(ev(r#"{"type":"opponentGone","gone":true,"claimWinInSeconds":0}"#)).unwrap();
    f.server(ev(r#"{"type":"chatLine","room":"player","username":"them","text":"hi"}"#)).unwrap();
    assert_eq!(
        f.drain().collect::<Vec<_>>(),
        vec![
            Action::OpponentGone { gone: true, claim_win_in_s: Some(10) },
            Action::OpponentGone { gone: true, claim_win_in_s: Some(0) },
            Action::Chat { room: crate::wire::Room::Player, username: "them".into(), text: "hi".into() }
        ]
    );
}

#[test]
fn resumed_after_a_restart_nothing_is_sent_twice() {
    // The server has every move of the journal: nothing to send.
    let mut f = Follower::resume(Color::White, vec!["e2e4".into(), "e7e5".into()]);
    f.stream_opened();
    let a = full(&mut f, &st("e2e4 e7e5"));
    let Action::Started(s) = &a[0] else { panic!() };
    assert_eq!(s.ply, 3);
    assert!(sends(&a).is_empty() && moves_of(&a).is_empty(), "{a:?}");

    // The journal's last move is ours and the server lacks it: sent once.
    let mut f = Follower::resume(Color::White, vec!["e2e4".into(), "e7e5".into(), "g1f3".into()]);
    f.stream_opened();
    let a = full(&mut f, &st("e2e4 e7e5"));
    assert_eq!(sends(&a), vec![(3, "g1f3".into())]);
    assert!(sends(&state(&mut f, &st("e2e4 e7e5"))).is_empty());

    // The server went on while we were down: its moves come.
    let mut f = Follower::resume(Color::White, vec!["e2e4".into()]);
    f.stream_opened();
    let a = full(&mut f, &st("e2e4 e7e5"));
    assert_eq!(moves_of(&a), vec![(2, Color::Black, "e7e5".into(), "e5".into(), false)]);

    // The journal differs from the server: back to where they agree.
    let mut f = Follower::resume(Color::Black, vec!["e2e4".into(), "c7c5".into(), "g1f3".into()]);
    f.stream_opened();
    let a = full(&mut f, &st("e2e4 e7e5"));
    assert!(a.contains(&Action::TakenBack { ply: 2 }), "{a:?}");
    assert_eq!(f.line(), ["e2e4", "e7e5"]);
    assert!(sends(&a).is_empty());
}

#[test]
fn a_resumed_move_of_a_game_that_ended_meanwhile_is_refused() {
    let mut f = Follower::resume(Color::White, vec!["e2e4".into()]);
    f.stream_opened();
    let s = St { moves: String::new(), status: "aborted", winner: None, extra: "" };
    let a = full(&mut f, &s);
    assert!(sends(&a).is_empty());
    assert!(a.contains(&Action::Refused { ply: 1, uci: "e2e4".into(), why: Refusal::GameOver }), "{a:?}");
    assert_eq!(a.last(), Some(&Action::Ended(Ending { status: Status::Aborted, winner: None })));
}

#[test]
fn statuses_map_to_results_and_reasons() {
    let cases = [
        (Status::Mate, Some(Color::Black), "0-1", EndReason::Checkmate),
        (Status::Resign, Some(Color::White), "1-0", EndReason::Resignation),
        (Status::Stalemate, None, "1/2-1/2", EndReason::Stalemate),
        (Status::Outoftime, Some(Color::White), "1-0", EndReason::FlagFall),
        (Status::Outoftime, None, "1/2-1/2", EndReason::FlagFall),
        (Status::Draw, None, "1/2-1/2", EndReason::Draw),
        (Status::Timeout, Some(Color::Black), "0-1", EndReason::OpponentLeft),
        (Status::Timeout, None, "1/2-1/2", EndReason::OpponentLeft),
        (Status::Aborted, None, "*", EndReason::Aborted),
        (Status::NoStart, None, "*", EndReason::NoStart),
        (Status::InsufficientMaterialClaim, None, "1/2-1/2", EndReason::InsufficientMaterial),
        (Status::Cheat, Some(Color::White), "1-0", EndReason::Cheat),
        (Status::Unknown, None, "*", EndReason::Unknown),
    ];
    for (status, winner, result, reason) in cases {
        let e = Ending { status, winner };
        assert_eq!((e.result(), e.reason()), (result, reason), "{status:?} {winner:?}");
    }
}

#[test]
fn our_move_is_checked_before_it_goes() {
    let mut f = Follower::new(Color::White);
    assert_eq!(f.our_move("e2e4", false), Err(MoveError::NotStarted));
    f.stream_opened();
    full(&mut f, &st(""));
    assert_eq!(f.our_move("e2e5", false), Err(MoveError::Illegal("e2e5".into())));
    assert_eq!(f.our_move("zz", false), Err(MoveError::Illegal("zz".into())));
    f.our_move("e2e4", true).unwrap();
    assert_eq!(f.drain().collect::<Vec<_>>(), vec![Action::Send { ply: 1, uci: "e2e4".into(), offering_draw: true }]);
    assert_eq!(f.our_move("d2d4", false), Err(MoveError::Waiting));
    // A stale answer (another ply) changes nothing.
    f.sent(7, Sent::Unknown);
    assert_eq!(f.drain().count(), 0);
}

#[test]
fn castling_in_either_notation_is_the_same_move() {
    let mut f = opened(Color::White, &st("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"));
    f.our_move("e1h1", false).unwrap();
    assert_eq!(sends(&f.drain().collect::<Vec<_>>()), vec![(7, "e1g1".into())]);
    let a = state(&mut f, &st("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1"));
    assert_eq!(a[0], Action::Confirmed { ply: 7, uci: "e1g1".into() });
}

#[test]
fn chess960_castling_is_king_takes_rook_and_plies_count_from_the_fen() {
    // A Chess960 start where White can castle at once (king f1, rook g1).
    let fen = "bqrbnkrn/pppppppp/8/8/8/8/PPPPPPPP/BQRBNKRN w GCgc - 0 1";
    let mut f = Follower::new(Color::Black);
    f.stream_opened();
    f.server(ev(&full_json_from(&st(""), "chess960", fen))).unwrap();
    f.drain().for_each(drop);
    f.server(ev(&state_json(&st("f1g1")))).unwrap();
    let a: Vec<Action> = f.drain().collect();
    assert_eq!(moves_of(&a), vec![(1, Color::White, "f1g1".into(), "O-O".into(), false)]);
    // A position from a FEN with Black to move, move 10: ply 20.
    let mut f = Follower::new(Color::White);
    f.stream_opened();
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 10";
    f.server(ev(&full_json_from(&st("b8c6"), "fromPosition", fen))).unwrap();
    let a: Vec<Action> = f.drain().collect();
    let Action::Started(s) = &a[0] else { panic!() };
    assert_eq!(s.ply, 20);
    assert_eq!(moves_of(&a), vec![(20, Color::Black, "b8c6".into(), "Nc6".into(), false)]);
    f.our_move("g1f3", false).unwrap();
    assert_eq!(sends(&f.drain().collect::<Vec<_>>()), vec![(21, "g1f3".into())]);
}

#[test]
fn chess960_castling_goes_out_as_king_takes_rook() {
    // Standard arrangement played as Chess960: castling is e1h1.
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1";
    let mut f = Follower::new(Color::White);
    f.stream_opened();
    f.server(ev(&full_json_from(&st("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"), "chess960", fen))).unwrap();
    f.drain().for_each(drop);
    f.our_move("e1h1", false).unwrap();
    assert_eq!(sends(&f.drain().collect::<Vec<_>>()), vec![(7, "e1h1".into())]);
}

#[test]
fn what_cannot_be_followed_is_an_error_not_a_panic() {
    let mut f = Follower::new(Color::White);
    f.stream_opened();
    assert_eq!(
        f.server(ev(&full_json_from(&st(""), "atomic", "startpos"))),
        Err(FollowError::Variant(crate::wire::VariantKey::Atomic))
    );
    assert!(matches!(f.server(ev(&full_json_from(&st(""), "standard", "not a fen"))), Err(FollowError::Fen(_))));
    full(&mut f, &st(""));
    assert_eq!(f.server(ev(&state_json(&st("e2e4 e2e4")))), Err(FollowError::Moves { ply: 2, uci: "e2e4".into() }));
    // The next good line is read whole.
    assert_eq!(moves_of(&state(&mut f, &st("e2e4 e7e5"))).len(), 2);
}

#[test]
fn a_promotion_is_sent_with_its_piece() {
    let fen = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1";
    let mut f = Follower::new(Color::White);
    f.stream_opened();
    f.server(ev(&full_json_from(&st(""), "fromPosition", fen))).unwrap();
    f.drain().for_each(drop);
    f.our_move("e7e8n", false).unwrap();
    assert_eq!(sends(&f.drain().collect::<Vec<_>>()), vec![(1, "e7e8n".into())]);
    let a = state(&mut f, &st("e7e8n g7h6"));
    assert_eq!(a[0], Action::Confirmed { ply: 1, uci: "e7e8n".into() });
    let pos = f.position().unwrap();
    assert_eq!(pos.board().role_at(shakmaty::Square::E8), Some(Role::Knight));
    assert_eq!(moves_of(&a)[0].3, "Kh6");
}

// ---- The property: random games, random chunkings, reconnections, lost
// answers and restarts never send a move the server has, and always end
// with the server's move list.

/// A small deterministic generator (xorshift64*), for the game and the schedule.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_game(rng: &mut Rng, plies: usize) -> Vec<Move> {
    let mut pos = Chess::default();
    let mut game = Vec::new();
    while game.len() < plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.below(legal.len())];
        pos.play_unchecked(m);
        game.push(m);
    }
    game
}

/// The server's side: the true move list, the stream's undelivered bytes.
struct Server {
    game: Vec<Move>,
    moves: Vec<Move>,
    pos: Chess,
    stream: Vec<u8>,
}

impl Server {
    fn text(&self) -> String {
        self.moves.iter().map(|&m| UciMove::from_standard(m).to_string()).collect::<Vec<_>>().join(" ")
    }
    fn status(&self) -> (&'static str, Option<&'static str>) {
        if self.moves.len() < self.game.len() {
            ("started", None)
        } else if self.pos.is_checkmate() {
            ("mate", Some(if self.pos.turn() == Color::White { "black" } else { "white" }))
        } else if self.pos.is_stalemate() {
            ("stalemate", None)
        } else {
            ("draw", None)
        }
    }
    fn st(&self) -> St {
        let (status, winner) = self.status();
        St { moves: self.text(), status, winner, extra: "" }
    }
    fn queue_state(&mut self) {
        let line = state_json(&self.st());
        self.stream.extend_from_slice(line.as_bytes());
        self.stream.push(b'\n');
    }
    /// A new stream: what the old one had not delivered is lost.
    fn reopen(&mut self) {
        self.stream.clear();
        let line = full_json(&self.st());
        self.stream.extend_from_slice(line.as_bytes());
        self.stream.push(b'\n');
    }
    fn apply(&mut self, m: Move) -> bool {
        let ours_to_play = self.moves.len() < self.game.len() && self.game[self.moves.len()] == m;
        if ours_to_play {
            self.pos.play_unchecked(m);
            self.moves.push(m);
            self.queue_state();
        }
        ours_to_play
    }
}

/// The owner's side: the board's game, kept from the actions.
struct Owner {
    line: Vec<Move>,
    pos: Chess,
}

struct World {
    our: Color,
    server: Server,
    owner: Owner,
    follower: Follower,
    reader: LineReader,
    /// The ply and move of the POST in flight.
    post: Option<(u32, Move)>,
}

impl World {
    fn handle(&mut self) -> Result<(), TestCaseError> {
        let actions: Vec<Action> = self.follower.drain().collect();
        for a in actions {
            match a {
                Action::Send { ply, uci, .. } => {
                    let i = (ply - 1) as usize;
                    let mut before = Chess::default();
                    for &m in &self.owner.line[..i] {
                        before.play_unchecked(m);
                    }
                    let m = UciMove::from_ascii(uci.as_bytes()).unwrap().to_move(&before).unwrap();
                    prop_assert!(
                        self.server.moves.get(i) != Some(&m),
                        "ply {} {} sent while the server has it",
                        ply,
                        uci
                    );
                    prop_assert!(self.post.is_none(), "one move in flight at a time");
                    self.post = Some((ply, m));
                }
                Action::Move(sm) => {
                    let i = (sm.ply - 1) as usize;
                    prop_assert_eq!(i, self.owner.line.len());
                    let m = UciMove::from_ascii(sm.uci.as_bytes()).unwrap().to_move(&self.owner.pos).unwrap();
                    prop_assert_eq!(Some(&m), self.server.moves.get(i));
                    self.owner.pos.play_unchecked(m);
                    self.owner.line.push(m);
                }
                Action::Refused { ply, .. } | Action::TakenBack { ply } => self.owner_back(ply),
                Action::Resync => self.reopen(),
                Action::Confirmed { .. }
                | Action::Started(_)
                | Action::Clocks(_)
                | Action::Offer { .. }
                | Action::OpponentGone { .. }
                | Action::Chat { .. }
                | Action::Ended(_) => {}
            }
        }
        Ok(())
    }

    fn owner_back(&mut self, ply: u32) {
        self.owner.line.truncate((ply - 1) as usize);
        self.owner.pos = Chess::default();
        for &m in &self.owner.line {
            self.owner.pos.play_unchecked(m);
        }
    }

    fn reopen(&mut self) {
        self.follower.stream_opened();
        self.reader = LineReader::new(1 << 16);
        self.server.reopen();
    }

    /// The board plays our next move when it is ours to play.
    fn owner_plays(&mut self) -> Result<(), TestCaseError> {
        let i = self.owner.line.len();
        if i < self.server.game.len()
            && self.owner.pos.turn() == self.our
            && self.follower.ending().is_none()
            && self.owner.line[..] == self.server.game[..i]
            && self.follower.line().len() == i
            && self.follower.id().is_some()
        {
            let m = self.server.game[i];
            let uci = UciMove::from_standard(m).to_string();
            self.follower.our_move(&uci, false).map_err(|e| TestCaseError::fail(format!("{e}")))?;
            self.owner.pos.play_unchecked(m);
            self.owner.line.push(m);
            self.handle()?;
        }
        Ok(())
    }

    fn deliver(&mut self, n: usize) -> Result<(), TestCaseError> {
        let n = n.min(self.server.stream.len());
        let piece: Vec<u8> = self.server.stream.drain(..n).collect();
        let mut lines = Vec::new();
        self.reader.feed(&piece, &mut lines);
        for line in lines {
            if let Line::Text(text) = line {
                self.follower
                    .server(serde_json::from_str(&text).unwrap())
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                self.handle()?;
            }
        }
        Ok(())
    }

    fn opponent_moves(&mut self) {
        let i = self.server.moves.len();
        if i < self.server.game.len() && self.server.pos.turn() != self.our {
            let m = self.server.game[i];
            self.server.apply(m);
        }
    }

    /// The POST in flight reaches the server (or not), and its answer the
    /// follower (or not).
    fn resolve(&mut self, how: u64) -> Result<(), TestCaseError> {
        let Some((ply, m)) = self.post.take() else { return Ok(()) };
        let reaches = !how.is_multiple_of(3);
        let applied = reaches && self.server.apply(m);
        let outcome = match (reaches, applied, how.is_multiple_of(2)) {
            (false, _, _) => Sent::Unknown,
            (true, true, true) => Sent::Accepted,
            (true, true, false) => Sent::Unknown,
            (true, false, _) => Sent::Refused("Not your turn, or game already over".into()),
        };
        self.follower.sent(ply, outcome);
        self.handle()
    }

    /// The daemon is killed and restarted: the POST in flight may or may
    /// not have reached the server; the journal has the board's line.
    fn restart(&mut self, how: u64) -> Result<(), TestCaseError> {
        if let Some((_, m)) = self.post.take()
            && how.is_multiple_of(2)
        {
            self.server.apply(m);
        }
        let journal: Vec<String> = self.owner.line.iter().map(|&m| UciMove::from_standard(m).to_string()).collect();
        self.follower = Follower::resume(self.our, journal);
        self.reopen();
        Ok(())
    }
}

fn run(seed: u64, plies: usize, ops: &[(u8, u16)]) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed | 1);
    let game = random_game(&mut rng, plies);
    let our = if seed.is_multiple_of(2) { Color::White } else { Color::Black };
    let mut w = World {
        our,
        server: Server { game, moves: Vec::new(), pos: Chess::default(), stream: Vec::new() },
        owner: Owner { line: Vec::new(), pos: Chess::default() },
        follower: Follower::new(our),
        reader: LineReader::new(1 << 16),
        post: None,
    };
    w.reopen();
    for &(op, arg) in ops {
        match op % 8 {
            0 | 1 => w.deliver(1 + arg as usize % 300)?,
            2 => w.opponent_moves(),
            3 | 4 => w.resolve(u64::from(arg))?,
            5 => w.owner_plays()?,
            6 => {
                if arg % 4 == 0 {
                    w.reopen()
                } else {
                    w.deliver(arg as usize)?
                }
            }
            _ => {
                if arg % 8 == 0 {
                    w.restart(u64::from(arg / 8))?
                } else {
                    w.owner_plays()?
                }
            }
        }
    }
    // Then the network behaves: everything is delivered and answered.
    for _ in 0..20_000 {
        w.deliver(usize::MAX)?;
        w.opponent_moves();
        w.resolve(4)?;
        w.owner_plays()?;
        if w.follower.ending().is_some() && w.server.stream.is_empty() && w.post.is_none() {
            break;
        }
    }
    prop_assert!(w.follower.ending().is_some(), "the game ends");
    prop_assert_eq!(&w.server.moves, &w.server.game, "the server has the whole game");
    prop_assert_eq!(&w.owner.line, &w.server.moves, "the board's game is the server's");
    let server_uci: Vec<String> = w.server.moves.iter().map(|&m| UciMove::from_standard(m).to_string()).collect();
    prop_assert_eq!(w.follower.line(), server_uci);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    #[test]
    fn no_move_is_sent_twice_and_the_game_ends_as_the_server_has_it(
        seed in any::<u64>(),
        plies in 1usize..90,
        ops in proptest::collection::vec((any::<u8>(), any::<u16>()), 0..400),
    ) {
        run(seed, plies, &ops)?;
    }
}
