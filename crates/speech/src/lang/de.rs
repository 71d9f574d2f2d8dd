//! German. Annex D names are German words, so both styles share the pieces;
//! Annex D squares are Anna … Hector with the German numbers.

use super::{
    Gender::{F, M},
    Lexicon, Names, numerals_before, plural_one_many,
};

const PIECES: Names = Names {
    nom: ["Bauer", "Springer", "Läufer", "Turm", "Dame", "König"],
    // Only promotion uses the accusative: "Umwandlung in eine Dame".
    acc: ["einen Bauern", "einen Springer", "einen Läufer", "einen Turm", "eine Dame", "einen König"],
    plural: ["Bauern", "Springer", "Läufer", "Türme", "Damen", "Könige"],
    gender: [M, M, M, M, F, M],
};

pub(crate) static LEXICON: Lexicon = Lexicon {
    pieces: PIECES,
    annex_pieces: PIECES,
    adjectives: [[["weißer", "weiße"], ["weißen", "weiße"]], [["schwarzer", "schwarze"], ["schwarzen", "schwarze"]]],
    generic: ["Figur", "Figur"],
    nato_files: ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"],
    annex_files: ["Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector"],
    rank_words: ["eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht"],
    annex_ranks: ["eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht"],
    castles: ["kurze Rochade", "lange Rochade"],
    annex_castles: ["Kurze Rochade", "Lange Rochade"],
    sides: ["Weiß", "Schwarz"],
    sides_gen: ["Weiß", "Schwarz"],
    takes: "schlägt",
    check: "Schach",
    mate: "Schachmatt",
    en_passant: "en passant",
    or: "oder",
    promotion: "{move}, Umwandlung in {piece_acc}",
    correction: "Korrektur: {move}",
    withdrawn: "zurückgenommen: {move}",
    last_move: "letzter Zug von {side}: {move}",
    touch: "berührt: {piece}",

    king_in_check: "Unmöglicher Zug: der König stünde im Schach.",
    cannot_move: "Unmöglicher Zug: {piece} von {from} nach {to} ist nicht möglich.",
    cannot_move_generic: "Unmöglicher Zug: so zieht die Figur nicht.",
    castling_not_allowed: "Unmöglicher Zug: Rochade nicht erlaubt.",
    unrecognised: "Das Brett zeigt keinen regelgemäßen Zug.",
    no_move: "Die Uhr wurde ohne Zug gedrückt.",
    touch_move: "Berührt – geführt: {piece} auf {sq} muss ziehen.",
    touch_capture: "Berührt – geschlagen: {piece} auf {sq} muss geschlagen werden.",
    touch_generic: "Berührt – geführt: die berührte Figur muss ziehen.",
    rook_first: "Turm vor dem König berührt: Rochade nicht erlaubt.",
    displaced: "Verschobene Figuren müssen zurückgestellt werden.",

    fix_move: "{piece} von {from} zurück auf {to}",
    fix_put: "{piece} zurück auf {to}",
    fix_remove: "{piece} von {from} entfernen",
    board_differs: "Das Brett weicht von der Partie ab.",
    missing: "Fehlend: {list}.",
    extra: "Überzählig: {list}.",
    board_ok: "Das Brett stimmt wieder mit der Partie überein.",
    sensor_fault: "Der Sensor auf {square} scheint zu klemmen; die Partie geht ohne ihn weiter, bis er sich wieder ändert.",
    sensor_ok: "Der Sensor auf {square} arbeitet wieder.",

    new_game: "Neue Partie.",
    chess960: "Schach960, Grundreihe: {list}.",
    penalty: "Zeitgutschrift für {side}: {time}.",
    game_over: "Partie beendet: {reason}.",
    results: ["Weiß gewinnt.", "Schwarz gewinnt.", "Remis."],
    end_reasons: [
        "Schachmatt",
        "Patt",
        "tote Stellung",
        "fünfmalige Stellungswiederholung",
        "75-Züge-Regel",
        "dreimalige Stellungswiederholung",
        "50-Züge-Regel",
        "Zeitüberschreitung",
        "zweiter regelwidriger Zug",
        "Aufgabe",
        "Remis vereinbart",
        "Entscheidung des Schiedsrichters",
    ],
    observation: "Hinweis: erst {first}, dann {then}.",
    ambiguous: "Mehrdeutiger Zug: notiert {chosen}; auch möglich: {others}.",
    claimable: "{side} kann Remis beanspruchen: {claim}.",
    claims: ["dreimalige Stellungswiederholung", "50-Züge-Regel"],
    paused: "Uhren angehalten.",
    resumed: "Uhren laufen wieder.",
    clock_set: "Uhren gestellt: {times}.",

    side_time: "{side} {time}",
    time_readout: "{times}; Zug {n}",
    to_play: "{side} am Zug",
    time_warning: "{side}: noch {time}.",
    hours: ["Stunde", "Stunden", "Stunden"],
    minutes: ["Minute", "Minuten", "Minuten"],
    seconds: ["Sekunde", "Sekunden", "Sekunden"],
    plural: plural_one_many,

    side_pieces: "{side}: {list}.",
    rank_pieces: "Reihe {rank}: {list}.",
    empty: "leer",

    respell: &[],
    feminine_numerals,
};

/// espeak-ng reads "1 Minute" as "eins Minute".
fn feminine_numerals(text: &str) -> String {
    numerals_before(text, &["Minute", "Sekunde", "Stunde"], |n| (n == 1).then(|| "eine".to_owned()))
}
