// The core's events, exactly as docs/events.md describes them and the Rust
// side serialises them (crates/core/src/event.rs). One member per `event`
// kind; crates/net/tests/web_types.rs type-checks every kind the Rust side
// can write against this union. The page ignores kinds it does not know, as
// the document asks (more may be added). Events are data: their words come
// beside them from the server (`text` in api.ts), never from here.

export type Side = 'white' | 'black';
/** A title FIDE awards. */
export type Title = 'GM' | 'IM' | 'FM' | 'CM' | 'WGM' | 'WIM' | 'WFM' | 'WCM';
/** `"e4"`. */
export type Square = string;
/** A FEN letter: `"N"` a white knight, `"p"` a black pawn. */
export type Piece = string;

export type Article =
  | '4.3.1'
  | '4.3.2'
  | '4.3.3'
  | '4.4.2'
  | '4.7'
  | '5.1.1'
  | '5.1.2'
  | '5.2.1'
  | '5.2.2'
  | '5.2.3'
  | '6.2.1'
  | '6.9'
  | '6.11'
  | '7.4.1'
  | '7.5.1'
  | '7.5.3'
  | '7.5.5'
  | '9.2'
  | '9.3'
  | '9.5.3'
  | '9.6.1'
  | '9.6.2'
  | '12';

export type GameResult = '1-0' | '0-1' | '1/2-1/2';

export type EndReason =
  | 'checkmate'
  | 'stalemate'
  | 'insufficient_material'
  | 'dead_position'
  | 'fivefold_repetition'
  | 'seventy_five_moves'
  | 'threefold_repetition'
  | 'fifty_moves'
  | 'flag_fall'
  | 'illegal_moves'
  | 'resignation'
  | 'agreement'
  | 'arbiter';

export type IrregularReason =
  | 'leaves_king_in_check'
  | 'not_a_move_of_that_piece'
  | 'castling_not_allowed'
  | 'unrecognised'
  | 'no_move'
  | 'touch_move'
  | 'rook_first'
  | 'displaced';

export interface Placed {
  sq: Square;
  piece: Piece;
}

/** One step that puts the board right: move (`from`, `to`), put back (`to`) or take off (`from`). */
export interface Fix {
  piece?: Piece;
  from?: Square;
  to?: Square;
}

export interface Attempt {
  piece: Piece;
  from: Square;
  to: Square;
}

/** A move as made on the board (`move`, `last_move`). */
export interface MoveInfo {
  ply: number;
  side: Side;
  san: string;
  uci: string;
  piece: Piece;
  from: Square;
  to: Square;
  capture?: Piece;
  /** The role promoted to, lower case (`"q"`). */
  promotion?: string;
  castle?: 'king' | 'queen';
  en_passant?: boolean;
  check?: boolean;
  mate?: boolean;
}

interface At {
  /** Milliseconds since the start of the game. */
  t: number;
}

export interface StartEvent extends At {
  event: 'start';
  fen: string;
  chess960: boolean;
  time_control?: string;
  white_ms?: number;
  black_ms?: number;
}

export interface TouchEvent extends At {
  event: 'touch';
  sq: Square;
  piece: Piece;
  ply: number;
  binding?: Article;
}

export interface MoveEvent extends At, MoveInfo {
  event: 'move';
  correction?: boolean;
}

export interface WithdrawnEvent extends At {
  event: 'withdrawn';
  ply: number;
  san: string;
}

export interface CompleteEvent extends At {
  event: 'complete';
  ply: number;
  side: Side;
  san: string;
  uci: string;
  clock_ms?: number;
  opponent_ms?: number;
}

export interface IrregularityEvent extends At {
  event: 'irregularity';
  article: Article;
  side: Side;
  ply: number;
  reason: IrregularReason;
  /** An illegal move that stands unless the opponent claims before moving (A.5.2). */
  stands?: boolean;
  attempt?: Attempt;
  touched?: Placed;
  fix?: Fix[];
}

export interface PenaltyEvent extends At {
  event: 'penalty';
  article: Article;
  /** Who benefits. */
  side: Side;
  ms: number;
}

