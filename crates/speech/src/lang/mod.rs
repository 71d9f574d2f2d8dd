//! Each language as data: its chess words, its sentence templates and its
//! grammar (gender, case, plural). `words.rs` assembles phrases from these;
//! a language file holds no logic beyond its own grammar and pronunciation.
//!
//! Templates name their blanks (`{piece}`, `{sq}`); a template uses only the
//! blanks its language needs, so Russian can ask for `{piece_acc}` where
//! English is happy with `{piece}`.

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
    pub plural: [&'static str; 6],
    pub gender: [Gender; 6],
}

impl Names {
    pub fn get(&self, role: Role, case: Case) -> &'static str {
        let i = role as usize - 1;
        match case {
            Case::Nom => self.nom[i],
            Case::Acc => self.acc[i],
        }
    }
}

/// Forms of a unit of time for the plural classes one, few, many.
pub(crate) type Unit = [&'static str; 3];

pub(crate) struct Lexicon {
    pub pieces: Names,
    pub annex_pieces: Names,
    /// `[colour][case][gender]`: "white", "weißer", "белого", "białą".
    pub adjectives: [[[&'static str; 2]; 2]; 2],
    /// A piece of unknown kind, nominative and accusative.
    pub generic: [&'static str; 2],
    pub nato_files: [&'static str; 8],
    pub annex_files: [&'static str; 8],
    pub rank_words: [&'static str; 8],
    pub annex_ranks: [&'static str; 8],
    /// King side, queen side.
    pub castles: [&'static str; 2],
    pub annex_castles: [&'static str; 2],
    /// `[White, Black]` as the subject, and in the genitive ("of White").
    pub sides: [&'static str; 2],
    pub sides_gen: [&'static str; 2],
    pub takes: &'static str,
    pub check: &'static str,
    pub mate: &'static str,
    pub en_passant: &'static str,
    pub or: &'static str,
    /// `{move}`, `{piece}` / `{piece_acc}`.
    pub promotion: &'static str,
    pub correction: &'static str,
    pub withdrawn: &'static str,
    /// `{side}` / `{side_gen}`, `{move}`.
    pub last_move: &'static str,
    /// `{piece}`: "knight g1" or "black knight g6".
    pub touch: &'static str,

    pub king_in_check: &'static str,
    /// `{piece}`, `{from}`, `{to}`.
    pub cannot_move: &'static str,
    pub cannot_move_generic: &'static str,
    pub castling_not_allowed: &'static str,
    pub unrecognised: &'static str,
    pub no_move: &'static str,
    /// `{piece}` / `{piece_acc}`, `{sq}`.
    pub touch_move: &'static str,
    pub touch_capture: &'static str,
    pub touch_generic: &'static str,
    pub rook_first: &'static str,
    pub displaced: &'static str,

    /// Steps that put the board right: `{piece}` / `{piece_acc}`, `{from}`, `{to}`.
    pub fix_move: &'static str,
    pub fix_put: &'static str,
    pub fix_remove: &'static str,
    pub board_differs: &'static str,
    /// `{list}`.
    pub missing: &'static str,
    pub extra: &'static str,
    pub board_ok: &'static str,
    /// `{square}`: a sensor taken to be stuck, and believed again.
    pub sensor_fault: &'static str,
    pub sensor_ok: &'static str,

    pub new_game: &'static str,
    /// `{list}`: the pieces of White's first rank, a to h.
    pub chess960: &'static str,
    /// `{side}` / `{side_gen}`, `{time}`.
    pub penalty: &'static str,
    /// `{reason}`.
    pub game_over: &'static str,
    /// White wins, Black wins, draw.
    pub results: [&'static str; 3],
    /// In the order of `EndReason`.
    pub end_reasons: [&'static str; 12],
    /// `{first}`, `{then}`.
    pub observation: &'static str,
    /// `{chosen}`, `{others}`.
    pub ambiguous: &'static str,
    /// `{side}`, `{claim}`.
    pub claimable: &'static str,
    /// Threefold repetition, fifty moves.
    pub claims: [&'static str; 2],
    pub paused: &'static str,
    pub resumed: &'static str,
    /// `{times}`.
    pub clock_set: &'static str,

    /// `{side}` / `{side_gen}`, `{time}`: one side's time in a readout.
    pub side_time: &'static str,
    /// `{times}`, `{n}`: the times and the number of the move being played.
    pub time_readout: &'static str,
    /// `{side}` / `{side_gen}`.
    pub to_play: &'static str,
    /// `{side}` / `{side_gen}`, `{time}`.
    pub time_warning: &'static str,
    pub hours: Unit,
    pub minutes: Unit,
    pub seconds: Unit,
    /// Plural class of a count: 0 one, 1 few, 2 many.
    pub plural: fn(u64) -> usize,

    /// `{side}`, `{list}`: one side's pieces in a readout.
    pub side_pieces: &'static str,
    /// `{rank}`, `{list}`.
    pub rank_pieces: &'static str,
    pub empty: &'static str,

    /// What the synthesiser should read instead of the written text; see `spoken`.
    pub respell: &'static [(&'static str, &'static str)],
    pub feminine_numerals: fn(&str) -> String,
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
        let c = side_index(color);
        let k = match case {
            Case::Nom => 0,
            Case::Acc => 1,
        };
        let g = match gender {
            Gender::M => 0,
            Gender::F => 1,
        };
        self.adjectives[c][k][g]
    }

    pub fn side(&self, color: Color) -> &'static str {
        self.sides[side_index(color)]
    }

    pub fn side_gen(&self, color: Color) -> &'static str {
        self.sides_gen[side_index(color)]
    }

    /// "1 hour 23 minutes", "45 minutes 10 seconds", "8 seconds": hours and
    /// minutes above an hour, minutes and seconds below, zero parts left out.
    pub fn duration(&self, ms: i64) -> String {
        let s = u64::try_from(ms.max(0) / 1000).unwrap_or(0);
        let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60);
        let part = |n: u64, unit: &Unit| format!("{n} {}", unit[(self.plural)(n)]);
        let parts = if h > 0 {
            vec![(h, &self.hours), (m, &self.minutes)]
        } else if m > 0 {
            vec![(m, &self.minutes), (sec, &self.seconds)]
        } else {
            return part(sec, &self.seconds);
        };
        let said: Vec<String> = parts.into_iter().filter(|(n, _)| *n > 0).map(|(n, u)| part(n, u)).collect();
        said.join(" ")
    }
}

fn side_index(color: Color) -> usize {
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

/// Fills the named blanks of a template.
pub(crate) fn fill(template: &str, blanks: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in blanks {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// The text as the synthesiser should read it. The written text stays right
/// for the eye (transcripts, braille: "e5", "1 минута", "Laeufer"); espeak-ng
/// needs help with what it reads wrongly: Latin square names in Russian,
/// feminine numerals ("одна минута", "dwie minuty", "eine Minute"), and the
/// German Annex D words in an English or Polish voice.
pub fn spoken(lang: Lang, text: &str) -> String {
    let lex = lexicon(lang);
    let text = (lex.feminine_numerals)(text);
    if lang == Lang::Ru {
        return ru::cyrillic_squares(&text);
    }
    if lex.respell.is_empty() {
        return text;
    }
    map_words(&text, |w| lex.respell.iter().find(|(from, _)| *from == w).map(|(_, to)| (*to).to_owned()))
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

/// Leaves the text as it is.
pub(crate) fn no_change(text: &str) -> String {
    text.to_owned()
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
    fn spoken_forms_fix_what_espeak_misreads() {
        assert_eq!(spoken(Lang::Ru, "конь бьёт e5, 1 минута 22 секунды"), "конь бьёт е 5, одна минута 20 две секунды");
        assert_eq!(spoken(Lang::Pl, "1 minuta 2 sekundy, 21 minut"), "jedna minuta dwie sekundy, 21 minut");
        assert_eq!(spoken(Lang::De, "1 Minute 1 Sekunde, 21 Minuten"), "eine Minute eine Sekunde, 21 Minuten");
        assert_eq!(spoken(Lang::En, "Springer takes Eva fuenf"), "Springer takes Ayva foonf");
    }
}
