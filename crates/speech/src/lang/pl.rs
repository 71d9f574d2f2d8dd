//! Polish. Annex D words keep the Laws' spelling (the Polish text writes them
//! as the English one does) and decline like Polish loanwords (na Springera);
//! the voice gets Polish respellings of them.

use super::{
    Gender::{F, M},
    Lexicon, Names, numerals_before, plural_slavic,
};

pub(crate) static LEXICON: Lexicon = Lexicon {
    pieces: Names {
        nom: ["pion", "skoczek", "goniec", "wieża", "hetman", "król"],
        acc: ["piona", "skoczka", "gońca", "wieżę", "hetmana", "króla"],
        plural: ["piony", "skoczki", "gońce", "wieże", "hetmany", "króle"],
        gender: [M, M, M, F, M, M],
    },
    annex_pieces: Names {
        nom: ["Bauer", "Springer", "Laeufer", "Turm", "Dame", "Koenig"],
        acc: ["Bauera", "Springera", "Laeufera", "Turma", "Dame", "Koeniga"],
        plural: ["Bauery", "Springery", "Laeufery", "Turmy", "Dame", "Koenigi"],
        gender: [M, M, M, M, F, M],
    },
    adjectives: [[["biały", "biała"], ["białego", "białą"]], [["czarny", "czarna"], ["czarnego", "czarną"]]],
    generic: ["bierka", "bierkę"],
    nato_files: ["Alfa", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"],
    annex_files: ["Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector"],
    rank_words: ["jeden", "dwa", "trzy", "cztery", "pięć", "sześć", "siedem", "osiem"],
    annex_ranks: ["eins", "zwei", "drei", "vier", "fuenf", "sechs", "sieben", "acht"],
    castles: ["krótka roszada", "długa roszada"],
    annex_castles: ["Kurze Rochade", "Lange Rochade"],
    sides: ["białe", "czarne"],
    sides_gen: ["białych", "czarnych"],
    takes: "bije",
    check: "szach",
    mate: "mat",
    en_passant: "w przelocie",
    or: "lub",
    promotion: "{move}, promocja na {piece_acc}",
    correction: "poprawka: {move}",
    withdrawn: "ruch cofnięty: {move}",
    last_move: "ostatni ruch {side_gen}: {move}",
    touch: "dotknięta bierka: {piece}",

    king_in_check: "Nieprawidłowy ruch: król znalazłby się pod szachem.",
    cannot_move: "Nieprawidłowy ruch: {piece} nie może przejść z {from} na {to}.",
    cannot_move_generic: "Nieprawidłowy ruch: bierka tak nie chodzi.",
    castling_not_allowed: "Nieprawidłowy ruch: roszada niedozwolona.",
    unrecognised: "Układ na szachownicy nie odpowiada żadnemu prawidłowemu ruchowi.",
    no_move: "Zegar naciśnięty bez wykonania ruchu.",
    touch_move: "Bierka dotknięta – bierka ruszona: {piece} z {sq} musi wykonać ruch.",
    touch_capture: "Bierka dotknięta: trzeba zbić {piece_acc} na {sq}.",
    touch_generic: "Bierka dotknięta – bierka ruszona: dotknięta bierka musi wykonać ruch.",
    rook_first: "Wieża dotknięta przed królem: roszada niedozwolona.",
    displaced: "Przesunięte bierki trzeba ustawić z powrotem.",

    fix_move: "{piece} z {from} z powrotem na {to}",
    fix_put: "{piece} z powrotem na {to}",
    fix_remove: "zdjąć {piece_acc} z {from}",
    board_differs: "Układ na szachownicy różni się od partii.",
    missing: "Brakuje: {list}.",
    extra: "Zbędne bierki na {list}.",
    board_ok: "Układ na szachownicy znów zgodny z partią.",
    sensor_fault: "Czujnik na polu {square} chyba się zaciął; partia toczy się dalej bez niego, dopóki się nie zmieni.",
    sensor_ok: "Czujnik na polu {square} znów działa.",

    new_game: "Nowa partia.",
    chess960: "Szachy 960, pierwszy rząd: {list}.",
    penalty: "Dodatkowy czas dla {side_gen}: {time}.",
    game_over: "Koniec partii: {reason}.",
    results: ["Wygrywają białe.", "Wygrywają czarne.", "Remis."],
    end_reasons: [
        "mat",
        "pat",
        "martwa pozycja",
        "pięciokrotne powtórzenie pozycji",
        "zasada 75 posunięć",
        "trzykrotne powtórzenie pozycji",
        "zasada 50 posunięć",
        "przekroczenie czasu",
        "drugi nieprawidłowy ruch",
        "poddanie partii",
        "remis za zgodą",
        "decyzja sędziego",
    ],
    observation: "Uwaga: najpierw {first}, potem {then}.",
    ambiguous: "Ruch niejednoznaczny: zapisano: {chosen}; możliwe także: {others}.",
    claimable: "{side} mogą zażądać remisu: {claim}.",
    claims: ["trzykrotne powtórzenie pozycji", "zasada 50 posunięć"],
    paused: "Zegar zatrzymany.",
    resumed: "Zegar wznowiony.",
    clock_set: "Zegar ustawiony: {times}.",

    side_time: "{side}: {time}",
    time_readout: "{times}; posunięcie {n}",
    to_play: "{side} na posunięciu",
    time_warning: "Czas {side_gen}: {time}.",
    hours: ["godzina", "godziny", "godzin"],
    minutes: ["minuta", "minuty", "minut"],
    seconds: ["sekunda", "sekundy", "sekund"],
    plural: |n| plural_slavic(n, false),

    side_pieces: "{side}: {list}.",
    rank_pieces: "Rząd {rank}: {list}.",
    empty: "pusto",

    respell: &[
        ("zwei", "cwaj"),
        ("drei", "draj"),
        ("vier", "fir"),
        ("fuenf", "fynf"),
        ("sechs", "zeks"),
        ("sieben", "ziben"),
        ("Hector", "Hektor"),
        ("Koenig", "Kenig"),
        ("Koeniga", "Keniga"),
        ("Koenigi", "Kenigi"),
        ("Laeufer", "Lojfer"),
        ("Laeufera", "Lojfera"),
        ("Laeufery", "Lojfery"),
        ("Springer", "Szpringer"),
        ("Springera", "Szpringera"),
        ("Springery", "Szpringery"),
        ("Kurze", "Kurce"),
        ("Rochade", "Roszade"),
    ],
    feminine_numerals,
};

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
