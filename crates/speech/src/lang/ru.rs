//! Russian. Annex D names in the Cyrillic of the Russian text of the Laws
//! (Анна … Хектор, айнс … ахт, кёниг … бауэр), declined as Russian declines
//! masculine loanwords for pieces (взять шпрингера); «даме» stays as it is.

use super::{
    Gender::{F, M},
    Lexicon, Names, map_words, numerals_before, plural_slavic,
};

pub(crate) static LEXICON: Lexicon = Lexicon {
    pieces: Names {
        nom: ["пешка", "конь", "слон", "ладья", "ферзь", "король"],
        acc: ["пешку", "коня", "слона", "ладью", "ферзя", "короля"],
        plural: ["пешки", "кони", "слоны", "ладьи", "ферзи", "короли"],
        gender: [F, M, M, F, M, M],
    },
    annex_pieces: Names {
        nom: ["бауэр", "шпрингер", "лойфер", "турм", "даме", "кёниг"],
        acc: ["бауэра", "шпрингера", "лойфера", "турма", "даме", "кёнига"],
        plural: ["бауэры", "шпрингеры", "лойферы", "турмы", "даме", "кёниги"],
        gender: [M, M, M, M, F, M],
    },
    adjectives: [[["белый", "белая"], ["белого", "белую"]], [["чёрный", "чёрная"], ["чёрного", "чёрную"]]],
    generic: ["фигура", "фигуру"],
    nato_files: ["Альфа", "Браво", "Чарли", "Дельта", "Эхо", "Фокстрот", "Гольф", "Отель"],
    annex_files: ["Анна", "Белла", "Цезарь", "Давид", "Ева", "Феликс", "Густав", "Хектор"],
    rank_words: ["один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь"],
    annex_ranks: ["айнс", "цвай", "драй", "фир", "фюнф", "зекс", "зибен", "ахт"],
    castles: ["короткая рокировка", "длинная рокировка"],
    annex_castles: ["Кюрце Рошаде", "Ланге Рошаде"],
    sides: ["белые", "чёрные"],
    sides_gen: ["белых", "чёрных"],
    takes: "бьёт",
    check: "шах",
    mate: "мат",
    en_passant: "на проходе",
    or: "или",
    promotion: "{move}, превращается в {piece_acc}",
    correction: "исправление: {move}",
    withdrawn: "ход отменён: {move}",
    last_move: "последний ход {side_gen}: {move}",
    touch: "тронута фигура: {piece}",

    king_in_check: "Невозможный ход: король оказался бы под шахом.",
    cannot_move: "Невозможный ход: {piece} не может пойти с {from} на {to}.",
    cannot_move_generic: "Невозможный ход: фигура так не ходит.",
    castling_not_allowed: "Невозможный ход: рокировка не разрешена.",
    unrecognised: "Позиция на доске не соответствует ни одному допустимому ходу.",
    no_move: "Часы нажаты без хода.",
    touch_move: "Тронул — ходи: нужно ходить тронутой фигурой, {piece} {sq}.",
    touch_capture: "Тронул — бей: нужно взять {piece_acc} на {sq}.",
    touch_generic: "Тронул — ходи: нужно ходить тронутой фигурой.",
    rook_first: "Ладья тронута раньше короля: рокировка запрещена.",
    displaced: "Сдвинутые фигуры нужно поставить на место.",

    fix_move: "{piece} с {from} обратно на {to}",
    fix_put: "{piece} обратно на {to}",
    fix_remove: "убрать {piece_acc} с {from}",
    board_differs: "Позиция на доске отличается от партии.",
    missing: "Не хватает: {list}.",
    extra: "Лишние фигуры на {list}.",
    board_ok: "Позиция на доске снова совпадает с партией.",
    sensor_fault: "Датчик на поле {square}, похоже, залип; партия продолжается без него, пока он не изменится.",
    sensor_ok: "Датчик на поле {square} снова работает.",

    new_game: "Новая партия.",
    chess960: "Шахматы Фишера, первая горизонталь: {list}.",
    penalty: "Дополнительное время для {side_gen}: {time}.",
    game_over: "Партия окончена: {reason}.",
    results: ["Победа белых.", "Победа чёрных.", "Ничья."],
    end_reasons: [
        "мат",
        "пат",
        "мёртвая позиция",
        "пятикратное повторение позиции",
        "правило 75 ходов",
        "троекратное повторение позиции",
        "правило 50 ходов",
        "просрочка времени",
        "второй невозможный ход",
        "сдача",
        "ничья по соглашению",
        "решение арбитра",
    ],
    observation: "Внимание: сначала {first}, затем {then}.",
    ambiguous: "Неоднозначный ход: записано: {chosen}; возможно также: {others}.",
    claimable: "{side} могут потребовать ничью: {claim}.",
    claims: ["троекратное повторение позиции", "правило 50 ходов"],
    paused: "Часы остановлены.",
    resumed: "Часы снова идут.",
    clock_set: "Часы установлены: {times}.",

    side_time: "у {side_gen} {time}",
    time_readout: "{times}; ход {n}",
    to_play: "ходят {side}",
    time_warning: "Время {side_gen}: {time}.",
    hours: ["час", "часа", "часов"],
    minutes: ["минута", "минуты", "минут"],
    seconds: ["секунда", "секунды", "секунд"],
    plural: |n| plural_slavic(n, true),

    side_pieces: "{side}: {list}.",
    rank_pieces: "Горизонталь {rank}: {list}.",
    empty: "пусто",

    respell: &[],
    feminine_numerals,
};

/// espeak-ng says "один минута", "два минуты": give it "одна", "две"
/// (21 as "20 одна", which it reads "двадцать одна").
fn feminine_numerals(text: &str) -> String {
    numerals_before(text, &["минут", "секунд"], |n| {
        let word = match (n % 10, n % 100) {
            (1, d) if d != 11 => "одна",
            (2, d) if d != 12 => "две",
            _ => return None,
        };
        let tens = n - n % 10;
        Some(if tens == 0 { word.to_owned() } else { format!("{tens} {word}") })
    })
}

/// Russian players read the Latin file letters aloud as "е", "эф", "аш";
/// espeak-ng would switch to English for them.
pub(super) fn cyrillic_squares(text: &str) -> String {
    const LETTERS: [&str; 8] = ["а", "бэ", "цэ", "дэ", "е", "эф", "жэ", "аш"];
    map_words(text, |w| {
        let mut chars = w.chars();
        let file = chars.next().filter(|c| ('a'..='h').contains(c))?;
        let letter = LETTERS[file as usize - 'a' as usize];
        match (chars.next(), chars.next()) {
            (None, _) => Some(letter.to_owned()),
            (Some(r @ '1'..='8'), None) => Some(format!("{letter} {r}")),
            _ => None,
        }
    })
}