export interface GameOverEvent extends At {
  event: 'game_over';
  result: GameResult;
  reason: EndReason;
  article: Article;
  /** The mate search did not settle whether the opponent can mate (6.9, 7.5.5): the loss stands. */
  undetermined?: boolean;
}

export interface ObservationEvent extends At {
  event: 'observation';
  article: Article;
  side: Side;
  ply: number;
  first: string;
  then: string;
}

export interface DisplacedEvent extends At {
  event: 'displaced';
  sq: Square;
  piece: Piece;
  ply: number;
}

export interface AmbiguousEvent extends At {
  event: 'ambiguous';
  ply: number;
  candidates: string[];
  chosen: string;
}

export interface ClaimableEvent extends At {
  event: 'claimable';
  claim: 'threefold' | 'fifty';
  article: Article;
  side: Side;
  ply: number;
}

export interface BoardMismatchEvent extends At {
  event: 'board_mismatch';
  missing: Placed[];
  extra: Square[];
  fix: Fix[];
}

export interface BoardOkEvent extends At {
  event: 'board_ok';
}

export interface SensorFaultEvent extends At {
  event: 'sensor_fault';
  sq: Square;
  reading: boolean;
}

export interface SensorOkEvent extends At {
  event: 'sensor_ok';
  sq: Square;
}

export interface PausedEvent extends At {
  event: 'paused';
}

export interface ResumedEvent extends At {
  event: 'resumed';
}

export interface ClockSetEvent extends At {
  event: 'clock_set';
  white_ms: number;
  black_ms: number;
}

export interface TimeEvent extends At {
  event: 'time';
  white_ms: number;
  black_ms: number;
  white_moves: number;
  black_moves: number;
  running?: Side;
}

export interface PositionEvent extends At {
  event: 'position';
  fen: string;
  /** A move announced and not yet carried out on the board: the position is the one before it. */
  pending?: MoveInfo;
}

export interface LastMoveEvent extends At, MoveInfo {
  event: 'last_move';
}

export interface TimeWarningEvent extends At {
  event: 'time_warning';
  side: Side;
  remaining_ms: number;
}

/** On request: where a side's pieces (of one kind, `role` a lowercase letter) stand. */
export interface PiecesEvent extends At {
  event: 'pieces';
  side: Side;
  role?: string;
  /** For one kind: where the board shows those pieces, when it differs from the game. */
  board?: Square[];
  pieces: Placed[];
}

/** On request: what stands on a rank (1 to 8), file a to h. */
export interface RankEvent extends At {
  event: 'rank';
  rank: number;
  pieces: Placed[];
}

/** On request: what stands on a file (`a` to `h`), rank 1 to 8. */
export interface FileEvent extends At {
  event: 'file';
  file: string;
  pieces: Placed[];
}

/** What the board shows on a square where it differs from the game. */
export type OnBoard = 'empty' | 'unknown' | { piece: Piece };

/**
 * On request: what stands on a square; no `piece` when it is empty; `board`
 * when the board shows otherwise.
 */
export interface SquareEvent extends At {
  event: 'square';
  sq: Square;
  piece?: Piece;
  board?: OnBoard;
  /** A move announced and not yet carried out on the board that changes this square. */
  pending?: MoveInfo;
}

/** One side's way to the next time control. */
export interface ToControl {
  moves: number;
  left?: number;
  added_ms?: number;
}

/** On request: each side's way to the next time control. */
export interface MovesToControlEvent extends At {
  event: 'moves_to_control';
  white: ToControl;
  black: ToControl;
}

/** The engine's view when it chose, from White's point of view. */
export interface EngineEval {
  cp?: number;
  mate?: number;
  line: string[];
}

/** The engine chose its move: the player carries it out in these steps. */
export interface OpponentMoveEvent extends At, MoveInfo {
  event: 'opponent_move';
  steps: Fix[];
  /** Only in a game no arbiter supervises. */
  eval?: EngineEval;
  /** Asked for again with part of the move done: the steps still to do. */
  left?: Fix[];
  /** Online: the player's own move, made on the website, not the opponent's. */
  website?: boolean;
}

