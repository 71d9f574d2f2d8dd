use super::*;
use crate::wire::PushedGame;

fn game(board: u32, moves: &str) -> Arc<str> {
    format!("[Event \"Hall\"]\n[Board \"{board}\"]\n[Result \"*\"]\n\n{moves} *\n\n").into()
}

fn ok_reply(push: &Push) -> Result<PushReply, Error> {
    Ok(PushReply {
        games: push.boards.iter().map(|_| PushedGame { tags: BTreeMap::new(), moves: Some(1), error: None }).collect(),
    })
}

fn plan(specs: &[&str]) -> Plan {
    Plan::new(&PushOptions::new(specs.iter().map(|s| s.parse().unwrap()).collect()).unwrap())
}

fn expect_push(plan: &Plan, now: Instant) -> Push {
    match plan.next(now) {
        Next::Push(p) => p,
        other => panic!("a push, not {other:?}"),
    }
}

fn boards(p: &Push) -> Vec<u32> {
    p.boards.iter().map(|b| b.0).collect()
}

#[test]
fn round_specs() {
    let r: RoundSpec = "AbCd1234".parse().unwrap();
    assert_eq!(r.boards, 1..=100);
    let r: RoundSpec = "AbCd1234=101-200".parse().unwrap();
    assert_eq!((r.id.as_str(), r.boards), ("AbCd1234", 101..=200));
    for bad in ["short", "AbCd1234=0-5", "AbCd1234=5-4", "AbCd1234=1-101", "AbCd12/4", "AbCd1234=x-y", "AbCd1234=3"] {
        assert!(bad.parse::<RoundSpec>().is_err(), "{bad}");
    }
    let overlap = vec!["AbCd1234=1-100".parse().unwrap(), "Zz999999=100-150".parse().unwrap()];
    assert!(PushOptions::new(overlap).unwrap_err().to_string().contains("share boards"));
    let twice = vec!["AbCd1234=1-10".parse().unwrap(), "AbCd1234=11-20".parse().unwrap()];
    assert!(PushOptions::new(twice).is_err());
    assert!(PushOptions::new(Vec::new()).is_err());
}

#[test]
fn a_change_goes_within_the_interval_and_alone() {
    let mut p = plan(&["AbCd1234"]);
    let t0 = Instant::now();
    assert!(matches!(p.next(t0), Next::Idle));
    for b in 1..=3 {
        p.set(b, game(b, "1. e4")).unwrap();
    }
    let first = expect_push(&p, t0);
    assert!(first.whole);
    assert_eq!(boards(&first), [1, 2, 3]);
    assert_eq!(first.body.matches("[Event").count(), 3);
    assert!(first.body.ends_with("*\n\n") && !first.body.contains("\n\n\n"));
    p.done(&first, &ok_reply(&first), t0);
    assert!(matches!(p.next(t0), Next::At(t) if t == t0 + Duration::from_secs(60)), "only the whole re-push is left");

    // A change 300 ms later goes out a second after the last push, alone.
    let t1 = t0 + Duration::from_millis(300);
    p.set(2, game(2, "1. e4 e5")).unwrap();
    assert!(matches!(p.next(t1), Next::At(t) if t == t0 + Duration::from_secs(1)));
    let second = expect_push(&p, t0 + Duration::from_secs(1));
    assert!(!second.whole);
    assert_eq!(boards(&second), [2]);
    p.done(&second, &ok_reply(&second), t0 + Duration::from_secs(1));
    // The same PGN again is no change.
    p.set(2, game(2, "1. e4 e5")).unwrap();
    assert!(matches!(p.next(t0 + Duration::from_secs(5)), Next::At(_)));
    // A minute after the last whole push, every game again.
    let whole = expect_push(&p, t0 + Duration::from_secs(60));
    assert!(whole.whole);
    assert_eq!(boards(&whole), [1, 2, 3]);
}

