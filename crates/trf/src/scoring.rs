//! Points: how many a result is worth, by the file's point system — TRF-26's
//! `162` record, JaVaFo's `XXS` lines, or the defaults both name (a win 1,
//! a draw ½).

use std::fmt;

use crate::round::Colour;
use crate::{Code, Problem};

/// Points in tenths, as the layout writes them (`11.5`: one decimal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points(pub i32);

impl Points {
    /// `11.5`, `0.0`, `-1.5`: one decimal, no more.
    pub fn parse(text: &str) -> Option<Points> {
        let text = text.trim();
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, tenth) = match digits.split_once('.') {
            Some((whole, "")) => (whole, "0"),
            Some((whole, tenth)) => (whole, tenth),
            None => (digits, "0"),
        };
        let digit_run = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
        if !(digit_run(whole) && tenth.len() == 1 && digit_run(tenth)) {
            return None;
        }
        let value = whole.parse::<i32>().ok()? * 10 + tenth.parse::<i32>().ok()?;
        Some(Points(if negative { -value } else { value }))
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let text = format!("{sign}{}.{}", self.0.abs() / 10, self.0.abs() % 10);
        f.pad(&text)
    }
}

/// What a result is worth, each kind on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoring {
    white_win: Points,
    black_win: Points,
    white_draw: Points,
    black_draw: Points,
    white_loss: Points,
    black_loss: Points,
    forfeit_win: Points,
    forfeit_loss: Points,
    full_bye: Points,
    half_bye: Points,
    pairing_bye: Points,
    zero_bye: Points,
}

impl Default for Scoring {
    /// Both layouts' defaults: a win (and a forfeit win, a full-point bye,
    /// the pairing-allocated bye) 1, a draw (and a half-point bye) ½, the rest 0.
    fn default() -> Scoring {
        let (one, half, zero) = (Points(10), Points(5), Points(0));
        Scoring {
            white_win: one,
            black_win: one,
            white_draw: half,
            black_draw: half,
            white_loss: zero,
            black_loss: zero,
            forfeit_win: one,
            forfeit_loss: zero,
            full_bye: one,
            half_bye: half,
            pairing_bye: one,
            zero_bye: zero,
        }
    }
}

impl Scoring {
    /// What a result code is worth to the player with `colour` (a blank is
    /// a zero-point bye, as both layouts say).
    pub fn value(&self, code: Option<Code>, colour: Option<Colour>) -> Points {
        let white = colour != Some(Colour::Black);
        let by_colour = |w: Points, b: Points| if white { w } else { b };
        match code {
            Some(Code::Win | Code::WinUnrated) => by_colour(self.white_win, self.black_win),
            Some(Code::Draw | Code::DrawUnrated) => by_colour(self.white_draw, self.black_draw),
            Some(Code::Loss | Code::LossUnrated) => by_colour(self.white_loss, self.black_loss),
            Some(Code::ForfeitWin) => self.forfeit_win,
            Some(Code::ForfeitLoss) => self.forfeit_loss,
            Some(Code::FullBye) => self.full_bye,
            Some(Code::HalfBye) => self.half_bye,
            Some(Code::PairingBye) => self.pairing_bye,
            Some(Code::ZeroBye) | None => self.zero_bye,
        }
    }

    /// TRF-26's `162`: a result's symbol at column 6 and its points in
    /// columns 7–10, then again every nine columns (15 and 16–19, 24 and
    /// 25–28, …). `W` (a win, a forfeit win, a full-point bye), `D` (a draw,
    /// a half-point bye), `L` (a loss), `A` (a forfeit loss, a zero-point
    /// bye), `P` (the pairing-allocated bye: as `W` unless given), `X`
    /// (an unknown result, which a round's results never are).
    pub fn read_162(&mut self, line: &[char]) -> Result<(), (usize, Problem)> {
        let mut pairing_bye = None;
        let mut symbol_at = 6;
        while symbol_at <= line.len() {
            let symbol = line[symbol_at - 1];
            let field: String = line.iter().skip(symbol_at).take(4).collect();
            if symbol == ' ' && field.trim().is_empty() {
                break;
            }
            let points = Points::parse(&field).ok_or_else(|| {
                (symbol_at + 1, Problem::Scoring(format!("{field:?} is not points (the format 11.5) for {symbol:?}")))
            })?;
            match symbol.to_ascii_uppercase() {
                'W' => {
                    (self.white_win, self.black_win, self.forfeit_win, self.full_bye) = (points, points, points, points)
                }
                'D' => (self.white_draw, self.black_draw, self.half_bye) = (points, points, points),
                'L' => (self.white_loss, self.black_loss) = (points, points),
                'A' => (self.forfeit_loss, self.zero_bye) = (points, points),
                'P' => pairing_bye = Some(points),
                'X' => {}
                other => {
                    return Err((
                        symbol_at,
                        Problem::Scoring(format!("{other:?} is not a result's symbol: W D L A P X")),
                    ));
                }
            }
            symbol_at += 9;
        }
        self.pairing_bye = pairing_bye.unwrap_or(self.white_win);
        Ok(())
    }

