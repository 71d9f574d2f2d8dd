//! Which language and which style: `"de:annex-d"` on a command line.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A language the words exist in; each has an espeak-ng voice of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    En,
    De,
    Ru,
    Pl,
}

/// How squares, pieces and castling are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// FIDE Laws Annex D: Anna … Hector, eins … acht, Springer, Kurze Rochade.
    AnnexD,
    /// The language's own chess words: "knight takes e5, check".
    Natural,
    /// Files in the NATO alphabet, ranks as numbers: "knight takes Echo 5".
    Nato,
    /// Every token a word: "knight takes e five".
    Literate,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::En, Lang::De, Lang::Ru, Lang::Pl];

    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Ru => "ru",
            Lang::Pl => "pl",
        }
    }
}

impl Style {
    pub const ALL: [Style; 4] = [Style::AnnexD, Style::Natural, Style::Nato, Style::Literate];

    pub fn name(self) -> &'static str {
        match self {
            Style::AnnexD => "annex-d",
            Style::Natural => "natural",
            Style::Nato => "nato",
            Style::Literate => "literate",
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A language and a style, written `LANG:STYLE` (`de:annex-d`); the style
/// may be left out (`ru`), meaning Annex D.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Choice {
    pub lang: Lang,
    pub style: Style,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.lang, self.style)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    #[error("unknown language {0:?}: choose one of en, de, ru, pl (as LANG:STYLE, e.g. de:annex-d)")]
    Lang(String),
    #[error("unknown style {0:?}: choose one of annex-d, natural, nato, literate (as LANG:STYLE, e.g. de:annex-d)")]
    Style(String),
}

impl FromStr for Lang {
    type Err = ChoiceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ChoiceError::Lang(s.to_owned()))
    }
}

impl FromStr for Style {
    type Err = ChoiceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Style::ALL
            .into_iter()
            .find(|st| st.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ChoiceError::Style(s.to_owned()))
    }
}

impl FromStr for Choice {
    type Err = ChoiceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (lang, style) = match s.split_once(':') {
            Some((lang, style)) => (lang.parse()?, style.parse()?),
            None => (s.parse()?, Style::AnnexD),
        };
        Ok(Choice { lang, style })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lang_and_style() {
        assert_eq!("de:annex-d".parse::<Choice>(), Ok(Choice { lang: Lang::De, style: Style::AnnexD }));
        assert_eq!("PL:Nato".parse::<Choice>().map(|c| c.to_string()), Ok("pl:nato".into()));
        assert_eq!("ru".parse::<Choice>().map(|c| c.style), Ok(Style::AnnexD));
    }

    #[test]
    fn errors_list_the_choices() {
        let e = "fr:natural".parse::<Choice>().unwrap_err().to_string();
        assert!(e.contains("en, de, ru, pl"), "{e}");
        let e = "de:fancy".parse::<Choice>().unwrap_err().to_string();
        assert!(e.contains("annex-d, natural, nato, literate"), "{e}");
    }
}
