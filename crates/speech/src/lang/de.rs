//! German. Annex D names are German words, so both styles share the pieces;
//! Annex D squares are Anna … Hector with the German numbers. The terms are
//! those of the German text of the Laws: "regelwidriger Zug" (7.5),
//! "reklamieren", "Fallblättchen" (6.1); players are addressed with "Sie".

use super::{
    Endings,
    Gender::{F, M},
    Lexicon, Names, Online, PairWords, WrittenOnly, numerals_before, plural_one_many, respell,
};

const PIECES: Names = Names {
    nom: ["Bauer", "Springer", "Läufer", "Turm", "Dame", "König"],
    acc: ["Bauern", "Springer", "Läufer", "Turm", "Dame", "König"],
    genitive: ["Bauern", "Springers", "Läufers", "Turms", "Dame", "Königs"],
    plural: ["Bauern", "Springer", "Läufer", "Türme", "Damen", "Könige"],
    none: ["Bauern", "Springer", "Läufer", "Türme", "Damen", "Könige"],
    gender: [M, M, M, M, F, M],
};

pub(crate) static LEXICON: Lexicon = Lexicon {
    pieces: PIECES,
    annex_pieces: PIECES,
    // Without an article (strong) in the nominative: "schwarzer Turm a8";
    // after "den"/"die" the accusative is the same: "den schwarzen Springer".
    adjectives: [
        [["weißer", "weiße"], ["weißen", "weiße"], ["weißen", "weißen"]],
        [["schwarzer", "schwarze"], ["schwarzen", "schwarze"], ["schwarzen", "schwarzen"]],
    ],
    adjectives_plural: ["weiße", "schwarze"],
    whose: [
        [["Ihr {piece}", "Ihre {piece}"], ["Ihren {piece}", "Ihre {piece}"], ["Ihres {piece}", "Ihrer {piece}"]],
        [
            ["gegnerischer {piece}", "gegnerische {piece}"],
            ["gegnerischen {piece}", "gegnerische {piece}"],
            ["gegnerischen {piece}", "gegnerischen {piece}"],
        ],
    ],
    whose_plural: ["Ihre {pieces}", "gegnerische {pieces}"],
    the: ["den ", "die "],
    the_nom: ["der ", "die "],
    a: ["einen ", "eine "],
    your: ["Ihr", "Ihre", "Ihre"],
    generic: ["Figur"; 3],
    nato_files: ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"],
    annex_files: ["Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector"],
    rank_words: ["eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht"],
    annex_ranks: ["eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht"],
    to: "nach",
    run: "{first} bis {last}",
    letters_alone: true,
    rank_runs: true,
    empty_ranks: "Reihen {list}: leer.",
    castles: ["kurze Rochade", "lange Rochade"],
    annex_castles: ["Kurze Rochade", "Lange Rochade"],
    sides: [["Weiß"; 3], ["Schwarz"; 3]],
    you_play: ["Sie spielen Weiß.", "Sie spielen Schwarz."],
    takes: "schlägt",
    check: "Schach",
    mate: "Schachmatt",
    en_passant: "en passant",
    or: "oder",
    promotion: "{move}, Umwandlung in {a_piece}",
    correction: "Korrektur: {move}",
    withdrawn: "zurückgenommen: {move}",
    last_move: ["letzter Zug von {side}: {move}.", "Ihr letzter Zug: {move}.", "letzter Zug Ihres Gegners: {move}."],
    touch: "berührt: {piece}",

    illegal: [
        "{side}: regelwidriger Zug — {reason}.",
        "Ihr Zug ist regelwidrig — {reason}.",
        "Der Zug Ihres Gegners ist regelwidrig — {reason}.",
    ],
    no_move: [
        "{side} hat die Uhr ohne Zug gedrückt; das gilt als regelwidriger Zug.",
        "Sie haben die Uhr ohne Zug gedrückt; das gilt als regelwidriger Zug.",
        "Ihr Gegner hat die Uhr ohne Zug gedrückt; das gilt als regelwidriger Zug.",
    ],
    king_in_check: "der König stünde im Schach",
    cannot_move: "{the_piece} kann nicht von {from} nach {to} ziehen",
    cannot_move_generic: "so zieht die Figur nicht",
    castling_not_allowed: "die Rochade ist nicht erlaubt",
    unrecognised: "das Brett zeigt keinen regelgemäßen Zug",
    moves_again: ["{side} zieht noch einmal", "Sie ziehen noch einmal", "Ihr Gegner zieht noch einmal"],
    moves_again_touched: [
        "{side} zieht noch einmal und muss {the_piece} auf {sq} ziehen, wenn das möglich ist",
        "Sie ziehen noch einmal und müssen {the_piece} auf {sq} ziehen, wenn das möglich ist",
        "Ihr Gegner zieht noch einmal und muss {the_piece} auf {sq} ziehen, wenn das möglich ist",
    ],
    stands: [
        "Der Zug von {side} war regelwidrig — {reason}. Er gilt, wenn {other} nicht vor dem eigenen Zug reklamiert.",
        "Ihr Zug war regelwidrig — {reason}. Er gilt, wenn Ihr Gegner nicht vor seinem Zug reklamiert.",
        "Der Zug Ihres Gegners war regelwidrig — {reason}. Sie können reklamieren, bevor Sie ziehen.",
    ],
    touched_own: [
        "{side} hat zuerst {the_piece} auf {sq} berührt und dann eine andere Figur gezogen; {other} kann reklamieren.",
        "Sie haben zuerst {the_piece} auf {sq} berührt und dann eine andere Figur gezogen; Ihr Gegner kann reklamieren.",
        "Ihr Gegner hat zuerst {the_piece} auf {sq} berührt und dann eine andere Figur gezogen; Sie können reklamieren.",
    ],
    touched_opp: [
        "{side} hat {the_piece} auf {sq} berührt und nicht geschlagen, obwohl das möglich war; {other} kann reklamieren.",
        "Sie haben {the_piece} auf {sq} berührt und nicht geschlagen, obwohl das möglich war; Ihr Gegner kann reklamieren.",
        "Ihr Gegner hat {the_piece} auf {sq} berührt und nicht geschlagen, obwohl das möglich war; Sie können reklamieren.",
    ],
    touched_both: [
        "{side} hat {the_piece} auf {sq} und eine gegnerische Figur berührt, die damit geschlagen werden konnte, aber anders gezogen; {other} kann reklamieren.",
        "Sie haben {the_piece} auf {sq} und eine gegnerische Figur berührt, die damit geschlagen werden konnte, aber anders gezogen; Ihr Gegner kann reklamieren.",
        "Ihr Gegner hat {the_piece} auf {sq} und eine Ihrer Figuren berührt, die damit geschlagen werden konnte, aber anders gezogen; Sie können reklamieren.",
    ],
    touched_generic: [
        "{side} hat eine Figur berührt, die ziehen konnte, und dann eine andere gezogen; {other} kann reklamieren.",
        "Sie haben eine Figur berührt, die ziehen konnte, und dann eine andere gezogen; Ihr Gegner kann reklamieren.",
        "Ihr Gegner hat eine Figur berührt, die ziehen konnte, und dann eine andere gezogen; Sie können reklamieren.",
    ],
    rook_first: [
        "{side} hat {the_piece} auf {sq} vor dem König berührt, die Rochade war daher nicht erlaubt; {other} kann reklamieren.",
        "Sie haben {the_piece} auf {sq} vor dem König berührt, die Rochade war daher nicht erlaubt; Ihr Gegner kann reklamieren.",
        "Ihr Gegner hat {the_piece} auf {sq} vor dem König berührt, die Rochade war daher nicht erlaubt; Sie können reklamieren.",
    ],
    displaced: [
        "{side} hat Figuren verschoben; der Zug gilt.",
        "Sie haben Figuren verschoben; der Zug gilt.",
        "Ihr Gegner hat Figuren verschoben; der Zug gilt.",
    ],

    fix_move: "{the_piece} von {from} zurück auf {to} stellen",
    fix_put: "{the_piece} zurück auf {to} stellen",
    fix_remove: "{the_piece} von {from} nehmen",
    board_differs: "Das Brett weicht von der Partie ab.",
    missing: "Fehlend: {list}.",
    extra: "Überzählig: {list}.",
    board_ok: "Das Brett stimmt wieder mit der Partie überein.",
    engine_move: "Engine: {move}.",
    left: "Noch zu tun: {steps}.",
    step_move: "{the_piece} von {from} nach {to} ziehen",
    step_put: "{a_piece} auf {to} stellen",
    step_remove: "{the_piece} von {from} nehmen",
    then: "; dann ",
    not_that_one: "Nicht diese Figur: {the_piece} zurück auf {sq} stellen",
    misplaced: "{the_piece_nom} gehört auf {belongs}, nicht auf {sq}.",
    misplaced_off: "{the_piece} auf {sq} vom Brett nehmen.",
    missing_piece: "{the_piece_nom} gehört auf {sq}.",
    other_move: "Das ist nicht der Zug der Engine: {move}.",
    partner_move: "Gegner: {move}.",
    partner_other_move: "Das ist nicht der Zug des Gegners: {move}.",
    halfway: "Jetzt {step}.",
    hint: "Tipp: {move}.",
    engine_level: "Engine-Stufe {level}.",
    take_back: ["Zurückgenommen: {moves}.", "Zurückgenommen: {moves}."],
    device_lost: [
        "Das Brett antwortet nicht: Kabel oder Verbindung prüfen.",
        "Die Uhr antwortet nicht; die Partie geht weiter, die Zeit läuft hier.",
        "Die Engine ist ausgefallen; sie wird neu gestartet.",
        "Lichess antwortet nicht; neuer Versuch läuft.",
        "Das Partnerbrett ist nicht erreichbar; seine Züge folgen.",
    ],
    device_back: [
        "Das Brett antwortet wieder.",
        "Die Uhr antwortet wieder.",
        "Die Engine antwortet wieder.",
        "Lichess antwortet wieder.",
        "Das Partnerbrett ist wieder da.",
    ],
    online: Online {
        opponent_move: "{name} spielt {move}.",
        playing: "Partie auf Lichess gegen {name}; Sie spielen {side}.",
        sides: ["Weiß", "Schwarz"],
        challenge: ["{name} fordert Sie heraus: {clock}.", "Herausforderung an {name} gesendet: {clock}."],
        correspondence: "eine Fernpartie",
        challenge_gone: ["Die Herausforderung wurde zurückgezogen.", "Die Herausforderung wurde abgelehnt."],
        takeback_offer: [
            "Ihr Gegner möchte einen Zug zurücknehmen.",
            "Ihr Gegner hat die Rücknahme-Bitte zurückgezogen.",
        ],
        taken_back: "Die Rücknahme ist vereinbart: stellen Sie das Brett zurück.",
        refused: "Lichess hat den Zug {move} abgelehnt: nehmen Sie ihn zurück.",
        website_move: "Auf der Website für Sie gespielt: {move}.",
        take_back_asked: "Sie bitten um Rücknahme; die Antwort Ihres Gegners steht aus.",
        takeback_declined: "Ihr Gegner hat die Rücknahme abgelehnt: stellen Sie die Stellung der Partie wieder her.",
        chat: "{name} schreibt: {text}",
        opponent_gone: [
            "Ihr Gegner hat die Partie verlassen.",
            "Ihr Gegner hat die Partie verlassen; Sie können den Sieg beanspruchen.",
            "Ihr Gegner ist zurück.",
        ],
        ended: "Lichess hat die Partie beendet: {status}.",
        statuses: [
            "abgebrochen",
            "der Gegner ist gegangen",
            "die Zeit ist abgelaufen",
            "der erste Zug kam nicht rechtzeitig",
            "die Partie wurde beendet",
        ],
        rate_limited: "Lichess bittet zu warten; die nächste Anfrage geht in {seconds} Sekunden.",
        not_played: "Eine Partie des Kontos wird nicht auf diesem Brett gespielt.",
        failed: "Lichess hat die Anfrage nicht ausgeführt.",
    },
    pair: PairWords {
        sides: ["Weiß", "Schwarz"],
        same_side: "Brett {partner} spielt ebenfalls {side}: ein Brett spielt Weiß, das andere Schwarz. Ändern Sie die Seite eines der beiden (pair.plays, --plays) und starten Sie es neu.",
        time_control: "Brett {partner} spielt mit einer anderen Bedenkzeit: dort {theirs}, hier {ours}. Stellen Sie an beiden dieselbe ein (game.time_control, --time-control) und starten Sie eines neu.",
        no_clock: "keine Uhr",
        table_clock: "Brett {partner} sieht die Uhr am Tisch anderswo: pair.clock ist \"here\" am Brett mit der Uhr und \"partner\" am anderen, oder \"own\" an beiden.",
        other_game: "Brett {partner} spielt eine andere Partie: seine Züge werden hier nicht übernommen. Beenden Sie eine der beiden Partien oder legen Sie sie beiseite.",
        twin: "Ein anderes Brett am Server der Halle heißt ebenfalls {board}: dieses Brett spielt nicht mehr mit seinem Partner. Geben Sie jedem Brett einen eigenen Namen (mqtt.board_id, --board-id) und starten Sie es neu.",
        agreed: "Brett {partner} stimmt jetzt überein: die Partie geht weiter.",
        goes_on: [
            "Die Partie geht weiter: {side} ist am Zug.",
            "Die Partie geht weiter: Sie sind am Zug.",
            "Die Partie geht weiter: Ihr Gegner ist am Zug.",
        ],
        goes_on_carrying: [
            "Die Partie geht weiter: zuerst wird der Zug von {side} auf dem Brett ausgeführt.",
            "Die Partie geht weiter: zuerst wird Ihr Zug auf dem anderen Brett ausgeführt.",
            "Die Partie geht weiter: führen Sie zuerst den Zug Ihres Gegners aus.",
        ],
        clocks: ["Die Uhren laufen.", "Die Uhren stehen.", "Die Uhren stehen bis zum nächsten Drücken am Tisch."],
        not_now: ["Führen Sie zuerst den Zug Ihres Gegners aus.", "Ihr Gegner hat noch nicht gezogen."],
    },
    draw_offer: ["{side} bietet Remis an.", "Sie bieten Remis an.", "Ihr Gegner bietet Remis an."],
    draw_offer_irregular: [
        "{side} bietet Remis an. Das Angebot gilt; richtig wäre es nach dem eigenen Zug, vor dem Drücken der Uhr.",
        "Sie bieten Remis an. Das Angebot gilt; richtig wäre es nach Ihrem Zug, vor dem Drücken der Uhr.",
        "Ihr Gegner bietet Remis an. Das Angebot gilt; richtig wäre es nach seinem Zug, vor dem Drücken der Uhr.",
    ],
    draw_declined: ["{side} lehnt das Remis ab.", "Sie lehnen das Remis ab.", "Ihr Gegner lehnt das Remis ab."],
    promotion_choice: "Umwandlung in {a_piece}.",
    not_now: [
        "Es wurde noch kein Zug gespielt.",
        "Führen Sie zuerst den Zug der Engine aus.",
        "Die Engine rechnet noch.",
        "In dieser Partie spielt keine Engine.",
        "Es gibt keinen regelwidrigen Zug zu reklamieren.",
        "Die Partie ist beendet; Fragen werden weiter beantwortet.",
    ],
    not_understood: "Nicht verstanden: {typed}.",
    sensor_fault: "Der Sensor auf {square} scheint zu klemmen; die Partie geht ohne ihn weiter, bis er sich wieder ändert.",
    sensor_ok: "Der Sensor auf {square} arbeitet wieder.",

    new_game: "Neue Partie.",
    chess960: "Schach960, Grundreihe: {list}.",
    gets_time: [
        "{side} erhält {time} zusätzlich.",
        "Sie erhalten {time} zusätzlich.",
        "Ihr Gegner erhält {time} zusätzlich.",
    ],
    claim_upheld: [
        "Die Reklamation von {side} ist berechtigt: der regelwidrige Zug von {other} wird zurückgenommen, {other} zieht noch einmal; {side} erhält {time} zusätzlich.",
        "Ihre Reklamation ist berechtigt: der regelwidrige Zug Ihres Gegners wird zurückgenommen, Ihr Gegner zieht noch einmal; Sie erhalten {time} zusätzlich.",
        "Die Reklamation Ihres Gegners ist berechtigt: Ihr regelwidriger Zug wird zurückgenommen, Sie ziehen noch einmal; Ihr Gegner erhält {time} zusätzlich.",
    ],
    claim_rejected: [
        "Die Reklamation von {other} ist unberechtigt: {side} erhält {time} zusätzlich.",
        "Die Reklamation Ihres Gegners ist unberechtigt: Sie erhalten {time} zusätzlich.",
        "Ihre Reklamation ist unberechtigt: Ihr Gegner erhält {time} zusätzlich.",
    ],
    arbiter_adds: [
        "Der Schiedsrichter gibt {side} {time} zusätzlich.",
        "Der Schiedsrichter gibt Ihnen {time} zusätzlich.",
        "Der Schiedsrichter gibt Ihrem Gegner {time} zusätzlich.",
    ],
    game_over: "Partie beendet.",
    endings: Endings {
        checkmate: ["Schachmatt: {side} gewinnt.", "Schachmatt: Sie gewinnen.", "Schachmatt: Ihr Gegner gewinnt."],
        resignation: [
            "{other} gibt auf: {side} gewinnt.",
            "Ihr Gegner gibt auf: Sie gewinnen.",
            "Sie geben auf: Ihr Gegner gewinnt.",
        ],
        flag_fall: [
            "Das Fallblättchen von {side} ist gefallen: {other} gewinnt.",
            "Ihr Fallblättchen ist gefallen: Ihr Gegner gewinnt.",
            "Das Fallblättchen Ihres Gegners ist gefallen: Sie gewinnen.",
        ],
        flag_fall_draw: [
            "Das Fallblättchen von {side} ist gefallen, aber {other} kann mit keiner Folge regelgemäßer Züge mattsetzen: remis.",
            "Ihr Fallblättchen ist gefallen, aber Ihr Gegner kann mit keiner Folge regelgemäßer Züge mattsetzen: remis.",
            "Das Fallblättchen Ihres Gegners ist gefallen, aber Sie können mit keiner Folge regelgemäßer Züge mattsetzen: remis.",
        ],
        illegal: [
            "Zweiter regelwidriger Zug von {side}: {other} gewinnt.",
            "Ihr zweiter regelwidriger Zug: Ihr Gegner gewinnt.",
            "Zweiter regelwidriger Zug Ihres Gegners: Sie gewinnen.",
        ],
        illegal_draw: [
            "Zweiter regelwidriger Zug von {side}, aber {other} kann mit keiner Folge regelgemäßer Züge mattsetzen: remis.",
            "Ihr zweiter regelwidriger Zug, aber Ihr Gegner kann mit keiner Folge regelgemäßer Züge mattsetzen: remis.",
            "Zweiter regelwidriger Zug Ihres Gegners, aber Sie können mit keiner Folge regelgemäßer Züge mattsetzen: remis.",
        ],
        claimed: [
            "Remis durch {claim}, auf Reklamation von {side}.",
            "Remis durch {claim}, auf Ihre Reklamation.",
            "Remis durch {claim}, auf Reklamation Ihres Gegners.",
        ],
        stalemate: "Patt: remis.",
        dead_position: "Tote Stellung, keine Seite kann mattsetzen: remis.",
        fivefold: "Fünfmalige Stellungswiederholung: remis.",
        seventy_five: "75 Züge ohne Schlagen und ohne Bauernzug: remis.",
        agreement: "Remis durch Vereinbarung.",
        arbiter: [
            "Entscheidung des Schiedsrichters: {side} gewinnt.",
            "Entscheidung des Schiedsrichters: Sie gewinnen.",
            "Entscheidung des Schiedsrichters: Ihr Gegner gewinnt.",
        ],
        arbiter_draw: "Entscheidung des Schiedsrichters: remis.",
    },
    observation: "Hinweis: erst {first}, dann {then}.",
    written: WrittenOnly {
        observation: "{side}: Das Brett zeigte erst {first}, dann {then}. Eine auf einem Feld losgelassene Figur darf nicht mehr auf ein anderes Feld gezogen werden (4.7), oder sie wurde langsam geschoben.",
        undetermined: "Ob {side} mattsetzen kann, hat die Suche in ihrer Frist nicht geklärt: Die Niederlage bleibt bestehen, der Schiedsrichter kann es erneut prüfen.",
    },
    ambiguous: "Mehrdeutiger Zug: notiert {chosen}; auch möglich: {others}.",
    claimable: [
        "{side} kann Remis durch {claim} reklamieren.",
        "Sie können Remis durch {claim} reklamieren.",
        "Ihr Gegner kann Remis durch {claim} reklamieren.",
    ],
    claims: ["dreimalige Stellungswiederholung", "die 50-Züge-Regel"],
    paused: "Uhren angehalten.",
    resumed: "Uhren laufen wieder.",
    clock_set: "Uhren gestellt: {times}.",

    side_time: ["{side} {time}", "Sie {time}", "Ihr Gegner {time}"],
    time_readout: "{times}; Zug {n}",
    time_stopped: "die Uhren stehen",
    to_play: ["{side} am Zug", "Sie sind am Zug", "Ihr Gegner ist am Zug"],
    time_warning: ["{side}: noch {time}.", "Sie haben noch {time}.", "Ihr Gegner hat noch {time}."],
    period_added: [
        "{side} hat die Zeitkontrolle erreicht: {time} zusätzlich.",
        "Sie haben die Zeitkontrolle erreicht: {time} zusätzlich.",
        "Ihr Gegner hat die Zeitkontrolle erreicht: {time} zusätzlich.",
    ],
    to_control: ["{side} noch {n} {moves}", "Sie noch {n} {moves}", "Ihr Gegner noch {n} {moves}"],
    moves_to_control: "Zeitkontrolle nach Zug {at}: {list}",
    then_added: "dann {time} zusätzlich",
    no_control: "Keine weitere Zeitkontrolle.",
    moves: ["Zug", "Züge", "Züge"],
    hours: ["Stunde", "Stunden", "Stunden"],
    minutes: ["Minute", "Minuten", "Minuten"],
    seconds: ["Sekunde", "Sekunden", "Sekunden"],
    plural: plural_one_many,

    army: ["{side}: {list}.", "Ihre Figuren: {list}.", "Figuren Ihres Gegners: {list}."],
    kind: ["{name} von {side}: {list}.", "{your} {name}: {list}.", "{name} Ihres Gegners: {list}."],
    no_kind: ["{side} hat keine {none}.", "Sie haben keine {none}.", "Ihr Gegner hat keine {none}."],
    rank_pieces: "Reihe {rank}: {list}.",
    file_pieces: "Linie {file}: {list}.",
    square_piece: "{square}: {piece}.",
    square_empty: "{square}: leer.",
    kind_on_board: ["Auf dem Brett: {list}.", "Auf dem Brett: keine."],
    square_differs: "{square}: auf dem Brett {board}, in der Partie {game}.",
    empty: "leer",
    vacant: "leer",
    a_piece: "eine Figur",
};

/// What the German voice misreads: "Cesar" as "Kesar" (the Laws mean
/// Cäsar), "Rochade" with the ach-sound and stressed first, "David" stressed
/// on the second syllable, NATO "Charlie" with an sh and "Hotel" stressed
/// first, and "Engine" as a German word ("Engiene"): German players say it
/// in English.
const RESPELL: &[(&str, &str)] = &[
    ("Engine", "[['EndZIn]]"),
    ("Cesar", "Zäsar"),
    ("David", "[[d'A:vIt]]"),
    ("Rochade", "[[rOS'A:d@]]"),
    ("Charlie", "[[tS'arli:]]"),
    ("Hotel", "[[ho:t'El]]"),
];

pub(super) fn spoken(text: &str) -> String {
    respell(&feminine_numerals(text), RESPELL)
}

/// espeak-ng reads "1 Minute" as "eins Minute".
fn feminine_numerals(text: &str) -> String {
    numerals_before(text, &["Minute", "Sekunde", "Stunde"], |n| (n == 1).then(|| "eine".to_owned()))
}
