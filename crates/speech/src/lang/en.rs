//! English. Annex D words keep the Laws' spelling (Laeufer, fuenf); the
//! voice gets them as espeak-ng phonemes of the English voice, as close to
//! the German as its phonemes go (it has no ü or ö: fuenf is said with the
//! vowel of "foot", Koenig with that of "nurse").

use super::{Endings, Gender::M, Lexicon, Names, Online, PairWords, Status, WrittenOnly, plural_one_many, respell};

pub(crate) static LEXICON: Lexicon = Lexicon {
    pieces: Names {
        nom: ["pawn", "knight", "bishop", "rook", "queen", "king"],
        acc: ["pawn", "knight", "bishop", "rook", "queen", "king"],
        genitive: ["pawn", "knight", "bishop", "rook", "queen", "king"],
        plural: ["pawns", "knights", "bishops", "rooks", "queens", "kings"],
        none: ["pawns", "knights", "bishops", "rooks", "queens", "kings"],
        gender: [M; 6],
    },
    annex_pieces: Names {
        nom: ["Bauer", "Springer", "Laeufer", "Turm", "Dame", "Koenig"],
        acc: ["Bauer", "Springer", "Laeufer", "Turm", "Dame", "Koenig"],
        genitive: ["Bauer", "Springer", "Laeufer", "Turm", "Dame", "Koenig"],
        plural: ["Bauern", "Springer", "Laeufer", "Tuerme", "Damen", "Koenige"],
        none: ["Bauern", "Springer", "Laeufer", "Tuerme", "Damen", "Koenige"],
        gender: [M; 6],
    },
    adjectives: [[["white"; 2]; 3], [["black"; 2]; 3]],
    adjectives_plural: ["white", "black"],
    whose: [[["your {piece}"; 2]; 3], [["opponent's {piece}"; 2]; 3]],
    whose_plural: ["your {pieces}", "opponent's {pieces}"],
    the: ["the "; 2],
    the_nom: ["the "; 2],
    a: [""; 2],
    your: ["your"; 3],
    generic: ["piece"; 3],
    nato_files: ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"],
    annex_files: ["Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector"],
    rank_words: ["one", "two", "three", "four", "five", "six", "seven", "eight"],
    annex_ranks: ["eins", "zwei", "drei", "vier", "fuenf", "sechs", "sieben", "acht"],
    to: "to",
    from_to: ["{piece} from {from} to {to}", "{piece} on {from} takes {to}"],
    run: "{first} to {last}",
    letters_alone: true,
    rank_runs: true,
    empty_ranks: "Ranks {list}: empty.",
    castles: ["short castling", "long castling"],
    annex_castles: ["Kurze Rochade", "Lange Rochade"],
    sides: [["White", "White's", "White"], ["Black", "Black's", "Black"]],
    you_play: ["You play White.", "You play Black."],
    takes: "takes",
    check: "check",
    mate: "checkmate",
    en_passant: "en passant",
    or: "or",
    promotion: "{move}, promotes to {piece}",
    correction: "correction: {move}",
    withdrawn: "withdrawn: {move}",
    last_move: ["{side_gen} last move: {move}.", "your last move: {move}.", "your opponent's last move: {move}."],
    touch: "touched: {piece}",

    illegal: [
        "{side}: illegal move — {reason}.",
        "You: illegal move — {reason}.",
        "Your opponent: illegal move — {reason}.",
    ],
    no_move: [
        "{side} pressed the clock without a move, which counts as an illegal move.",
        "You pressed the clock without a move, which counts as an illegal move.",
        "Your opponent pressed the clock without a move, which counts as an illegal move.",
    ],
    king_in_check: "the king would be in check",
    cannot_move: "{the_piece} cannot go from {from} to {to}",
    cannot_move_generic: "the piece cannot move that way",
    castling_not_allowed: "castling is not allowed",
    unrecognised: "the board shows no legal move",
    moves_again: ["{side} moves again", "you move again", "your opponent moves again"],
    moves_again_touched: [
        "{side} moves again, with the {piece} on {sq} if it can move",
        "you move again, with the {piece} on {sq} if it can move",
        "your opponent moves again, with the {piece} on {sq} if it can move",
    ],
    stands: [
        "{side_gen} move was illegal — {reason}. It stands unless {other} claims before moving.",
        "Your move was illegal — {reason}. It stands unless your opponent claims before moving.",
        "Your opponent's move was illegal — {reason}. You may claim before you move.",
    ],
    touched_own: [
        "{side} touched the {piece} on {sq} first, then moved another piece; {other} may claim.",
        "You touched the {piece} on {sq} first, then moved another piece; your opponent may claim.",
        "Your opponent touched the {piece} on {sq} first, then moved another piece; you may claim.",
    ],
    touched_opp: [
        "{side} touched the {piece} on {sq}, which could be captured, and did not capture it; {other} may claim.",
        "You touched the {piece} on {sq}, which could be captured, and did not capture it; your opponent may claim.",
        "Your opponent touched the {piece} on {sq}, which could be captured, and did not capture it; you may claim.",
    ],
    touched_both: [
        "{side} touched the {piece} on {sq} and an opponent's piece it could capture, then made another move; {other} may claim.",
        "You touched the {piece} on {sq} and an opponent's piece it could capture, then made another move; your opponent may claim.",
        "Your opponent touched the {piece} on {sq} and a piece of yours it could capture, then made another move; you may claim.",
    ],
    touched_generic: [
        "{side} touched a piece that could move, then moved another; {other} may claim.",
        "You touched a piece that could move, then moved another; your opponent may claim.",
        "Your opponent touched a piece that could move, then moved another; you may claim.",
    ],
    rook_first: [
        "{side} touched the {piece} on {sq} before the king, so castling was not allowed; {other} may claim.",
        "You touched the {piece} on {sq} before the king, so castling was not allowed; your opponent may claim.",
        "Your opponent touched the {piece} on {sq} before the king, so castling was not allowed; you may claim.",
    ],
    displaced: [
        "{side} displaced pieces; the move stands.",
        "You displaced pieces; the move stands.",
        "Your opponent displaced pieces; the move stands.",
    ],

    fix_move: "put the {piece} from {from} back on {to}",
    fix_put: "put the {piece} back on {to}",
    fix_remove: "take the {piece} off {from}",
    board_differs: "The board differs from the game.",
    missing: "Missing: {list}.",
    extra: "Extra pieces on {list}.",
    board_ok: "The board matches the game again.",
    engine_move: "Engine: {move}.",
    left: "Still to do: {steps}.",
    step_move: "move the {piece} from {from} to {to}",
    step_put: "put a {piece} on {to}",
    step_remove: "take the {piece} off {from}",
    then: "; then ",
    not_that_one: "Not that one: put the {piece} back on {sq}",
    misplaced: "The {piece} belongs on {belongs}, not on {sq}.",
    misplaced_off: "Take the {piece} on {sq} off the board.",
    missing_piece: "The {piece} belongs on {sq}.",
    other_move: "That is not the engine's move: {move}.",
    partner_move: "Opponent: {move}.",
    partner_other_move: "That is not your opponent's move: {move}.",
    halfway: "Now {step}.",
    hint: "Hint: {move}.",
    engine_level: "Engine level {level}.",
    take_back: ["Taken back: {moves}.", "Taken back: {moves}."],
    device_lost: [
        "The board is not answering: check its cable or its connection.",
        "The clock is not answering; the game goes on, timed here.",
        "The engine has stopped; restarting it.",
        "Lichess is not answering; retrying.",
        "The partner board cannot be reached; its moves will follow.",
    ],
    device_back: [
        "The board answers again.",
        "The clock answers again.",
        "The engine answers again.",
        "Lichess answers again.",
        "The partner board is back.",
    ],
    device_ended: [
        "The board's reader has stopped: moves on the board are no longer seen.",
        "The clock's reader has stopped; the game goes on, timed here.",
        "The engine has stopped for good: no engine plays from now on.",
        "The connection to Lichess has ended: no online game from now on.",
        "The link to the partner board has ended: its moves no longer come.",
    ],
    lost_cause: [
        "Cause: the program would not start.",
        "Cause: the program ended, or contact with it was lost.",
        "Cause: no answer in time.",
        "Cause: an answer that cannot be used.",
        "Cause: a read or write error.",
        "Cause: unplugged or out of range.",
        "Cause: the connection dropped.",
    ],
    status: Status {
        line: "White {white} · Black {black} · move {move}, {state}",
        to_move: ["White to move", "Black to move"],
        stopped: "clocks stopped",
    },
    online: Online {
        opponent_move: "{name} plays {move}.",
        castles: ["{name} castles short", "{name} castles long"],
        playing: "Playing on Lichess against {name}; you play {side}.",
        sides: ["White", "Black"],
        challenge: ["{name} challenges you: {clock}.", "Challenge sent to {name}: {clock}."],
        correspondence: "a correspondence game",
        challenge_gone: ["The challenge was withdrawn.", "The challenge was declined."],
        takeback_offer: ["Your opponent asks to take back a move.", "Your opponent withdrew the takeback request."],
        taken_back: "The takeback is agreed: set the board back.",
        refused: "Lichess refused the move {move}: take it back.",
        website_move: "Played for you on the website: {move}.",
        take_back_asked: "You ask to take back; waiting for your opponent's answer.",
        takeback_declined: "Your opponent declined the takeback: set the board as the game stands.",
        chat: "{name} writes: {text}",
        opponent_gone: [
            "Your opponent has left the game.",
            "Your opponent has left the game; you may claim the win.",
            "Your opponent is back.",
        ],
        ended: "Lichess ended the game: {status}.",
        statuses: [
            "aborted",
            "the opponent left",
            "time is up",
            "the first move was not made in time",
            "the game was ended",
        ],
        rate_limited: "Lichess asks us to wait; the next request goes in {seconds} seconds.",
        failed_why: [
            "Lichess did not carry out the request: no game is being played.",
            "The move cannot be sent to Lichess now.",
            "Lichess did not carry out the request: too many are waiting. Try again.",
            "Lichess refused the request.",
            "Lichess could not be reached: the request was not carried out.",
            "Lichess refuses this board's token: the request was not carried out.",
            "Lichess asked for a pause: the request was not carried out.",
        ],
        ai_name: "Lichess AI level {level}",
        not_played_why: [
            "Another game started on the account; this board plays one at a time: play it on the website.",
            "A game on the account cannot be played through Lichess's Board API: play it on the website.",
            "A game on the account is a variant this board cannot play: play it on the website.",
            "Lichess did not say which side the account plays in a new game: it is not played on this board.",
            "A game on the account is not played on this board: the account plays neither White nor Black in it. Check that the token is the player's own.",
            "A game on the account is not played on this board: Lichess named two different sides for the account.",
            "A game is not played on this board: the server sent another game instead. Check the Lichess address in the configuration.",
            "A game is not played on this board: its moves from the server are not legal, so it cannot be set up.",
            "A game is not played on this board: its start position cannot be set up.",
            "Lichess no longer gives this game to the board: it is not played here.",
        ],
        token: [
            "Lichess refuses this board's token. The game is kept, and the board keeps trying; if this lasts, check the token with tactus doctor.",
            "Lichess no longer knows this board's token: create a new token with board:play, save it in the token file, and restart tactus. The game is kept.",
            "This board's token may not play on Lichess: create a token with board:play, save it in the token file, and restart tactus.",
            "Lichess accepts the board's token again; the game goes on.",
        ],
        chat_held: "More in the chat: {count}; online chat reads them.",
        chat_lines: ["line", "lines", "lines"],
        no_chat: "No chat lines are waiting.",
        asked: [
            "You ask Lichess to abort the game.",
            "You decline the takeback request.",
            "You accept the takeback request.",
            "You accept the challenge.",
            "You decline the challenge.",
            "You claim the win.",
        ],
        nothing_to_answer: [
            "No online game is being played.",
            "No draw offer stands.",
            "No takeback request stands.",
            "No challenge waits for an answer.",
        ],
    },
    pair: PairWords {
        sides: ["White", "Black"],
        same_side: "Board {partner} plays {side} too: one board plays White, the other Black. Change the side of one of them (pair.plays, --plays) and start it again.",
        time_control: "Board {partner} plays with another time control: {theirs} there, {ours} here. Give both the same (game.time_control, --time-control) and start one of them again.",
        no_clock: "no clock",
        table_clock: "Board {partner} does not agree on where the clock at the table is: pair.clock is \"here\" on the board with the clock and \"partner\" on the other, or \"own\" on both.",
        other_game: "Board {partner} plays another game: its moves are not taken here. Finish or set aside one of the two games.",
        twin: "Another board on the hall's broker is also named {board}: this board stops playing with its partner. Give each board its own name (mqtt.board_id, --board-id) and start it again.",
        agreed: "Board {partner} agrees now: the game goes on.",
        goes_on: [
            "The game goes on: {side} to move.",
            "The game goes on: it is your move.",
            "The game goes on: your opponent is to move.",
        ],
        goes_on_carrying: [
            "The game goes on: {side_gen} move is carried out on the board first.",
            "The game goes on: your move is carried out on the other board first.",
            "The game goes on: first carry out your opponent's move.",
        ],
        clocks: [
            "The clocks run.",
            "The clocks are stopped.",
            "The clocks are stopped until the next press at the table.",
        ],
    },
    draw_offer: ["{side} offers a draw.", "You offer a draw.", "Your opponent offers a draw."],
    draw_offer_irregular: [
        "{side} offers a draw. It stands, though an offer belongs after one's move, before the clock is pressed.",
        "You offer a draw. It stands, though an offer belongs after your move, before you press the clock.",
        "Your opponent offers a draw. It stands, though an offer belongs after their move, before the clock is pressed.",
    ],
    draw_declined: ["{side} declines the draw.", "You decline the draw.", "Your opponent declines the draw."],
    promotion_choice: "Promotion to {piece}.",
    not_now: [
        "No move has been played yet.",
        "First carry out the engine's move.",
        "The engine is still thinking.",
        "No engine plays in this game.",
        "There is no illegal move to claim.",
        "The game is over; questions are still answered.",
        "That button is only for a game against an engine, on Lichess or against a partner board.",
    ],
    not_now_opponent: ["First carry out your opponent's move.", "Your opponent has not moved yet."],
    pending: [
        "{side_gen} move is still to be carried out: {move}.",
        "Your move is still to be carried out on the board: {move}.",
        "Your opponent's move is still to be carried out: {move}.",
    ],
    not_understood: "Not understood: {typed}.",
    sensor_fault: "The sensor on {square} seems stuck; the game goes on without it until it changes.",
    sensor_ok: "The sensor on {square} works again.",

    new_game: "New game.",
    pairing: "Board {board}, round {round}: White {white}; Black {black}.",
    chess960: "Chess960, first rank: {list}.",
    gets_time: ["{side} gets {time} more.", "You get {time} more.", "Your opponent gets {time} more."],
    claim_upheld: [
        "{side_gen} claim is upheld: {other_gen} illegal move is taken back and {other} moves again; {side} gets {time} more.",
        "Your claim is upheld: your opponent's illegal move is taken back and your opponent moves again; you get {time} more.",
        "Your opponent's claim is upheld: your illegal move is taken back and you move again; your opponent gets {time} more.",
    ],
    claim_rejected: [
        "{other_gen} claim is not correct: {side} gets {time} more.",
        "Your opponent's claim is not correct: you get {time} more.",
        "Your claim is not correct: your opponent gets {time} more.",
    ],
    arbiter_adds: [
        "The arbiter gives {side} {time} more.",
        "The arbiter gives you {time} more.",
        "The arbiter gives your opponent {time} more.",
    ],
    game_over: "Game over.",
    endings: Endings {
        checkmate: ["Checkmate: {side} wins.", "Checkmate: you win.", "Checkmate: your opponent wins."],
        resignation: [
            "{other} resigns: {side} wins.",
            "Your opponent resigns: you win.",
            "You resign: your opponent wins.",
        ],
        flag_fall: [
            "{side_gen} flag has fallen: {other} wins on time.",
            "Your flag has fallen: your opponent wins on time.",
            "Your opponent's flag has fallen: you win on time.",
        ],
        flag_fall_draw: [
            "{side_gen} flag has fallen, but {other} cannot checkmate by any series of legal moves: draw.",
            "Your flag has fallen, but your opponent cannot checkmate by any series of legal moves: draw.",
            "Your opponent's flag has fallen, but you cannot checkmate by any series of legal moves: draw.",
        ],
        illegal: [
            "{side_gen} second illegal move: {other} wins.",
            "Your second illegal move: your opponent wins.",
            "Your opponent's second illegal move: you win.",
        ],
        illegal_draw: [
            "{side_gen} second illegal move, but {other} cannot checkmate by any series of legal moves: draw.",
            "Your second illegal move, but your opponent cannot checkmate by any series of legal moves: draw.",
            "Your opponent's second illegal move, but you cannot checkmate by any series of legal moves: draw.",
        ],
        claimed: [
            "Draw by {claim}, on {side_gen} claim.",
            "Draw by {claim}, on your claim.",
            "Draw by {claim}, on your opponent's claim.",
        ],
        stalemate: "Stalemate: draw.",
        dead_position: "Dead position, neither side can checkmate: draw.",
        fivefold: "Fivefold repetition: draw.",
        seventy_five: "Seventy-five moves without a capture or a pawn move: draw.",
        agreement: "Draw by agreement.",
        arbiter: [
            "By the arbiter's decision, {side} wins.",
            "By the arbiter's decision, you win.",
            "By the arbiter's decision, your opponent wins.",
        ],
        arbiter_draw: "By the arbiter's decision, the game is drawn.",
    },
    observation: "Note: first {first}, then {then}.",
    written: WrittenOnly {
        observation: "{side}: the board showed {first}, then {then}. A piece released on a square may not then be moved to another square (4.7), or it was a slow slide.",
        undetermined: "Whether {side} can checkmate was not settled within the search's limit: the loss stands, and the arbiter may look again.",
    },
    ambiguous: "Ambiguous move: recorded {chosen}; also possible: {others}.",
    claimable: [
        "{side} may claim a draw by {claim}.",
        "You may claim a draw by {claim}.",
        "Your opponent may claim a draw by {claim}.",
    ],
    claims: ["threefold repetition", "the fifty-move rule"],
    paused: "Clocks stopped.",
    resumed: "Clocks running again.",
    clock_set: "Clocks set: {times}.",

    side_time: ["{side} {time}", "you {time}", "your opponent {time}"],
    time_readout: "{times}; move {n}",
    time_stopped: "the clocks are stopped",
    to_play: ["{side} to play", "your move", "your opponent's move"],
    time_warning: ["{side}: {time} left.", "You have {time} left.", "Your opponent has {time} left."],
    period_added: [
        "{side} has reached the time control: {time} added.",
        "You have reached the time control: {time} added.",
        "Your opponent has reached the time control: {time} added.",
    ],
    to_control: ["{side} {n} {moves}", "you {n} {moves}", "your opponent {n} {moves}"],
    moves_to_control: "Time control after move {at}: {list} to go",
    then_added: "then {time} added",
    no_control: "No further time control.",
    moves: ["move", "moves", "moves"],
    hours: ["hour", "hours", "hours"],
    minutes: ["minute", "minutes", "minutes"],
    seconds: ["second", "seconds", "seconds"],
    plural: plural_one_many,

    army: ["{side}: {list}.", "Your pieces: {list}.", "Your opponent's pieces: {list}."],
    kind: ["{side_gen} {name}: {list}.", "Your {name}: {list}.", "Your opponent's {name}: {list}."],
    no_kind: ["{side} has no {none}.", "You have no {none}.", "Your opponent has no {none}."],
    rank_pieces: "Rank {rank}: {list}.",
    file_pieces: "File {file}: {list}.",
    square_piece: "{square}: {piece}.",
    square_empty: "{square}: empty.",
    kind_on_board: ["On the board: {list}.", "On the board: none."],
    square_differs: "{square}: on the board, {board}; in the game, {game}.",
    empty: "empty",
    vacant: "empty",
    a_piece: "a piece",
};

