//! Each language as data: its chess words, its sentence templates and its
//! grammar (gender, case, plural), and how its voice must be fed the text
//! (`spoken`). `words.rs` assembles phrases from these; a language file
//! holds no logic beyond its own grammar and pronunciation.
//!
//! Templates name their blanks (`{piece}`, `{sq}`); a template uses only the
//! blanks its language needs, so Russian can ask for `{piece_acc}` where
//! English is happy with `{piece}`.
//!
//! A sentence about one side is a [`Persons`]: how it reads when nobody in
//! particular listens ("White moves again"), when the listener is that side
//! ("you move again") and when the listener is the other side ("your
//! opponent moves again"). Verbs agree with each, so each is written out.

mod de;
mod en;
mod pl;
mod ru;

use shakmaty::{Color, Role};

use crate::Lang;

/// Grammatical case of a piece name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    Nom,
    Acc,
    Gen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gender {
    M,
    F,
}

/// Piece names in the order of `Role`: pawn, knight, bishop, rook, queen, king.
pub(crate) struct Names {
    pub nom: [&'static str; 6],
    pub acc: [&'static str; 6],
    pub genitive: [&'static str; 6],
    pub plural: [&'static str; 6],
    /// After "no": "no knights", "нет коней", "nie mają skoczków".
    pub none: [&'static str; 6],
    pub gender: [Gender; 6],
}

impl Names {
    pub fn get(&self, role: Role, case: Case) -> &'static str {
        let i = role as usize - 1;
        match case {
            Case::Nom => self.nom[i],
            Case::Acc => self.acc[i],
            Case::Gen => self.genitive[i],
        }
    }

    pub fn gender(&self, role: Role) -> Gender {
        self.gender[role as usize - 1]
    }
}

/// Forms of a counted word for the plural classes one, few, many.
pub(crate) type Unit = [&'static str; 3];

/// One sentence about a side, said to nobody in particular (blanks `{side}`,
/// `{side_gen}`, `{side_dat}` for that side and `{other}`, `{other_gen}`,
/// `{other_dat}` for its opponent), to that side's player, and to the
/// opponent's player.
pub(crate) type Persons = [&'static str; 3];

/// How the game ended, one sentence each; "win" sentences are about the
/// winner, the others about the side they name.
pub(crate) struct Endings {
    pub checkmate: Persons,
    /// About the winner: the other side resigned.
    pub resignation: Persons,
    /// About the side whose flag fell.
    pub flag_fall: Persons,
    pub flag_fall_draw: Persons,
    /// About the side whose second illegal move it was (7.5.5).
    pub illegal: Persons,
    pub illegal_draw: Persons,
    /// About the claimant; `{claim}`.
    pub claimed: Persons,
    pub stalemate: &'static str,
    pub dead_position: &'static str,
    pub fivefold: &'static str,
    pub seventy_five: &'static str,
    pub agreement: &'static str,
    /// About the winner.
    pub arbiter: Persons,
    pub arbiter_draw: &'static str,
}

/// What is only written, never said: for the arbiter's page, the events'
/// `detail` and the game record, where a reader wants the reasons.
pub(crate) struct WrittenOnly {
    /// The board showed one move, then another, before the press (4.7):
    /// `{side}`, `{first}`, `{then}`.
    pub observation: &'static str,
    /// After a flag fall or a second illegal move (6.9, 7.5.5): the search
    /// did not settle within its limit whether `{side}` can checkmate; the
    /// loss stands.
    pub undetermined: &'static str,
}

/// The terminal's status line: both clocks, the move, who is to move.
pub(crate) struct Status {
    /// `{white}`, `{black}`: H:MM:SS; `{move}`: the move number; `{state}`:
    /// one of the two below.
    pub line: &'static str,
    /// `[White, Black]` to move.
    pub to_move: [&'static str; 2],
    pub stopped: &'static str,
}

pub(crate) struct Online {
    /// The online opponent's move, to be carried out: `{name}`, `{move}`.
    pub opponent_move: &'static str,
    /// The online opponent castles, `[short, long]`: `{name}` ("Magnus
    /// castles short"); a check follows after a comma.
    pub castles: [&'static str; 2],
    /// The game the board plays: `{name}` (the opponent), `{side}`.
    pub playing: &'static str,
    /// The side the board plays, `[white, black]`, as `{side}` takes it.
    pub sides: [&'static str; 2],
    /// A challenge `[to the account, by it]`: `{name}`, `{clock}`.
    pub challenge: [&'static str; 2],
    /// A challenge's clock when it has none (days per move), as `{clock}`.
    pub correspondence: &'static str,
    /// A challenge `[withdrawn, declined]`.
    pub challenge_gone: [&'static str; 2],
    /// The opponent's takeback request `[made, withdrawn]`.
    pub takeback_offer: [&'static str; 2],
    pub taken_back: &'static str,
    /// The server refused the board's move: `{move}`.
    pub refused: &'static str,
    /// The player's own move, made on the website, to be carried out on
    /// the board: `{move}`.
    pub website_move: &'static str,
    /// The board set back asks the server for a take-back.
    pub take_back_asked: &'static str,
    /// The opponent declined the take-back the board asked for.
    pub takeback_declined: &'static str,
    /// The opponent's chat line: `{name}`, `{text}`.
    pub chat: &'static str,
    /// `[the opponent left, left and the win may be claimed, back]`.
    pub opponent_gone: [&'static str; 3],
    /// The server ended the game: `{status}`, one of `statuses`.
    pub ended: &'static str,
    /// `[aborted, the opponent left, time is up, no first move, other]`.
    pub statuses: [&'static str; 5],
    /// `{seconds}`.
    pub rate_limited: &'static str,
    /// A request not carried out, in the order of `FailedWhy`: no game,
    /// a move that cannot be sent, too many waiting, refused, the network,
    /// the token, a pause asked for.
    pub failed_why: [&'static str; 7],
    /// Lichess's own AI as an opponent's name: `{level}`.
    pub ai_name: &'static str,
    /// Why a game is not played, with what to do, in the order of
    /// `NotPlayedReason`: another game, not the Board API's, a variant, no
    /// side, neither side the account's, sides that disagree, another
    /// game's stream, illegal moves, a start position, gone.
    pub not_played_why: [&'static str; 10],
    /// The board's token `[refused, unknown, lacks board:play, accepted again]`.
    pub token: [&'static str; 4],
    /// More chat lines than are said at once: `{count}` of `chat_lines`.
    pub chat_held: &'static str,
    /// The counted chat lines.
    pub chat_lines: Unit,
    /// `online chat` with no line held back.
    pub no_chat: &'static str,
    /// A player's answer sent to the server, `[abort, takeback no, takeback
    /// yes, accept, decline, claim the win]`.
    pub asked: [&'static str; 6],
    /// Nothing stands to answer: `[no game, no draw offer, no takeback
    /// request, no challenge]`.
    pub nothing_to_answer: [&'static str; 4],
}

/// Two boards, one game: what the partner board's link says.
pub(crate) struct PairWords {
    /// The sides as "plays {side}" takes them: White, Black.
    pub sides: [&'static str; 2],
    /// The partner plays this board's side too: `{partner}`, `{side}`.
    pub same_side: &'static str,
    /// Another time control there: `{partner}`, `{ours}`, `{theirs}`.
    pub time_control: &'static str,
    /// A time control that is none, in `{ours}` or `{theirs}`.
    pub no_clock: &'static str,
    /// The boards disagree on where the clock at the table is: `{partner}`.
    pub table_clock: &'static str,
    /// The partner plays another game: `{partner}`.
    pub other_game: &'static str,
    /// Another daemon on the broker goes by this board's name: `{board}`.
    pub twin: &'static str,
    /// After a mismatch, the boards agree: `{partner}`.
    pub agreed: &'static str,
    /// After a restart, about the side on move: how the game goes on.
    pub goes_on: Persons,
    /// After a restart, the partner's move to carry out first; about the
    /// side whose move it is.
    pub goes_on_carrying: Persons,
    /// After a restart: the clocks run, stay stopped (6.11), or wait for
    /// the next press at the table.
    pub clocks: [&'static str; 3],
}

pub(crate) struct Lexicon {
    pub pieces: Names,
    pub annex_pieces: Names,
    /// `[colour][case][gender]`, cases in the order of `Case`: "white",
    /// "weißen", "белого", "białej".
    pub adjectives: [[[&'static str; 2]; 3]; 2],
    /// `[White, Black]` before a plural, without an article: "weiße".
    pub adjectives_plural: [&'static str; 2],
    /// A piece said to a listener, `[own, opponent's][case][gender]`, in
    /// the order of `Case`: templates of `{piece}` ("your {piece}",
    /// "{piece} соперника"); an own piece takes no article besides.
    pub whose: [[[&'static str; 2]; 3]; 2],
    /// The same before a plural, `{pieces}`.
    pub whose_plural: [&'static str; 2],
    /// Definite article before an accusative piece, by gender ("the ", "den ").
    pub the: [&'static str; 2],
    /// Definite article before a nominative piece, by gender ("der ", "die ").
    pub the_nom: [&'static str; 2],
    /// Indefinite article before an accusative piece, by gender ("eine ").
    pub a: [&'static str; 2],
    /// "your" before a piece, by gender and then the plural.
    pub your: [&'static str; 3],
    /// A piece of unknown kind, in the order of `Case`.
    pub generic: [&'static str; 3],
    pub nato_files: [&'static str; 8],
    pub annex_files: [&'static str; 8],
    pub rank_words: [&'static str; 8],
    pub annex_ranks: [&'static str; 8],
    /// Between a move's two squares: "knight g8 to f6".
    pub to: &'static str,
    /// A piece two of its kind could have moved, said from its square
    /// (`{piece}`, `{from}`, `{to}`), `[a move, a capture]`: "knight from
    /// e4 to c5", "knight on e4 takes c5".
    pub from_to: [&'static str; 2],
    /// Squares or lines in a row, `{first}`, `{last}`: "a2 to d2".
    pub run: &'static str,
    /// Whether a file's letter said alone is heard as one: not where "a" is
    /// also a word ("и, а", "a" in Polish); pieces on a rank are then said
    /// with their squares in the letter styles.
    pub letters_alone: bool,
    /// Whether ranks in a row are said as a `run`; else they are listed
    /// (a Slavic range needs ordinals the voice does not make).
    pub rank_runs: bool,
    /// Ranks with nothing on them, `{list}`.
    pub empty_ranks: &'static str,
    /// King side, queen side.
    pub castles: [&'static str; 2],
    pub annex_castles: [&'static str; 2],
    /// `[White, Black]`: subject, genitive, dative.
    pub sides: [[&'static str; 3]; 2],
    /// "You play White.", "You play Black."
    pub you_play: [&'static str; 2],
    pub takes: &'static str,
    pub check: &'static str,
    pub mate: &'static str,
    pub en_passant: &'static str,
    pub or: &'static str,
    /// `{move}`, `{piece}` / `{piece_acc}` / `{a_piece}`.
    pub promotion: &'static str,
    pub correction: &'static str,
    pub withdrawn: &'static str,
    /// `{move}`.
    pub last_move: Persons,
    /// `{piece}`: "knight g1" or "black knight g6".
    pub touch: &'static str,

    // Rulings (who, what, what next).
    /// An illegal move ruled at once (7.5.1): `{reason}`.
    pub illegal: Persons,
    /// The clock pressed without a move (7.5.3).
    pub no_move: Persons,
    /// Why a move is illegal.
    pub king_in_check: &'static str,
    /// `{piece}` / `{the_piece}` (nominative), `{from}`, `{to}`.
    pub cannot_move: &'static str,
    pub cannot_move_generic: &'static str,
    pub castling_not_allowed: &'static str,
    pub unrecognised: &'static str,
    pub moves_again: Persons,
    /// 7.5.1 applies 4.3 to the replacing move: `{piece_acc}` / `{the_piece}`, `{sq}`.
    pub moves_again_touched: Persons,
    /// An illegal move that stands unless the opponent claims (A.5.2): `{reason}`.
    pub stands: Persons,
    /// After the move stood: 4.3.1 `{the_piece}` / `{piece_acc}` / `{piece_gen}`, `{sq}`.
    pub touched_own: Persons,
    /// 4.3.2: the opponent's piece, with its colour.
    pub touched_opp: Persons,
    /// 4.3.3: the own piece.
    pub touched_both: Persons,
    pub touched_generic: Persons,
    /// 4.4.2: `{sq}` of the rook.
    pub rook_first: Persons,
    /// 7.4.1: the move stands, the pieces go back.
    pub displaced: Persons,

    /// Steps that put the board right: `{piece}` / `{the_piece}` / `{piece_acc}`, `{from}`, `{to}`.
    pub fix_move: &'static str,
    pub fix_put: &'static str,
    pub fix_remove: &'static str,
    pub board_differs: &'static str,
    /// `{list}`.
    pub missing: &'static str,
    pub extra: &'static str,
    pub board_ok: &'static str,

    /// The engine's move, `{move}`: from its square to its square.
    pub engine_move: &'static str,
    /// The engine's move asked for again mid-move: `{steps}` still to do.
    pub left: &'static str,
    /// Steps of a move carried out for the engine, as `fix_*` (and
    /// `{a_piece}`, a promotion's new piece).
    pub step_move: &'static str,
    pub step_put: &'static str,
    pub step_remove: &'static str,
    /// Joins the steps: "; then ".
    pub then: &'static str,
    /// A piece not of the engine's move lifted: `{piece}`…, `{sq}`; the
    /// step expected instead follows after `then`.
    pub not_that_one: &'static str,
    /// A piece on a wrong square: `{piece}`…, `{the_piece_nom}`, `{sq}`, `{belongs}`.
    pub misplaced: &'static str,
    /// A piece that must come off the board: `{piece}`…, `{sq}`.
    pub misplaced_off: &'static str,
    /// A square left empty: `{piece}`…, `{sq}`.
    pub missing_piece: &'static str,
    /// Another legal move than the engine's: `{move}`.
    pub other_move: &'static str,
    /// The partner board's move (one game on two boards), `{move}`.
    pub partner_move: &'static str,
    /// Another legal move than the partner's: `{move}`.
    pub partner_other_move: &'static str,
    /// Part of the engine's move done that reads as another move: `{step}`, the next.
    pub halfway: &'static str,
    /// The engine's suggestion: `{move}`.
    pub hint: &'static str,
    /// The engine's level set: `{level}`.
    pub engine_level: &'static str,
    /// Moves taken back against the engine, `[one, more]`: `{moves}`, in
    /// the order played.
    pub take_back: [&'static str; 2],
    /// A device not answering, and answering again: `[board, clock, engine, online server, partner board]`.
    pub device_lost: [&'static str; 5],
    pub device_back: [&'static str; 5],
    /// A device whose task in the daemon has ended, so it is not tried
    /// again: `[board, clock, engine, online server, partner board]`.
    pub device_ended: [&'static str; 5],
    /// Why a device was lost, said after `device_lost`: `[no start, exited,
    /// no answer, faulty, I/O, unplugged, connection]`. No pronoun: a
    /// device's noun has a gender of its own.
    pub lost_cause: [&'static str; 7],
    /// The terminal's status line.
    pub status: Status,
    /// What the online game's server says besides the moves.
    pub online: Online,
    /// Two boards, one game.
    pub pair: PairWords,
    /// A draw offered (9.1.2), and declined by the move of the side offered it.
    pub draw_offer: Persons,
    /// A draw offered at another time than after the offerer's move (9.1.2.1).
    pub draw_offer_irregular: Persons,
    pub draw_declined: Persons,
    /// The promotion selector set: `{piece}`, `{piece_acc}`, `{a_piece}`.
    pub promotion_choice: &'static str,
    /// Why an input changes nothing, in the order of `NotNow`.
    pub not_now: [&'static str; 7],
    /// `NotNow`'s carry-out-first and not-moved-yet when the opponent is a
    /// player far away (online, a partner board), not an engine.
    pub not_now_opponent: [&'static str; 2],
    /// A move announced and not yet carried out on the board, about the
    /// side that makes it (a question about the board comes meanwhile):
    /// `{move}`, from its square to its square.
    pub pending: Persons,
    /// A typed command not understood: `{typed}`.
    pub not_understood: &'static str,
    /// `{square}`: a sensor taken to be stuck, and believed again.
    pub sensor_fault: &'static str,
    pub sensor_ok: &'static str,

    pub new_game: &'static str,
    /// The round's pairing at set-up: `{board}`, `{round}`, `{white}`,
    /// `{black}` (the names as the pairing program writes them,
    /// "Lastname, Firstname").
    pub pairing: &'static str,
    /// `{list}`: the pieces of White's first rank, a to h.
    pub chess960: &'static str,
    /// Time given to a side, `{time}`: after an illegal move (7.5.5).
    pub gets_time: Persons,
    /// After an illegal move that stood was claimed: about the claimant.
    pub claim_upheld: Persons,
    /// An incorrect draw claim (9.5.3): about the side that gets the time.
    pub claim_rejected: Persons,
    /// Time the arbiter adds (12.9).
    pub arbiter_adds: Persons,
    pub game_over: &'static str,
    pub endings: Endings,
    /// `{first}`, `{then}`.
    pub observation: &'static str,
    /// What only the written word says.
    pub written: WrittenOnly,
    /// `{chosen}`, `{others}`.
    pub ambiguous: &'static str,
    /// `{claim}`.
    pub claimable: Persons,
    /// Threefold repetition, fifty moves: what a draw is claimed by.
    pub claims: [&'static str; 2],
    pub paused: &'static str,
    pub resumed: &'static str,
    /// `{times}`.
    pub clock_set: &'static str,

    /// `{time}`: one side's time in a readout.
    pub side_time: Persons,
    /// `{times}`, `{n}`: the times and the number of the move being played.
    pub time_readout: &'static str,
    /// Added to a readout while the clocks are stopped.
    pub time_stopped: &'static str,
    pub to_play: Persons,
    /// `{time}`.
    pub time_warning: Persons,
    /// A new period's time added at the control: `{time}`.
    pub period_added: Persons,
    /// `{n}`, `{moves}`: one side's moves to the control.
    pub to_control: Persons,
    /// `{list}`, `{at}`: the sides' moves to the control, and the move it is at.
    pub moves_to_control: &'static str,
    /// `{time}`: what the next period adds.
    pub then_added: &'static str,
    pub no_control: &'static str,
    pub moves: Unit,
    pub hours: Unit,
    pub minutes: Unit,
    pub seconds: Unit,
    /// Plural class of a count: 0 one, 1 few, 2 many.
    pub plural: fn(u64) -> usize,

    /// A whole army, `{list}`.
    pub army: Persons,
    /// One kind of piece, `{name}` (singular or plural), `{your}`, `{list}`.
    pub kind: Persons,
    /// `{none}`: "White has no knights".
    pub no_kind: Persons,
    /// `{rank}`, `{list}`.
    pub rank_pieces: &'static str,
    /// `{file}`, `{list}`.
    pub file_pieces: &'static str,
    /// `{square}`, `{piece}`.
    pub square_piece: &'static str,
    pub square_empty: &'static str,
    /// After the pieces of one kind, where the board shows them otherwise:
    /// `[{list} of squares, none]`.
    pub kind_on_board: [&'static str; 2],
    /// A square where the board differs from the game: `{square}`,
    /// `{board}`, `{game}`, each a piece (nominative) or `vacant`.
    pub square_differs: &'static str,
    pub empty: &'static str,
    /// An empty square in `square_differs`.
    pub vacant: &'static str,
    /// A piece the sensors cannot tell, in `square_differs`.
    pub a_piece: &'static str,
}

pub(crate) fn lexicon(lang: Lang) -> &'static Lexicon {
    match lang {
        Lang::En => &en::LEXICON,
        Lang::De => &de::LEXICON,
        Lang::Ru => &ru::LEXICON,
        Lang::Pl => &pl::LEXICON,
    }
}

impl Lexicon {
    pub fn adjective(&self, color: Color, case: Case, gender: Gender) -> &'static str {
        self.adjectives[side_index(color)][case_index(case)][gender_index(gender)]
    }

    /// "your {piece}" or the opponent's, for the listener.
    pub fn whose(&self, own: bool, case: Case, gender: Gender) -> &'static str {
        self.whose[usize::from(!own)][case_index(case)][gender_index(gender)]
    }

    /// "1 hour 23 minutes", "45 minutes 10 seconds", "8 seconds": hours and
    /// minutes above an hour, minutes and seconds below, zero parts left out.
    pub fn duration(&self, ms: i64) -> String {
        let t = tactus_clock::Hms::down(ms);
        let (h, m, sec) = (t.h, u64::from(t.m), u64::from(t.s));
        let parts = if h > 0 {
            vec![(h, &self.hours), (m, &self.minutes)]
        } else if m > 0 {
            vec![(m, &self.minutes), (sec, &self.seconds)]
        } else {
            return self.count(sec, &self.seconds);
        };
        let said: Vec<String> = parts.into_iter().filter(|(n, _)| *n > 0).map(|(n, u)| self.count(n, u)).collect();
        said.join(" ")
    }

    /// "1 minute", "22 секунды", "5 posunięć".
    pub fn count(&self, n: u64, unit: &Unit) -> String {
        format!("{n} {}", unit[(self.plural)(n)])
    }
}

fn case_index(case: Case) -> usize {
    match case {
        Case::Nom => 0,
        Case::Acc => 1,
        Case::Gen => 2,
    }
}

pub(crate) fn gender_index(gender: Gender) -> usize {
    match gender {
        Gender::M => 0,
        Gender::F => 1,
    }
}

pub(crate) fn side_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// English and German: one, many.
pub(crate) fn plural_one_many(n: u64) -> usize {
    if n == 1 { 0 } else { 2 }
}

/// Slavic counting: 1, 21 (ru only) one; 2–4, 22–24 few; the rest many.
pub(crate) fn plural_slavic(n: u64, one_ends_in_1: bool) -> usize {
    let (d, dd) = (n % 10, n % 100);
    if n == 1 || (one_ends_in_1 && d == 1 && dd != 11) {
        0
    } else if (2..=4).contains(&d) && !(12..=14).contains(&dd) {
        1
    } else {
        2
    }
}

/// Fills the named blanks of a template, in one pass: what a value says
/// (a name, a chat line with braces in it) is never taken for a blank. A
/// blank not given stays, for a later fill.
pub(crate) fn fill(template: &str, blanks: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let given = after.find('}').and_then(|close| {
            let name = &after[..close];
            blanks.iter().find(|(n, _)| *n == name).map(|(_, value)| (*value, close))
        });
        match given {
            Some((value, close)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text as the synthesiser should read it. The written text stays right
/// for the eye (transcripts, braille: "e5", "1 минута", "Laeufer"); the
/// voice gets what it reads as the Laws mean it: espeak-ng phoneme input
/// (`[[…]]`) for the Annex D words it misreads, respellings, feminine
/// numerals ("одна минута", "dwie minuty", "eine Minute"), Cyrillic square
/// names in Russian, the file letter "a" in English. `tests/phonemes.rs`
/// runs espeak-ng on every word as this returns it.
pub fn spoken(lang: Lang, text: &str) -> String {
    match lang {
        Lang::En => en::spoken(text),
        Lang::De => de::spoken(text),
        Lang::Ru => ru::spoken(text),
        Lang::Pl => pl::spoken(text),
    }
}

/// Replaces the words of `text` found in `table`; a word capitalised at the
/// start of a sentence is found by its lower-case form too.
pub(crate) fn respell(text: &str, table: &[(&str, &str)]) -> String {
    let find = |w: &str| table.iter().find(|(from, _)| *from == w).map(|(_, to)| (*to).to_owned());
    map_words(text, |w| {
        find(w).or_else(|| {
            let mut chars = w.chars();
            let first = chars.next()?;
            first.is_uppercase().then(|| first.to_lowercase().chain(chars).collect::<String>()).and_then(|l| find(&l))
        })
    })
}

/// Rewrites the words of `text` (runs of letters and digits) that `f` maps,
/// keeping spaces and punctuation.
pub(crate) fn map_words(text: &str, f: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            out.push_str(&f(word).unwrap_or_else(|| word.clone()));
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// For languages whose feminine time units need a different numeral: replaces
/// a count before a word starting with one of `units` by what `say` returns.
pub(crate) fn numerals_before(text: &str, units: &[&str], say: impl Fn(u64) -> Option<String>) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let next_is_unit = words.get(i + 1).is_some_and(|n| units.iter().any(|u| n.starts_with(u)));
        match (next_is_unit, w.parse::<u64>()) {
            (true, Ok(n)) => out.push(say(n).unwrap_or_else(|| (*w).to_owned())),
            _ => out.push((*w).to_owned()),
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_forms() {
        let ru = lexicon(Lang::Ru);
        let forms: Vec<&str> = [1, 2, 5, 11, 12, 21, 22, 25].iter().map(|&n| ru.minutes[(ru.plural)(n)]).collect();
        assert_eq!(forms, ["минута", "минуты", "минут", "минут", "минут", "минута", "минуты", "минут"]);
        let pl = lexicon(Lang::Pl);
        let forms: Vec<&str> = [1, 2, 5, 12, 21, 22].iter().map(|&n| pl.minutes[(pl.plural)(n)]).collect();
        assert_eq!(forms, ["minuta", "minuty", "minut", "minut", "minut", "minuty"]);
        assert_eq!(pl.count(22, &pl.moves), "22 posunięcia");
        assert_eq!(ru.count(11, &ru.moves), "11 ходов");
        let de = lexicon(Lang::De);
        assert_eq!(de.duration(60_000), "1 Minute");
        assert_eq!(de.duration(120_000), "2 Minuten");
    }

    #[test]
    fn durations() {
        let en = lexicon(Lang::En);
        assert_eq!(en.duration(5_000_000), "1 hour 23 minutes");
        assert_eq!(en.duration(2_710_000), "45 minutes 10 seconds");
        assert_eq!(en.duration(3_600_000), "1 hour");
        assert_eq!(en.duration(8_999), "8 seconds");
        assert_eq!(en.duration(-5), "0 seconds");
    }

    #[test]
    fn numerals_agree_with_feminine_units() {
        assert_eq!(spoken(Lang::Ru, "1 минута 22 секунды"), "одна минута 20 две секунды");
        assert_eq!(spoken(Lang::Pl, "1 minuta 2 sekundy, 21 minut"), "jedna minuta dwie sekundy, 21 minut");
        assert_eq!(spoken(Lang::De, "1 Minute 1 Sekunde, 21 Minuten"), "eine Minute eine Sekunde, 21 Minuten");
    }

    /// The blanks of a sentence said to a player are that player's: a
    /// template for "you" or "your opponent" naming a side would read wrong.
    #[test]
    fn sentences_to_a_player_name_no_side() {
        for lang in Lang::ALL {
            let lex = lexicon(lang);
            let e = &lex.endings;
            let all: [&Persons; 38] = [
                &lex.pair.goes_on,
                &lex.pair.goes_on_carrying,
                &lex.last_move,
                &lex.pending,
                &lex.draw_offer_irregular,
                &lex.illegal,
                &lex.no_move,
                &lex.moves_again,
                &lex.moves_again_touched,
                &lex.stands,
                &lex.touched_own,
                &lex.touched_opp,
                &lex.touched_both,
                &lex.touched_generic,
                &lex.rook_first,
                &lex.displaced,
                &lex.gets_time,
                &lex.claim_upheld,
                &lex.claim_rejected,
                &lex.arbiter_adds,
                &lex.claimable,
                &lex.side_time,
                &lex.to_play,
                &lex.time_warning,
                &lex.period_added,
                &lex.to_control,
                &lex.army,
                &lex.kind,
                &lex.no_kind,
                &e.checkmate,
                &e.resignation,
                &e.flag_fall,
                &e.flag_fall_draw,
                &e.illegal,
                &e.illegal_draw,
                &e.claimed,
                &e.arbiter,
                &lex.illegal,
            ];
            for persons in all {
                for said in &persons[1..] {
                    for blank in ["{side", "{other"] {
                        assert!(!said.contains(blank), "{lang}: {said:?} names a side");
                    }
                }
            }
        }
    }
}