/** What went wrong while the engine's move was carried out. */
export type Slip =
  | { problem: 'not_that_one'; sq: Square; piece: Piece; instead?: Fix }
  | { problem: 'misplaced'; sq: Square; piece?: Piece; belongs?: Square }
  | { problem: 'missing'; sq: Square; piece: Piece }
  | { problem: 'other_move'; san: string; uci: string }
  | { problem: 'halfway'; next: Fix };

/** The engine's move carried out wrongly: what is wrong, and the fix. */
export interface OpponentFixEvent extends At {
  event: 'opponent_fix';
  ply: number;
  slip: Slip;
  fix: Fix[];
}

/** On request: the engine's suggestion for the player on move. */
export interface HintEvent extends At, MoveInfo {
  event: 'hint';
}

/** The engine's level was set at the board, 0 to 10. */
export interface EngineLevelEvent extends At {
  event: 'engine_level';
  level: number;
}

/**
 * Against the engine, the board was set back to an earlier position: the
 * moves `taken` (SAN, in the order played) are gone, `ply` is the ply now to
 * be made, and the clocks show what they showed then.
 */
export interface TakeBackEvent extends At {
  event: 'take_back';
  ply: number;
  taken: string[];
  white_ms?: number;
  black_ms?: number;
}

/**
 * Online, the board was set back to an earlier position: the take-back is
 * asked of the server; `ply` is the ply to be made again.
 */
export interface TakeBackAskedEvent extends At {
  event: 'take_back_asked';
  ply: number;
}

/** A device of the daemon's. */
export type Device = 'board' | 'clock' | 'engine' | 'online' | 'partner';

/** Why a device was lost: a code the board's words say in its language. */
export type Lost =
  | 'ended'
  | 'no_start'
  | 'exited'
  | 'no_answer'
  | 'faulty'
  | 'io'
  | 'unplugged'
  | 'connection';

/** A device stopped answering (unplugged, out of range, an engine that
 * crashed or hung and is being restarted); the game goes on. */
export interface DeviceLostEvent extends At {
  event: 'device_lost';
  device: Device;
  why: Lost;
  /** The device's own report (often English): shown, never the sentence. */
  diagnostic?: string;
}

/** The device answers again. */
export interface DeviceBackEvent extends At {
  event: 'device_back';
  device: Device;
}

/** What an online game's server (Lichess) says besides the moves. */
export type Online =
  | { what: 'playing'; game: string; opponent: string; ai_level?: number; side: Side }
  | { what: 'challenge'; id: string; player: string; incoming: boolean; clock?: string }
  | { what: 'challenge_gone'; id: string; declined: boolean }
  | { what: 'takeback_offer'; open: boolean }
  | { what: 'taken_back'; ply: number }
  | { what: 'takeback_declined' }
  | { what: 'refused'; ply: number; uci: string; san: string; why: 'server' | 'superseded' | 'game_over' }
  | { what: 'opponent_gone'; gone: boolean; claim_in_s?: number }
  | { what: 'ended'; status: 'aborted' | 'timeout' | 'outoftime' | 'noStart' | 'other' }
  | { what: 'rate_limited'; for_s: number }
  | { what: 'not_played'; game: string; reason: NotPlayedReason }
  | { what: 'failed'; why: FailedWhy }
  | { what: 'chat'; from: string; text: string }
  | { what: 'chat_held'; count: number }
  | { what: 'chat_lines'; lines: { from: string; text: string }[] }
  | { what: 'token'; state: 'refused' | 'unknown' | 'lacks_scope' | 'accepted' }
  | { what: 'asked'; ask: OnlineAsk; standing: boolean };

/** Why the online server did not carry out a request. */
export type FailedWhy =
  | 'no_game'
  | 'not_playable'
  | 'busy'
  | 'refused'
  | 'network'
  | 'token'
  | 'rate_limited';

/** Why a game on the online account is not played on the board. */
export type NotPlayedReason =
  | 'another_game'
  | 'not_board_api'
  | 'variant'
  | 'no_side'
  | 'not_a_player'
  | 'sides_disagree'
  | 'other_game'
  | 'illegal_moves'
  | 'start_position'
  | 'gone';

/** A player's answer or request to the online server, made at the board. */
export type OnlineAsk =
  | 'abort'
  | 'draw_no'
  | 'takeback_no'
  | 'takeback_yes'
  | 'accept'
  | 'decline'
  | 'claim_victory'
  | 'chat';

