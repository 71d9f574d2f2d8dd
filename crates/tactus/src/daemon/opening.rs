//! Where each game starts: what every game on this board starts from, and
//! the first game opened — a new one, or the unfinished one a restart
//! recovers from its journal.

use std::path::PathBuf;

use shakmaty::{Bitboard, Position};
use tactus_core::{Event, Policy, Session};
use tactus_trace::{Entry, Header, Input, Ms, Record};

use super::date::{pgn_date, unix_seconds};
use super::journal::{self, Journal, JournalThread};
use super::outputs::Outputs;
use super::source::Origin;
use crate::config::Speed;

/// What every game on this board starts from.
pub struct Setup {
    /// The tags; each new game gets the day's date.
    pub header: Header,
    pub policy: Policy,
    pub source: Origin,
    pub state_dir: PathBuf,
    /// A sensor board plays game after game; a simulated one plays one.
    pub real_board: bool,
    /// A clock is there to press: a clock device, or a simulated board's
    /// presses. Without one a move is complete once the board holds still
    /// on it — unless the board says otherwise (a DGT clock plugged in).
    pub clock_connected: bool,
    pub speed: Speed,
    /// Draw the board when asked (a person watches the terminal).
    pub draw_board: bool,
    /// Show both clocks on a status line at the bottom, rewritten each
    /// second (not while moves are typed there: the typing would run into
    /// it), in the player's language.
    pub status_line: Option<tactus_speech::Lang>,
    /// A recovered game's clocks stay stopped until a player resumes
    /// (6.11, as after a power cut). Not on a board paired with its partner
    /// where each keeps its own player's clock: the partner's never
    /// stopped, and the player goes on as before the restart — the time
    /// the daemon was away is charged to no one.
    pub stops_clocks_on_recovery: bool,
    /// The games are an online server's: the board's own game before one
    /// starts is a stand-in, not announced, and what the board shows then
    /// (a move made as the server's game starts) goes into the server's.
    pub online: bool,
}

impl Setup {
    /// What the board shows before the first move.
    pub fn start_occupancy(&self) -> anyhow::Result<Bitboard> {
        Ok(Session::new(&self.header, self.policy.clone())?.occupancy())
    }
}

/// An opened game: a new one, or one recovered with the entries its
/// journal held.
pub struct Opened {
    pub session: Session,
    pub journal: JournalThread,
    pub last_t: Ms,
    /// The game's tags.
    pub header: Header,
    pub recovered: Option<Vec<Entry>>,
}

impl Opened {
    /// What the game believes the board shows.
    pub fn occupancy(&self) -> Bitboard {
        self.session.occupancy()
    }

    /// Where game time stands.
    pub fn last_t(&self) -> Ms {
        self.last_t
    }
}

/// Creates the journal of a new game, off the async runtime.
pub async fn create_journal(setup: &Setup, header: &Header, n: u32) -> anyhow::Result<JournalThread> {
    let (dir, header, source) = (setup.state_dir.clone(), header.clone(), setup.source.clone());
    let name = format!("{}-{}-{n}", unix_seconds(), std::process::id());
    let journal = tokio::task::spawn_blocking(move || Journal::create(&dir, &header, &source, &name)).await??;
    JournalThread::start(journal)
}

