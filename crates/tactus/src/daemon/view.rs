//! What a person watching the terminal sees: both clocks on one line, and
//! the board drawn when asked.

use shakmaty::{Color, Position};
use tactus_core::Session;
use tactus_trace::Ms;

/// `White 1:29:56 · Black 1:30:00 · move 12, Black to move`
pub fn clock_line(session: &Session, t: Ms) -> Option<String> {
    let clock = session.clock()?;
    let show = |c: Color| tactus_core::pgn::clock_text(clock.remaining(c, t));
    let game = session.game();
    let mover = if game.turn() == Color::White { "White" } else { "Black" };
    let state = if clock.running().is_none() { "clocks stopped".to_string() } else { format!("{mover} to move") };
    Some(format!(
        "White {} · Black {} · move {}, {state}",
        show(Color::White),
        show(Color::Black),
        game.position().fullmoves()
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

    #[test]
    fn the_board_is_drawn_rank_8_first() {
        let d = diagram("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "8 r n b q k b n r");
        assert_eq!(lines[4], "4 . . . . P . . .");
        assert_eq!(lines[8], "  a b c d e f g h");
    }
}
