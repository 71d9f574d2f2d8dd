//! Talks to Lichess: a game played on the board against an online opponent
//! (the Board API, scope `board:play`), and a hall's games pushed to a
//! broadcast (scope `study:write`). Everything here follows Lichess's
//! published API reference (lichess-org/api, `doc/specs/`): its paths, its
//! shapes, and its rules for clients — one request at a time, a minute's
//! pause after a 429, streams kept open with keep-alive lines.
//!
//! | module | what |
//! |---|---|
//! | [`token`] | the access token: a file of mode 600, never shown |
//! | [`http`] | the client: TLS (rustls, ring), one request at a time per [`http::Family`], the 429 pause, bounded replies, a move's answer waited for 90 s, NDJSON [`http::Lines`] that fall silent after 15 s |
//! | [`api`] | the endpoints: account, token check, board moves and offers, challenges, seek, broadcast push |
//! | [`wire`] | the API's shapes as serde types; unknown line types skipped |
//! | [`ndjson`] | lines from bytes in any pieces, keep-alives, a cap on a line (a line glued to overlong junk read again) |
//! | [`follower`] | the pure heart of a game: the server's stream and the board's moves in, what to do out; a move the server has is never sent again |
//! | [`play`] | the actor the daemon runs: the event stream, the game followed, requests one at a time, challenges, seeks; silence no failure, failures said once, a refused token said as the account's trouble, games that cannot be played right refused loudly |
//! | [`clock`] | the real-time clocks Lichess plays: whole minutes (or 15 to 90 s) and increments up to 180 s; a seek rapid or slower |
//! | [`broadcast`] | the pusher the relay runs: rounds by board range, a push a second at most, changed games, a whole re-push now and then, each game's error its board's |
//! | [`retry`] | back-off with jitter; a link said lost once, a flapping one once too |
//!
//! # Using it in the daemon (Board API)
//!
//! ```text
//! let token = Token::read(&config.lichess.token_file)?;                 // mode 600 or refused, naming the file
//! let client = Client::new(token, Settings { url: config.lichess.url, ..Settings::default() })?;
//! let me = client.account().await?;                                     // "playing as {me.username}"
//! // tactus doctor: client.token_check().await? → Some(check) with check.has(api::BOARD_PLAY), else say what to fix
//! // the journal's game, found by its Site tag (`{url}/{id}`): tactus's daemon/lichess.rs
//! let resume = journal_site_id.map(|id| Resume { game_id: id, moves: journal_uci_moves });
//! let (play, mut updates) = Play::start(client, PlayOptions { accept_from, resume, account: Some(me.id) });
//! // config: play.command(Command::Challenge { username, spec }) or Command::Seek(spec)
//! ```
//!
//! The game task selects on `updates.recv()` next to its board and clock:
//!
//! - `Update::Game { id, action }`:
//!   - `Action::Started(s)`: start the session (players, `s.clock`, `s.color`
//!     is the board's side; `s.ply` the ply to be made) and journal the id;
//!   - `Action::Move(m)` with `!m.ours`: the `opponent_move` event (`m.ply`,
//!     `m.side`, `m.uci`, `m.san`), fed to the session as
//!     `Input::Opponent { ply, uci }` (journaled like an engine's move) and
//!     guided onto the board; with `m.ours`, the same (a move made on the
//!     website) — the board carries it out;
//!   - `Action::Refused { ply, why, .. }`: say it, take the session back to
//!     `ply` and guide the board back; `Action::TakenBack { ply }` likewise;
//!   - `Action::Clocks(c)`: the game's clocks, from every state (and every
//!     `gameFull`): the server's clock is the game's;
//!   - `Action::Offer { kind, by, open }`, `Action::OpponentGone { .. }`:
//!     say them (a claim of victory when `claim_win_in_s == Some(0)`);
//!   - `Action::Ended(e)`: `game_over` with `e.result()` and `e.reason()`;
//!   - `Action::Confirmed`, `Action::Chat`: nothing to do, or say it.
//! - `Update::Link(Link::Lost { why })` / `Link::Restored`: "connection lost,
//!   retrying" / "connected again" — each said once.
//! - `Update::Token(TokenState)`: the token refused (the game kept, tried
//!   again), refused for good (a new token is needed), taken again.
//! - `Update::RateLimited { for_s }`, `Update::Failed { command, why }`,
//!   `Update::Challenge { .. }`, `Update::ChallengeGone { .. }`,
//!   `Update::NotPlayed { id, why }` (a typed reason; its `Display` says what
//!   to change), `Update::SeekEnded { .. }`: say them.
//!
//! When the board completes the player's move (the press, or the board
//! holding still), `play.command(Command::Game { id, what:
//! GameCommand::Move { uci, offering_draw: false } })` — it never waits; a
//! full queue is `Err(CommandError::Busy)`. Buttons and typed commands map to
//! `GameCommand::Draw(yes)`, `Takeback(yes)`, `End(EndRequest::Resign |
//! Abort | ClaimVictory | ClaimDraw)`, and `Command::Accept` / `Decline`.
//! After a restart, the journal's moves go in `Resume`: the follower sends
//! the last one only if it is ours and the server does not have it.
//!
//! # Using it in the relay (broadcast)
//!
//! ```text
//! let rounds: Vec<RoundSpec> = args.lichess_broadcast.iter().map(|s| s.parse()).collect::<Result<_, _>>()?; // "ID" or "ID=101-200"
//! let pusher = Pusher::start(client, PushOptions::new(rounds)?, &tasks, &stop); // a study:write token's client; the owner's tracker and token
//! // on every change of a board in the SharedHall (its subscribe() updates):
//! pusher.set_game(board_number, hall.read(|h| h.game_pgn(board_id)))?; // never waits; newest PGN wins
//! // the arbiter's page: pusher.status().borrow().errors (board → Lichess's error), .failing, .paused_until
//! ```
//!
//! `tactus_net::push_to_lichess` does this for the relay. Board numbers are
//! the relay's: a board's place in the team matches, else the number its id
//! ends with. Lichess matches a pushed game to the round's game by its tags
//! (`Event`, `Round`, `Board`, `White`, `Black`, or FIDE ids): keep them
//! stable during a game, and give `Board`.

pub mod api;
pub mod broadcast;
pub mod clock;
pub mod follower;
pub mod http;
pub mod ndjson;
pub mod play;
pub mod retry;
pub mod token;
pub mod wire;