/// Recovers the unfinished game when it is this board's and the board can
/// show it; otherwise sets it aside (kept, its path said) and starts a new
/// game. `shows` is what a sensor board reads now.
pub async fn open(setup: &Setup, shows: Option<Bitboard>, out: &mut Outputs) -> anyhow::Result<Opened> {
    let dir = setup.state_dir.clone();
    let recovered = tokio::task::spawn_blocking(move || Journal::recover(&dir)).await??;
    if let Some(r) = recovered {
        let path = r.journal.path().to_path_buf();
        let mut session = Session::new(&r.header, setup.policy.clone().with_recorded(&r.header))?;
        let mut past: Vec<Event> = session.drain().collect();
        for entry in &r.entries {
            session.handle(entry.clone());
            past.extend(session.drain());
        }
        let last_t = journal::last_t(&r.entries);
        let start = setup.start_occupancy()?;
        let set_aside = match &r.source {
            None => Some("its journal does not name the board it was played on".to_string()),
            Some(source) => setup.source.differs_from(source),
        }
        .or_else(|| {
            shows.filter(|&shows| shows == start && session.occupancy() != start).map(|_| {
                format!(
                    "the board shows the starting position, the game was at move {}",
                    session.game().position().fullmoves()
                )
            })
        });
        let finished = session.finished() || journal::ended(&r.entries);
        if finished || set_aside.is_some() {
            let j = r.journal;
            tokio::task::spawn_blocking(move || j.close()).await??;
            if let Some(why) = set_aside {
                tracing::warn!(
                    "the unfinished game in {} is not resumed: {why}; it is kept there, and a new game starts",
                    path.display()
                );
            }
        } else {
            if r.cut > 0 {
                tracing::warn!("{}: cut a torn last line ({} bytes)", path.display(), r.cut);
            }
            tracing::info!("recovered the game in {}", path.display());
            out.restore(&past);
            let journal = JournalThread::start(r.journal)?;
            let mut opened = Opened { session, journal, last_t, header: r.header, recovered: Some(r.entries) };
            if setup.stops_clocks_on_recovery {
                // The clocks stay stopped until a player resumes.
                let pause = Entry { t: last_t, record: Record::Input(Input::Pause) };
                opened.journal.append(pause.clone()).await?;
                opened.session.handle(pause);
                let events: Vec<Event> = opened.session.drain().collect();
                opened.journal.sync().await?;
                out.publish(&events).await;
            }
            return Ok(opened);
        }
    }
    let mut header = setup.header.clone();
    header.date.get_or_insert_with(|| pgn_date(unix_seconds()));
    let mut session = Session::new(&header, setup.policy.clone())?;
    let journal = create_journal(setup, &header, 0).await?;
    let events: Vec<Event> = session.drain().collect();
    // An online server's game is announced when it starts.
    if !setup.online {
        out.publish(&events).await;
    }
    Ok(Opened { session, journal, last_t: 0, header, recovered: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;
    use std::time::{Duration, Instant};

    #[test]
    fn a_game_mid_way_is_set_aside_when_the_board_shows_the_start() {
        use shakmaty::Square;
        let dir = std::env::temp_dir().join(format!("tactus-game-setaside-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cfg = crate::config::Config::default();
        let header = Header::default();
        let setup = Setup {
            header: header.clone(),
            policy: Policy::default(),
            source: Origin::of(&cfg, None),
            state_dir: dir.clone(),
            real_board: true,
            clock_connected: true,
            speed: Speed::REAL_TIME,
            draw_board: false,
            status_line: None,
            stops_clocks_on_recovery: true,
            online: false,
        };
        // 1. e4, journaled, then the power went.
        let mut old = Journal::create(&dir, &header, &setup.source, "old").unwrap();
        let path = old.path().to_path_buf();
        for (t, record) in [
            (1000, Record::Edge { sq: Square::E2, on: false, piece: None }),
            (1300, Record::Edge { sq: Square::E4, on: true, piece: None }),
            (2000, Record::Clock(Color::White)),
        ] {
            old.append(&Entry { t, record }).unwrap();
        }
        old.sync().unwrap();
        drop(old);
        let start = setup.start_occupancy().unwrap();
        let after_e4 = (start ^ Bitboard::from(Square::E2)) | Bitboard::from(Square::E4);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let mut out = Outputs { events: None, voice: None, broadcast: None, dgt: None };
            // The board shows the game: it goes on.
            let opened = open(&setup, Some(after_e4), &mut out).await.unwrap();
            assert!(opened.recovered.is_some());
            assert_eq!(opened.session.game().played.len(), 1);
            opened.journal.stop(Instant::now() + Duration::from_secs(10)).await.unwrap();
            // The board shows the starting position: a new game; the old one is kept.
            let opened = open(&setup, Some(start), &mut out).await.unwrap();
            assert!(opened.recovered.is_none());
            assert!(opened.session.game().played.is_empty());
            opened.journal.stop(Instant::now() + Duration::from_secs(10)).await.unwrap();
        });
        assert!(path.exists(), "the set-aside game's trace is kept");
        let current = std::fs::read_to_string(dir.join("current")).unwrap();
        assert!(!current.contains("old"), "the new game is the one to recover: {current}");
    }
}
