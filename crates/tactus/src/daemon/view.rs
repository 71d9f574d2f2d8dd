//! What a person watching the terminal sees: both clocks on one line, and
//! the board drawn when asked.

use shakmaty::{Color, Position};
use tactus_core::Session;
use tactus_speech::{Lang, Style, Words};
use tactus_trace::Ms;

/// Both clocks at `t`, the move and who is to move, in `lang` (English:
/// `White 1:29:56 · Black 1:30:00 · move 12, Black to move`); `None`
/// without a clock.
pub fn clock_line(session: &Session, t: Ms, lang: Lang) -> Option<String> {
    let clock = session.clock()?;
    let game = session.game();
    let to_move = clock.running().map(|_| game.turn());
    Some(Words::new(lang, Style::Natural).status_line(
        clock.remaining(Color::White, t),
        clock.remaining(Color::Black, t),
        game.position().fullmoves().get(),
        to_move,
    ))
}

/// The position as eight lines of letters, rank 8 first (`.` for empty).
pub fn diagram(fen: &str) -> Option<String> {
    let placement = fen.split_whitespace().next()?;
    let mut lines = Vec::new();
    for (i, rank) in placement.split('/').enumerate() {
        let mut row = String::new();
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(n) => (0..n).for_each(|_| row.push_str(" .")),
                None => {
                    row.push(' ');
                    row.push(c);
                }
            }
        }
        lines.push(format!("{}{row}", 8 - i));
    }
    lines.push("  a b c d e f g h".into());
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line is the speech crate's, in the player's language: no English
    /// of the daemon's inside.
    #[test]
    fn the_clock_line_is_in_the_player_s_language() {
        let header = tactus_trace::Header { time_control: Some("5400+30".into()), ..Default::default() };
        let session = Session::new(&header, tactus_core::Policy::default()).unwrap();
        assert_eq!(
            clock_line(&session, 0, Lang::Ru).as_deref(),
            Some("Белые 1:30:00 · Чёрные 1:30:00 · ход 1, ход белых")
        );
        assert_eq!(
            clock_line(&session, 0, Lang::En).as_deref(),
            Some("White 1:30:00 · Black 1:30:00 · move 1, White to move")
        );
        let untimed = Session::new(&tactus_trace::Header::default(), tactus_core::Policy::default()).unwrap();
        assert_eq!(clock_line(&untimed, 0, Lang::De), None);
    }

    #[test]
    fn the_board_is_drawn_rank_8_first() {
        let d = diagram("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "8 r n b q k b n r");
        assert_eq!(lines[4], "4 . . . . P . . .");
        assert_eq!(lines[8], "  a b c d e f g h");
    }
}