/// The German words of Annex D as the English voice's phonemes, and the
/// NATO and natural words it misreads.
const RESPELL: &[(&str, &str)] = &[
    // Ending in a full vowel, as in German: a schwa would be joined to a
    // following vowel with an r ("Anna-r-eins").
    ("Anna", "[['ana]]"),
    ("Bella", "[[b'Ela]]"),
    ("Cesar", "[[ts'eIzA:]]"),
    ("David", "[[d'A:vIt]]"),
    ("Eva", "[['eIva]]"),
    ("Felix", "[[f'eIlIks]]"),
    ("Gustav", "[[g'UstA:f]]"),
    ("Hector", "[[h'EktO:]]"),
    ("eins", "[['aIns]]"),
    ("zwei", "[[ts'vaI]]"),
    ("drei", "[[dr'aI]]"),
    ("vier", "[[f'i@]]"),
    ("fuenf", "[[f'Unf]]"),
    ("sechs", "[[z'Eks]]"),
    ("sieben", "[[z'i:b@n]]"),
    ("acht", "[['axt]]"),
    // German -er as the vowel of "cut", -e as a schwa and a breath.
    ("Bauer", "[[b'aUV]]"),
    ("Bauern", "[[b'aUVn]]"),
    ("Springer", "[[Spr'INV]]"),
    ("Laeufer", "[[l'OIfV]]"),
    ("Turm", "[[t'Urm]]"),
    ("Tuerme", "[[t'Urm@_]]"),
    ("Dame", "[[d'A:m@_]]"),
    ("Damen", "[[d'A:m@n]]"),
    ("Koenig", "[[k'3:nIC]]"),
    ("Koenige", "[[k'3:nIg@_]]"),
    ("Kurze", "[[k'Urts@]]"),
    ("Lange", "[[l'aN@]]"),
    ("Rochade", "[[r0S'A:d@]]"),
];

