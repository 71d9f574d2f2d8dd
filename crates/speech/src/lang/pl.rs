//! Polish. Annex D words keep the Laws' spelling (the Polish text writes them
//! as the English one does) and decline like Polish loanwords (na Springera);
//! the voice gets Polish respellings of them, or phonemes where no Polish
//! spelling reads right. The terms are the Laws': «posunięcie» for a move,
//! «nieprawidłowe posunięcie» (7.5), «reklamować» (4.8, 9.2), «flaga» (6.1),
//! «linia pionowa» and «linia pozioma» (2.4). Players are addressed with
//! «ty» in the present tense, and in impersonal forms where the past would
//! need a gender.

use super::{
    Endings,
    Gender::{F, M},
    Lexicon, Names, Online, WrittenOnly, numerals_before, plural_slavic, respell,
};

pub(crate) static LEXICON: Lexicon = Lexicon {
    pieces: Names {
        nom: ["pion", "skoczek", "goniec", "wieża", "hetman", "król"],
        acc: ["piona", "skoczka", "gońca", "wieżę", "hetmana", "króla"],
        genitive: ["piona", "skoczka", "gońca", "wieży", "hetmana", "króla"],
        plural: ["piony", "skoczki", "gońce", "wieże", "hetmany", "króle"],
        none: ["pionów", "skoczków", "gońców", "wież", "hetmanów", "królów"],
        gender: [M, M, M, F, M, M],
    },
    annex_pieces: Names {
        nom: ["Bauer", "Springer", "Laeufer", "Turm", "Dame", "Koenig"],
        acc: ["Bauera", "Springera", "Laeufera", "Turma", "Dame", "Koeniga"],
        genitive: ["Bauera", "Springera", "Laeufera", "Turma", "Dame", "Koeniga"],
        plural: ["Bauery", "Springery", "Laeufery", "Turmy", "Dame", "Koenigi"],
        none: ["Bauerów", "Springerów", "Laeuferów", "Turmów", "Dame", "Koenigów"],
        gender: [M, M, M, M, F, M],
    },
    adjectives: [
        [["biały", "biała"], ["białego", "białą"], ["białego", "białej"]],
        [["czarny", "czarna"], ["czarnego", "czarną"], ["czarnego", "czarnej"]],
    ],
    adjectives_plural: ["białe", "czarne"],
    whose: [
        [
            ["twój {piece}", "twoja {piece}"],
            ["twojego {piece}", "twoją {piece}"],
            ["twojego {piece}", "twojej {piece}"],
        ],
        [["{piece} przeciwnika"; 2]; 3],
    ],
    whose_plural: ["twoje {pieces}", "{pieces} przeciwnika"],
    the: [""; 2],
    the_nom: [""; 2],
    a: [""; 2],
    your: ["twój", "twoja", "twoje"],
    generic: ["bierka", "bierkę", "bierki"],
    nato_files: ["Alfa", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"],
    annex_files: ["Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector"],
    rank_words: ["jeden", "dwa", "trzy", "cztery", "pięć", "sześć", "siedem", "osiem"],
    annex_ranks: ["eins", "zwei", "drei", "vier", "fuenf", "sechs", "sieben", "acht"],
    to: "na",
    run: "od {first} do {last}",
    letters_alone: false,
    rank_runs: false,
    empty_ranks: "Linie poziome {list} są puste.",
    castles: ["krótka roszada", "długa roszada"],
    annex_castles: ["Kurze Rochade", "Lange Rochade"],
    sides: [["białe", "białych", "białym"], ["czarne", "czarnych", "czarnym"]],
    you_play: ["Grasz białymi.", "Grasz czarnymi."],
    takes: "bije",
    check: "szach",
    mate: "mat",
    en_passant: "w przelocie",
    or: "lub",
    promotion: "{move}, promocja na {piece_acc}",
    correction: "poprawka: {move}",
    withdrawn: "posunięcie cofnięte: {move}",
    last_move: [
        "ostatnie posunięcie {side_gen}: {move}.",
        "twoje ostatnie posunięcie: {move}.",
        "ostatnie posunięcie przeciwnika: {move}.",
    ],
    touch: "dotknięta bierka: {piece}",

    illegal: [
        "Nieprawidłowe posunięcie {side_gen} — {reason}.",
        "Twoje posunięcie jest nieprawidłowe — {reason}.",
        "Nieprawidłowe posunięcie przeciwnika — {reason}.",
    ],
    no_move: [
        "{side} nacisnęły zegar bez wykonania posunięcia, co jest karane jak nieprawidłowe posunięcie.",
        "Zegar naciśnięty bez wykonania posunięcia, co jest karane jak nieprawidłowe posunięcie.",
        "Przeciwnik nacisnął zegar bez wykonania posunięcia, co jest karane jak nieprawidłowe posunięcie.",
    ],
    king_in_check: "król byłby szachowany",
    cannot_move: "{piece} nie może przejść z {from} na {to}",
    cannot_move_generic: "bierka tak nie chodzi",
    castling_not_allowed: "roszada jest niedozwolona",
    unrecognised: "układ na szachownicy nie odpowiada żadnemu prawidłowemu posunięciu",
    moves_again: [
        "{side} ponownie wykonują posunięcie",
        "ponownie wykonujesz posunięcie",
        "przeciwnik ponownie wykonuje posunięcie",
    ],
    moves_again_touched: [
        "{side} ponownie wykonują posunięcie; jeśli {piece} z {sq} może się ruszyć, to tą bierką",
        "ponownie wykonujesz posunięcie; jeśli {piece} z {sq} może się ruszyć, to tą bierką",
        "przeciwnik ponownie wykonuje posunięcie; jeśli {piece} z {sq} może się ruszyć, to tą bierką",
    ],
    stands: [
        "Posunięcie {side_gen} było nieprawidłowe — {reason}. Pozostaje w mocy, jeśli {other} nie zareklamują go przed swoim posunięciem.",
        "Twoje posunięcie było nieprawidłowe — {reason}. Pozostaje w mocy, jeśli przeciwnik nie zareklamuje go przed swoim posunięciem.",
        "Posunięcie przeciwnika było nieprawidłowe — {reason}. Możesz je zareklamować przed swoim posunięciem.",
    ],
    touched_own: [
        "{side} najpierw dotknęły {piece_gen} na {sq}, a potem ruszyły inną bierką; {other} mogą reklamować.",
        "Najpierw dotknięto {piece_gen} na {sq}, a potem ruszono inną bierką; przeciwnik może reklamować.",
        "Przeciwnik najpierw dotknął {piece_gen} na {sq}, a potem ruszył inną bierką; możesz reklamować.",
    ],
    touched_opp: [
        "{side} dotknęły {piece_gen} na {sq} i nie zbiły, choć bicie było możliwe; {other} mogą reklamować.",
        "Dotknięto {piece_gen} na {sq} i nie zbito, choć bicie było możliwe; przeciwnik może reklamować.",
        "Przeciwnik dotknął {piece_gen} na {sq} i nie zbił, choć bicie było możliwe; możesz reklamować.",
    ],
    touched_both: [
        "{side} dotknęły {piece_gen} na {sq} i bierki przeciwnika, którą można było zbić pierwszą dotkniętą bierką, ale wykonały inne posunięcie; {other} mogą reklamować.",
        "Dotknięto {piece_gen} na {sq} i bierki przeciwnika, którą można było zbić pierwszą dotkniętą bierką, ale wykonano inne posunięcie; przeciwnik może reklamować.",
        "Przeciwnik dotknął {piece_gen} na {sq} i twojej bierki, którą można było zbić pierwszą dotkniętą bierką, ale wykonał inne posunięcie; możesz reklamować.",
    ],
    touched_generic: [
        "{side} dotknęły bierki, którą można było wykonać posunięcie, a ruszyły inną; {other} mogą reklamować.",
        "Dotknięto bierki, którą można było wykonać posunięcie, a ruszono inną; przeciwnik może reklamować.",
        "Przeciwnik dotknął bierki, którą można było wykonać posunięcie, a ruszył inną; możesz reklamować.",
    ],
    rook_first: [
        "{side} dotknęły {piece_gen} na {sq} przed królem, więc roszada była niedozwolona; {other} mogą reklamować.",
        "Dotknięto {piece_gen} na {sq} przed królem, więc roszada była niedozwolona; przeciwnik może reklamować.",
        "Przeciwnik dotknął {piece_gen} na {sq} przed królem, więc roszada była niedozwolona; możesz reklamować.",
    ],
    displaced: [
        "{side} przemieściły bierki; posunięcie pozostaje w mocy.",
        "Bierki zostały przemieszczone; posunięcie pozostaje w mocy.",
        "Przeciwnik przemieścił bierki; posunięcie pozostaje w mocy.",
    ],

    fix_move: "przestaw {piece_acc} z {from} z powrotem na {to}",
    fix_put: "postaw {piece_acc} z powrotem na {to}",
    fix_remove: "zdejmij {piece_acc} z {from}",
    board_differs: "Układ na szachownicy różni się od partii.",
    missing: "Brakuje: {list}.",
    extra: "Zbędne bierki na {list}.",
    board_ok: "Układ na szachownicy znów zgodny z partią.",
    engine_move: "Ruch komputera: {move}.",
    left: "Zostało: {steps}.",
    step_move: "przestaw {piece_acc} z {from} na {to}",
    step_put: "postaw {piece_acc} na {to}",
    step_remove: "zdejmij {piece_acc} z {from}",
    then: "; potem ",
    not_that_one: "Nie ta bierka: postaw {piece_acc} z powrotem na {sq}",
    misplaced: "{piece} ma stać na {belongs}, nie na {sq}.",
    misplaced_off: "Zdejmij {piece_acc} z pola {sq}.",
    missing_piece: "{piece} ma stać na {sq}.",
    other_move: "To nie jest ruch komputera: {move}.",
    halfway: "Teraz {step}.",
    hint: "Podpowiedź: {move}.",
    engine_level: "Poziom komputera: {level}.",
    take_back: ["Cofnięto posunięcie: {moves}.", "Cofnięto posunięcia: {moves}."],
    device_lost: [
        "Szachownica nie odpowiada: sprawdź kabel lub połączenie.",
        "Zegar nie odpowiada; partia trwa, czas liczony jest tutaj.",
        "Komputer przestał odpowiadać; uruchamiam go ponownie.",
        "Lichess nie odpowiada; ponawiam próbę.",
    ],
    device_back: [
        "Szachownica znów odpowiada.",
        "Zegar znów odpowiada.",
        "Komputer znów odpowiada.",
        "Lichess znów odpowiada.",
    ],
    online: Online {
        opponent_move: "{name}: {move}.",
        playing: "Partia na Lichess z {name}; grasz {side}.",
        sides: ["białymi", "czarnymi"],
        challenge: ["{name} wyzywa cię: {clock}.", "Wyzwanie wysłane do {name}: {clock}."],
        correspondence: "partia korespondencyjna",
        challenge_gone: ["Wyzwanie zostało wycofane.", "Wyzwanie zostało odrzucone."],
        takeback_offer: ["Przeciwnik prosi o cofnięcie posunięcia.", "Przeciwnik wycofał prośbę o cofnięcie."],
        taken_back: "Cofnięcie uzgodnione: ustaw szachownicę wstecz.",
        refused: "Lichess odrzucił posunięcie {move}: cofnij je.",
        opponent_gone: [
            "Przeciwnik opuścił partię.",
            "Przeciwnik opuścił partię; możesz zażądać wygranej.",
            "Przeciwnik wrócił.",
        ],
        ended: "Lichess zakończył partię: {status}.",
        statuses: [
            "przerwana",
            "przeciwnik odszedł",
            "czas minął",
            "pierwsze posunięcie nie padło na czas",
            "partia zakończona",
        ],
        rate_limited: "Lichess prosi o przerwę; następne żądanie za {seconds} sekund.",
        not_played: "Partia na koncie nie jest grana na tej szachownicy.",
        failed: "Lichess nie wykonał żądania.",
    },
    draw_offer: ["{side} proponują remis.", "Proponujesz remis.", "Przeciwnik proponuje remis."],
    draw_offer_irregular: [
        "{side} proponują remis. Propozycja obowiązuje, choć należy ją składać po swoim posunięciu, przed naciśnięciem zegara.",
        "Proponujesz remis. Propozycja obowiązuje, choć należy ją składać po swoim posunięciu, przed naciśnięciem zegara.",
        "Przeciwnik proponuje remis. Propozycja obowiązuje, choć należy ją składać po swoim posunięciu, przed naciśnięciem zegara.",
    ],
    draw_declined: ["{side} odrzucają remis.", "Odrzucasz remis.", "Przeciwnik odrzuca remis."],
    promotion_choice: "Promocja na {piece_acc}.",
    not_now: [
        "Nie wykonano jeszcze żadnego posunięcia.",
        "Najpierw wykonaj ruch komputera.",
        "Komputer jeszcze myśli.",
        "W tej partii nie gra komputer.",
        "Nie ma nieprawidłowego posunięcia do zareklamowania.",
        "Partia zakończona; można tylko zadawać pytania.",
    ],
    not_understood: "Nie zrozumiano: {typed}.",
    sensor_fault: "Czujnik na polu {square} chyba się zaciął; partia toczy się dalej bez niego, dopóki się nie zmieni.",
    sensor_ok: "Czujnik na polu {square} znów działa.",

    new_game: "Nowa partia.",
    chess960: "Szachy 960, pierwsza linia pozioma: {list}.",
    gets_time: [
        "{side} otrzymują dodatkowy czas: {time}.",
        "Otrzymujesz dodatkowy czas: {time}.",
        "Przeciwnik otrzymuje dodatkowy czas: {time}.",
    ],
    claim_upheld: [
        "Reklamacja {side_gen} jest uzasadniona: nieprawidłowe posunięcie {other_gen} zostaje cofnięte, {other} ponownie wykonują posunięcie; {side} otrzymują dodatkowy czas: {time}.",
        "Twoja reklamacja jest uzasadniona: nieprawidłowe posunięcie przeciwnika zostaje cofnięte, przeciwnik ponownie wykonuje posunięcie; otrzymujesz dodatkowy czas: {time}.",
        "Reklamacja przeciwnika jest uzasadniona: twoje nieprawidłowe posunięcie zostaje cofnięte, ponownie wykonujesz posunięcie; przeciwnik otrzymuje dodatkowy czas: {time}.",
    ],
    claim_rejected: [
        "Reklamacja {other_gen} jest nieuzasadniona: {side} otrzymują dodatkowy czas: {time}.",
        "Reklamacja przeciwnika jest nieuzasadniona: otrzymujesz dodatkowy czas: {time}.",
        "Twoja reklamacja jest nieuzasadniona: przeciwnik otrzymuje dodatkowy czas: {time}.",
    ],
    arbiter_adds: [
        "Sędzia przyznaje {side_dat} dodatkowy czas: {time}.",
        "Sędzia przyznaje ci dodatkowy czas: {time}.",
        "Sędzia przyznaje przeciwnikowi dodatkowy czas: {time}.",
    ],
    game_over: "Koniec partii.",
    endings: Endings {
        checkmate: ["Mat: wygrywają {side}.", "Mat: wygrywasz.", "Mat: wygrywa przeciwnik."],
        resignation: [
            "{other} poddają partię: wygrywają {side}.",
            "Przeciwnik poddaje partię: wygrywasz.",
            "Poddajesz partię: wygrywa przeciwnik.",
        ],
        flag_fall: [
            "Flaga {side_gen} opadła: wygrywają {other}.",
            "Twoja flaga opadła: wygrywa przeciwnik.",
            "Flaga przeciwnika opadła: wygrywasz.",
        ],
        flag_fall_draw: [
            "Flaga {side_gen} opadła, ale {other} nie mogą zamatować żadną serią prawidłowych posunięć: remis.",
            "Twoja flaga opadła, ale przeciwnik nie może zamatować żadną serią prawidłowych posunięć: remis.",
            "Flaga przeciwnika opadła, ale nie możesz zamatować żadną serią prawidłowych posunięć: remis.",
        ],
        illegal: [
            "Drugie nieprawidłowe posunięcie {side_gen}: wygrywają {other}.",
            "Twoje drugie nieprawidłowe posunięcie: wygrywa przeciwnik.",
            "Drugie nieprawidłowe posunięcie przeciwnika: wygrywasz.",
        ],
        illegal_draw: [
            "Drugie nieprawidłowe posunięcie {side_gen}, ale {other} nie mogą zamatować żadną serią prawidłowych posunięć: remis.",
            "Twoje drugie nieprawidłowe posunięcie, ale przeciwnik nie może zamatować żadną serią prawidłowych posunięć: remis.",
            "Drugie nieprawidłowe posunięcie przeciwnika, ale nie możesz zamatować żadną serią prawidłowych posunięć: remis.",
        ],
        claimed: [
            "Remis: {claim}, na reklamację {side_gen}.",
            "Remis: {claim}, na twoją reklamację.",
            "Remis: {claim}, na reklamację przeciwnika.",
        ],
        stalemate: "Pat: remis.",
        dead_position: "Martwa pozycja, żadna strona nie może zamatować: remis.",
        fivefold: "Pięciokrotne powtórzenie pozycji: remis.",
        seventy_five: "75 posunięć bez bicia i bez posunięcia pionem: remis.",
        agreement: "Remis za zgodą.",
        arbiter: [
            "Decyzja sędziego: wygrywają {side}.",
            "Decyzja sędziego: wygrywasz.",
            "Decyzja sędziego: wygrywa przeciwnik.",
        ],
        arbiter_draw: "Decyzja sędziego: remis.",
    },
    observation: "Uwaga: najpierw {first}, potem {then}.",
    written: WrittenOnly {
        observation: "{side}: szachownica pokazała najpierw {first}, potem {then}. Bierki puszczonej na polu nie wolno już przestawić na inne pole (4.7) — albo była powoli przesuwana.",
        undetermined: "Wyszukiwanie nie rozstrzygnęło w swoim limicie, czy {side} mogą zamatować: porażka pozostaje w mocy, sędzia może to sprawdzić ponownie.",
    },
    ambiguous: "Posunięcie niejednoznaczne: zapisano {chosen}; możliwe także: {others}.",
    claimable: [
        "{side} mogą reklamować remis: {claim}.",
        "Możesz reklamować remis: {claim}.",
        "Przeciwnik może reklamować remis: {claim}.",
    ],
    claims: ["trzykrotne powtórzenie pozycji", "zasada 50 posunięć"],
    paused: "Zegar zatrzymany.",
    resumed: "Zegar wznowiony.",
    clock_set: "Zegar ustawiony: {times}.",

    side_time: ["{side}: {time}", "twój czas: {time}", "czas przeciwnika: {time}"],
    time_readout: "{times}; posunięcie {n}",
    to_play: ["{side} na posunięciu", "jesteś na posunięciu", "przeciwnik na posunięciu"],
    time_warning: ["Czas {side_gen}: {time}.", "Twój czas: {time}.", "Czas przeciwnika: {time}."],
    period_added: [
        "{side} osiągnęły kontrolę czasu, dodatkowy czas: {time}.",
        "Kontrola czasu osiągnięta, dodatkowy czas: {time}.",
        "Przeciwnik osiągnął kontrolę czasu, dodatkowy czas: {time}.",
    ],
    to_control: ["{side_dat} {n} {moves}", "tobie {n} {moves}", "przeciwnikowi {n} {moves}"],
    moves_to_control: "Kontrola czasu po posunięciu {at}. Zostało: {list}",
    then_added: "potem dodatkowy czas: {time}",
    no_control: "Nie ma już kolejnej kontroli czasu.",
    moves: ["posunięcie", "posunięcia", "posunięć"],
    hours: ["godzina", "godziny", "godzin"],
    minutes: ["minuta", "minuty", "minut"],
    seconds: ["sekunda", "sekundy", "sekund"],
    plural: |n| plural_slavic(n, false),

    army: ["{side}: {list}.", "Twoje bierki: {list}.", "Bierki przeciwnika: {list}."],
    kind: ["{name} {side_gen}: {list}.", "{your} {name}: {list}.", "{name} przeciwnika: {list}."],
    no_kind: ["{side} nie mają {none}.", "Nie masz {none}.", "Przeciwnik nie ma {none}."],
    rank_pieces: "Linia pozioma {rank}: {list}.",
    file_pieces: "Linia pionowa {file}: {list}.",
    square_piece: "{square}: {piece}.",
    square_empty: "{square}: puste.",
    kind_on_board: ["Na szachownicy: {list}.", "Na szachownicy: brak."],
    square_differs: "{square}: na szachownicy {board}, w partii {game}.",
    empty: "pusta",
    vacant: "pusto",
    a_piece: "bierka",
};

/// The German words of Annex D as a Polish reader says them (the Polish
/// voice reads "zwei" as "zwej", "sechs" as "sechs" with a Polish ch), and
/// phonemes where no Polish spelling reads right: "sieben" (zi- would be
/// read ź-), "Lange" without its g, "Koenig" with its final ch.
const RESPELL: &[(&str, &str)] = &[
    ("Cesar", "Cezar"),
    ("Hector", "Hektor"),
    ("eins", "ajns"),
    ("zwei", "cwaj"),
    ("drei", "draj"),
    ("vier", "fir"),
    ("fuenf", "fynf"),
    ("sechs", "zeks"),
    ("sieben", "[[z'ibEn]]"),
    ("Koenig", "[[k'Enix]]"),
    ("Koeniga", "[[kEn'iga]]"),
    ("Koenigi", "[[kEn'igi]]"),
    ("Koenigów", "[[kEn'iguf]]"),
    ("Laeufer", "Lojfer"),
    ("Laeufera", "Lojfera"),
    ("Laeufery", "Lojfery"),
    ("Laeuferów", "Lojferów"),
    ("Springer", "[[SpR'iNER]]"),
    ("Springera", "[[SpRiN'ERa]]"),
    ("Springery", "[[SpRiN'ERy]]"),
    ("Springerów", "[[SpRiN'ERuf]]"),
    ("Kurze", "Kurce"),
    ("Lange", "[[l'aNE]]"),
    ("Rochade", "Roszade"),
    ("Charlie", "Czarli"),
];

pub(super) fn spoken(text: &str) -> String {
    respell(&feminine_numerals(text), RESPELL)
}

/// espeak-ng says "jeden minuta", "dwa minuty": give it "jedna", "dwie".
fn feminine_numerals(text: &str) -> String {
    numerals_before(text, &["minut", "sekund", "godzin"], |n| {
        let tens = n - n % 10;
        match (n, n % 10, n % 100) {
            (1, ..) => Some("jedna".to_owned()),
            (_, 2, d) if d != 12 => Some(if tens == 0 { "dwie".to_owned() } else { format!("{tens} dwie") }),
            _ => None,
        }
    })
}