#[test]
fn each_games_error_is_its_boards_until_it_is_read() {
    let mut p = plan(&["AbCd1234"]);
    let t0 = Instant::now();
    p.set(1, game(1, "1. e4")).unwrap();
    p.set(2, game(2, "1. e5")).unwrap();
    let push = expect_push(&p, t0);
    let reply = PushReply {
        games: vec![
            PushedGame { tags: BTreeMap::new(), moves: Some(1), error: None },
            PushedGame { tags: BTreeMap::new(), moves: None, error: Some("Illegal move e5\n".into()) },
        ],
    };
    p.done(&push, &Ok(reply), t0);
    assert_eq!(p.errors().get(&2).map(String::as_str), Some("Illegal move e5"));
    assert!(!p.errors().contains_key(&1));
    // Not pushed again until it changes.
    assert!(matches!(p.next(t0 + Duration::from_secs(2)), Next::At(_)));
    p.set(2, game(2, "1. d4")).unwrap();
    let push = expect_push(&p, t0 + Duration::from_secs(2));
    assert_eq!(boards(&push), [2]);
    p.done(&push, &ok_reply(&push), t0 + Duration::from_secs(2));
    assert!(p.errors().is_empty());
}

#[test]
fn a_failure_backs_off_and_the_next_push_is_whole() {
    let mut p = plan(&["AbCd1234"]);
    let t0 = Instant::now();
    p.set(1, game(1, "1. e4")).unwrap();
    p.set(2, game(2, "1. d4")).unwrap();
    let push = expect_push(&p, t0);
    p.done(&push, &ok_reply(&push), t0);
    p.set(1, game(1, "1. e4 e5")).unwrap();
    let push = expect_push(&p, t0 + Duration::from_secs(1));
    assert_eq!(boards(&push), [1]);
    let down = Error::Connect { host: "lichess.org".into(), why: "refused".into() };
    p.done(&push, &Err(down), t0 + Duration::from_secs(1));
    let Next::At(retry) = p.next(t0 + Duration::from_secs(1)) else { panic!() };
    assert!(retry >= t0 + Duration::from_millis(1800), "the back-off's first wait, spread");
    let again = expect_push(&p, retry);
    assert!(again.whole);
    assert_eq!(boards(&again), [1, 2]);
    // A 429: the client holds every request; the plan only goes whole.
    p.done(&again, &Err(Error::RateLimited(Duration::from_secs(60))), retry);
    assert!(expect_push(&p, retry + Duration::from_secs(1)).whole);
}

#[test]
fn a_reply_that_does_not_match_the_push_makes_the_next_whole() {
    let mut p = plan(&["AbCd1234"]);
    let t0 = Instant::now();
    p.set(1, game(1, "1. e4")).unwrap();
    p.set(2, game(2, "1. d4")).unwrap();
    let push = expect_push(&p, t0);
    p.done(&push, &Ok(PushReply { games: Vec::new() }), t0);
    assert!(expect_push(&p, t0 + Duration::from_secs(1)).whole);
}

#[test]
fn a_large_hall_goes_to_its_rounds_by_board() {
    let mut p = plan(&["Round001=1-100", "Round002=101-200"]);
    let t0 = Instant::now();
    for b in [1, 100, 101, 150] {
        p.set(b, game(b, "1. e4")).unwrap();
    }
    assert_eq!(p.set(201, game(201, "1. e4")), Err(GameError::Unmapped(201)));
    let big: Arc<str> = "x".repeat(MAX_GAME_PGN + 1).into();
    assert!(matches!(p.set(5, big), Err(GameError::TooLarge { board: 5, .. })));
    let a = expect_push(&p, t0);
    p.done(&a, &ok_reply(&a), t0);
    let b = expect_push(&p, t0);
    p.done(&b, &ok_reply(&b), t0);
    let mut pushed = vec![(a.round_id.clone(), boards(&a)), (b.round_id.clone(), boards(&b))];
    pushed.sort();
    assert_eq!(pushed, vec![("Round001".into(), vec![1, 100]), ("Round002".into(), vec![101, 150])]);
}

#[test]
fn changes_every_tenth_of_a_second_push_once_a_second() {
    let mut p = plan(&["AbCd1234"]);
    let t0 = Instant::now();
    let mut pushes = 0;
    let mut moves = String::from("1. e4");
    for tick in 0..100u64 {
        let now = t0 + Duration::from_millis(tick * 100);
        moves.push_str(" e5");
        p.set(1, game(1, &moves)).unwrap();
        if let Next::Push(push) = p.next(now) {
            pushes += 1;
            p.done(&push, &ok_reply(&push), now);
        }
    }
    assert!((9..=11).contains(&pushes), "{pushes} pushes in 10 s");
}