/// The letter "a" as said when it names a file.
const LETTER_A: &str = "[['eI]]";

pub(super) fn spoken(text: &str) -> String {
    respell(&file_letter_a(text), RESPELL)
}

/// espeak-ng reads a lone "a" as the article ("rook a b1" → "rook uh b1").
/// It is the file letter when what follows is a chess word: a square, a
/// file, a rank, "takes" — or nothing (the end of a clause). The article is
/// followed by a noun ("a draw", "a piece").
fn file_letter_a(text: &str) -> String {
    const CHESS: [&str; 9] = ["takes", "one", "two", "three", "four", "five", "six", "seven", "eight"];
    let chess_word = |w: &str| {
        let b = w.as_bytes();
        CHESS.contains(&w) || matches!(b, [b'a'..=b'h'] | [b'1'..=b'8'] | [b'a'..=b'h', b'1'..=b'8'])
    };
    let words: Vec<(usize, &str)> = word_spans(text);
    let mut letters = Vec::new();
    for (i, &(start, w)) in words.iter().enumerate() {
        if w != "a" {
            continue;
        }
        let end = start + 1;
        let next = words.get(i + 1);
        // Punctuation right after the "a" ends the clause: "File a:".
        let clause_ends = text[end..].trim_start().chars().next().is_none_or(|c| !c.is_alphanumeric());
        if clause_ends || next.is_some_and(|(_, n)| chess_word(n)) {
            letters.push(start);
        }
    }
    let mut out = String::with_capacity(text.len() + 8 * letters.len());
    let mut last = 0;
    for start in letters {
        out.push_str(&text[last..start]);
        out.push_str(LETTER_A);
        last = start + 1;
    }
    out.push_str(&text[last..]);
    out
}