    /// JaVaFo's `XXS CODE=VALUE …` (several lines may follow each other,
    /// later values count): `WW`, `BW` (a win with White, Black), `WD`,
    /// `BD`, `WL`, `BL`, `ZPB`, `HPB`, `FPB`, `PAB`, `FW` (forfeit win),
    /// `FL` (forfeit loss), and the short `W` (WW, BW, FW, FPB), `D` (WD,
    /// BD, HPB), `L` (WL, BL).
    pub fn read_xxs(&mut self, line: &[char]) -> Result<(), (usize, Problem)> {
        // Each word with its first column (1-based), after the code.
        let mut words: Vec<(usize, String)> = Vec::new();
        for (i, c) in line.iter().enumerate().skip(3) {
            match (c, words.last_mut()) {
                (' ', _) => {}
                (c, Some((start, word))) if *start + word.chars().count() == i + 1 => word.push(*c),
                (c, _) => words.push((i + 1, c.to_string())),
            }
        }
        for (at, word) in words {
            let bad = || (at, Problem::Scoring(format!("{word:?} is not CODE=points (WW=1.0)")));
            let (code, value) = word.split_once('=').ok_or_else(bad)?;
            let p = Points::parse(value).ok_or_else(bad)?;
            match code.to_ascii_uppercase().as_str() {
                "WW" => self.white_win = p,
                "BW" => self.black_win = p,
                "WD" => self.white_draw = p,
                "BD" => self.black_draw = p,
                "WL" => self.white_loss = p,
                "BL" => self.black_loss = p,
                "ZPB" => self.zero_bye = p,
                "HPB" => self.half_bye = p,
                "FPB" => self.full_bye = p,
                "PAB" => self.pairing_bye = p,
                "FW" => self.forfeit_win = p,
                "FL" => self.forfeit_loss = p,
                "W" => (self.white_win, self.black_win, self.forfeit_win, self.full_bye) = (p, p, p, p),
                "D" => (self.white_draw, self.black_draw, self.half_bye) = (p, p, p),
                "L" => (self.white_loss, self.black_loss) = (p, p),
                _ => return Err(bad()),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_have_one_decimal() {
        assert_eq!(Points::parse(" 1.5"), Some(Points(15)));
        assert_eq!(Points::parse("10"), Some(Points(100)));
        assert_eq!(Points::parse("3."), Some(Points(30)));
        assert_eq!(Points::parse("-0.5"), Some(Points(-5)));
        for bad in ["", "1.25", "a", "1,5", ".5", "12345"] {
            assert_eq!(Points::parse(bad), None, "{bad:?}");
        }
        assert_eq!(format!("{:>4}", Points(15)), " 1.5");
        assert_eq!(format!("{:>4}", Points(170)), "17.0");
        assert_eq!(Points(-5).to_string(), "-0.5");
    }

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn record_162_sets_what_it_names() {
        let mut s = Scoring::default();
        s.read_162(&chars("162  W 3.0    D 1.0    L 0.0")).unwrap();
        assert_eq!(s.value(Some(Code::Win), Some(Colour::Black)), Points(30));
        assert_eq!(s.value(Some(Code::ForfeitWin), None), Points(30));
        assert_eq!(s.value(Some(Code::PairingBye), None), Points(30), "P is as W unless given");
        assert_eq!(s.value(Some(Code::HalfBye), None), Points(10));
        assert_eq!(s.value(None, None), Points(0));
        let e = Scoring::default().read_162(&chars("162  Q 3.0")).unwrap_err();
        assert_eq!(e.0, 6);
        let e = Scoring::default().read_162(&chars("162  W 3,0")).unwrap_err();
        assert_eq!(e.0, 7);
    }

    #[test]
    fn xxs_sets_each_code() {
        let mut s = Scoring::default();
        s.read_xxs(&chars("XXS BW=1.5 D=0.4  FL=-1.0")).unwrap();
        assert_eq!(s.value(Some(Code::Win), Some(Colour::Black)), Points(15));
        assert_eq!(s.value(Some(Code::Win), Some(Colour::White)), Points(10));
        assert_eq!(s.value(Some(Code::Draw), Some(Colour::White)), Points(4));
        assert_eq!(s.value(Some(Code::ForfeitLoss), None), Points(-10));
        let e = Scoring::default().read_xxs(&chars("XXS WW=1 QQ=2")).unwrap_err();
        assert_eq!(e.0, 10);
    }
}