export type OnlineEvent = At & {
  event: 'online';
} & Online;

/** Where the one clock at a table of two boards is, from a board. */
export type TableClock = 'here' | 'partner';

/**
 * Two boards, one game: what the partner board's link says besides the
 * game's messages — a partner that does not fit (each said once, on both
 * boards, with what to change), a second daemon by this board's name, and
 * after a restart how the game goes on.
 */
export type Pair =
  | { what: 'same_side'; partner: string; side: Side }
  | { what: 'time_control'; partner: string; ours?: string; theirs?: string }
  | { what: 'table_clock'; partner: string; ours?: TableClock; theirs?: TableClock }
  | { what: 'other_game'; partner: string }
  | { what: 'twin'; board: string }
  | { what: 'agreed'; partner: string }
  | { what: 'goes_on'; to_move: Side; carrying?: boolean; clocks?: 'run' | 'stopped' | 'at_table' };

export type PairEvent = At & {
  event: 'pair';
} & Pair;

/**
 * A draw offered (9.1.2): by the engine with its move, or by a player;
 * `irregular` when not made after the offerer's move (9.1.2.1).
 */
export interface DrawOfferEvent extends At {
  event: 'draw_offer';
  side: Side;
  irregular?: boolean;
}

/** The promotion selector was set to this piece (`q`, `r`, `b`, `n`). */
export interface PromotionChoiceEvent extends At {
  event: 'promotion_choice';
  role: string;
}

/** Why an input changes nothing now. */
export type NotNow =
  | 'no_move_yet'
  | 'carry_out_first'
  | 'engine_thinking'
  | 'no_engine'
  | 'nothing_to_claim'
  | 'game_over'
  | 'no_opponent';

/** An input or a question that changes nothing now, and why. */
export interface NotNowEvent extends At {
  event: 'not_now';
  why: NotNow;
}

/** A typed command the daemon did not understand. */
export interface NotUnderstoodEvent extends At {
  event: 'not_understood';
  typed: string;
}

/** A player of a round's pairing, as the pairing program names them. */
export interface PairedPlayer {
  /** "Lastname, Firstname". */
  name: string;
  title?: Title;
  elo?: number;
  fide_id?: number;
  /** FIDE's three letters: "POL". */
  federation?: string;
}

/**
 * The round's pairing for this board, from the hall: the tournament, the
 * round, the board's number and who plays. It decides over the board's own
 * players, event and round.
 */
export interface PairingEvent extends At {
  event: 'pairing';
  tournament?: string;
  round: number;
  board: number;
  white: PairedPlayer;
  black: PairedPlayer;
}

/** The side offered a draw declined it by making its move (9.1.2.3). */
export interface DrawDeclinedEvent extends At {
  event: 'draw_declined';
  side: Side;
}

export type CoreEvent =
  | StartEvent
  | TouchEvent
  | MoveEvent
  | WithdrawnEvent
  | CompleteEvent
  | IrregularityEvent
  | PenaltyEvent
  | GameOverEvent
  | ObservationEvent
  | DisplacedEvent
  | AmbiguousEvent
  | ClaimableEvent
  | BoardMismatchEvent
  | BoardOkEvent
  | SensorFaultEvent
  | SensorOkEvent
  | PausedEvent
  | ResumedEvent
  | ClockSetEvent
  | TimeEvent
  | PositionEvent
  | LastMoveEvent
  | TimeWarningEvent
  | PiecesEvent
  | RankEvent
  | FileEvent
  | SquareEvent
  | MovesToControlEvent
  | OpponentMoveEvent
  | OpponentFixEvent
  | HintEvent
  | TakeBackEvent
  | TakeBackAskedEvent
  | DrawOfferEvent
  | DrawDeclinedEvent
  | DeviceLostEvent
  | DeviceBackEvent
  | OnlineEvent
  | PairEvent
  | EngineLevelEvent
  | PromotionChoiceEvent
  | NotNowEvent
  | NotUnderstoodEvent
  | PairingEvent;

/** The rulings a board's record keeps for the arbiter. */
export type Ruling = IrregularityEvent | PenaltyEvent | ClaimableEvent | ObservationEvent;