/// The words of `text` (runs of letters and digits) with their byte offsets.
fn word_spans(text: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, &text[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, &text[s..]));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_letter_a_is_not_the_article() {
        assert_eq!(file_letter_a("rook a b1"), "rook [['eI]] b1");
        assert_eq!(file_letter_a("a takes b5"), "[['eI]] takes b5");
        assert_eq!(file_letter_a("rook a b eight"), "rook [['eI]] b eight");
        assert_eq!(file_letter_a("rook a one"), "rook [['eI]] one");
        assert_eq!(file_letter_a("File a: white rook a1."), "File [['eI]]: white rook a1.");
        assert_eq!(file_letter_a("queen a 1 b2"), "queen [['eI]] 1 b2");
        assert_eq!(
            file_letter_a("White may claim a draw by threefold repetition."),
            "White may claim a draw by threefold repetition."
        );
        assert_eq!(file_letter_a("a piece that could move"), "a piece that could move");
    }

    #[test]
    fn annex_d_words_go_to_the_voice_as_phonemes() {
        assert_eq!(spoken("Springer takes Eva fuenf, check"), "[[Spr'INV]] takes [['eIva]] [[f'Unf]], check");
        assert_eq!(spoken("rook a b1, a draw"), "rook [['eI]] b1, a draw");
    }
}
