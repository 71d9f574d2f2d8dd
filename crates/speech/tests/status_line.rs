//! The terminal's status line, in the player's language: both clocks, the
//! move number, who is to move or that the clocks are stopped.

use shakmaty::Color;
use tactus_speech::{Lang, Style, Words};

fn line(lang: Lang, to_move: Option<Color>) -> String {
    Words::new(lang, Style::Natural).status_line(5_396_000, 5_400_000, 12, to_move)
}

#[test]
fn the_status_line_in_english() {
    assert_eq!(line(Lang::En, Some(Color::Black)), "White 1:29:56 · Black 1:30:00 · move 12, Black to move");
    assert_eq!(line(Lang::En, None), "White 1:29:56 · Black 1:30:00 · move 12, clocks stopped");
}

#[test]
fn the_status_line_in_german() {
    assert_eq!(line(Lang::De, Some(Color::Black)), "Weiß 1:29:56 · Schwarz 1:30:00 · Zug 12, Schwarz am Zug");
    assert_eq!(line(Lang::De, Some(Color::White)), "Weiß 1:29:56 · Schwarz 1:30:00 · Zug 12, Weiß am Zug");
    assert_eq!(line(Lang::De, None), "Weiß 1:29:56 · Schwarz 1:30:00 · Zug 12, Uhren angehalten");
}

#[test]
fn the_status_line_in_russian() {
    assert_eq!(line(Lang::Ru, Some(Color::Black)), "Белые 1:29:56 · Чёрные 1:30:00 · ход 12, ход чёрных");
    assert_eq!(line(Lang::Ru, None), "Белые 1:29:56 · Чёрные 1:30:00 · ход 12, часы остановлены");
}

#[test]
fn the_status_line_in_polish() {
    assert_eq!(line(Lang::Pl, Some(Color::White)), "Białe 1:29:56 · Czarne 1:30:00 · ruch 12, ruch białych");
    assert_eq!(line(Lang::Pl, None), "Białe 1:29:56 · Czarne 1:30:00 · ruch 12, zegary zatrzymane");
}
