// What the server sends, exactly as crates/net/API.md describes it and the
// Rust side serialises it; crates/net/tests/web_types.rs type-checks real
// replies of a real server against these types.
import type { CoreEvent, EndReason, EngineEval, GameResult, Ruling, Side, Title } from './events';

export type { Title };

/** The game's tags; each left out when unknown. */
export interface Tags {
  white?: string;
  black?: string;
  event?: string;
  site?: string;
  round?: string;
  date?: string;
  time_control?: string;
  /** What the board's config says of each player (for broadcasts). */
  white_fide_id?: number;
  white_title?: Title;
  white_elo?: number;
  black_fide_id?: number;
  black_title?: Title;
  black_elo?: number;
  /** From the round's pairing: each player's federation (FIDE's three letters). */
  white_federation?: string;
  black_federation?: string;
  /** From the round's pairing: the board's number in the round. */
  board?: number;
  /**
   * One game on two boards: this board's side and its partner board. The
   * hall shows a pair whose boards name each other as one game, `W+B`.
   */
  pair?: Paired;
}

export interface Paired {
  with: string;
  plays: Side;
}

export interface FeedMove {
  ply: number;
  /** Worked out by the server on its own position. */
  san: string;
  uci: string;
  /** The mover's time after the press; left out without a clock. */
  clock_ms?: number;
  /** An illegal move that stood (A.5.2), and every move after it. */
  off_record?: boolean;
}

/** The readings as of game time `at_t`, taken by the server at `at_unix_ms`. */
export interface Clocks {
  white_ms: number | null;
  black_ms: number | null;
  running: Side | null;
  at_t: number;
  at_unix_ms: number | null;
}

/** A ruling as a board's record keeps it: the event, and the board's words
 * for it (left out when the board sent none). */
export type Told<E> = E & { text?: string };

export interface Spoken {
  t: number;
  text: string;
}

export interface ArbiterNote {
  t: number;
  text: string;
}

/** A board's place in a team match. */
export interface BoardTeams {
  match: string;
  /** 1 = top board. */
  board: number;
  white_team: string;
  black_team: string;
  /** As the MatchScore tag: `Home 2.5 - 1.5 Away`. */
  score_text: string;
}

/** `GET /api/game/{id}`, and each of `/api/hall`'s boards. */
/** The engine's view after its move `san` (ply `ply`), from White's point of view. */
export interface EngineView extends EngineEval {
  ply: number;
  san: string;
}

export interface BoardData {
  id: string;
  epoch: number;
  seq: number;
  tags: Tags;
  start_fen: string;
  chess960: boolean;
  fen: string;
  moves: FeedMove[];
  clocks: Clocks;
  paused: boolean;
  result: GameResult | null;
  end_reason: EndReason | null;
  /** The board's words for how the game ended. */
  end_text?: string;
  irregularities: Told<Ruling>[];
  spoken: Spoken[];
  arbiter_notes?: ArbiterNote[];
  last_t: number;
  /** The engine's view at its last move (a game against an engine no arbiter supervises). */
  engine?: EngineView;
  team: BoardTeams | null;
  /** In `GET /api/game/{id}` only: the server's clock (Unix ms) as it wrote the reply. */
  now_unix_ms?: number;
}

export interface TeamScore {
  name: string;
  points: number;
}

export interface BoardScore {
  board: number;
  id: string;
  white_team: string;
  black_team: string;
  result: GameResult | null;
  /** `null` while the board plays. */
  home_points: number | null;
  away_points: number | null;
}

export interface MatchScore {
  name: string;
  home: TeamScore;
  away: TeamScore;
  boards: BoardScore[];
  finished: boolean;
}

/** Whether the server can vouch that its boards are the hall's own. */
export type Trust = 'own_board' | 'hall_key' | 'none';

/** `GET /api/hall`. */
export interface HallData {
  hall: string;
  trust: Trust;
  /** The server's clock (Unix ms) as it wrote the reply: with a board's
   * `clocks.at_unix_ms`, how long its running clock has run since. */
  now_unix_ms: number;
  boards: BoardData[];
  matches: MatchScore[];
}

// `GET /events`: the data of each kind of server-sent event.

export interface BoardUpdate {
  board: string;
  seq: number;
  event: CoreEvent;
  /** The board's words for the event: with the rulings and notes the page shows. */
  text?: string;
}

export interface SpokenUpdate {
  board: string;
  seq: number;
  t: number;
  text: string;
}

export interface ArbiterUpdate {
  board: string;
  t: number;
  text: string;
}

export interface ResetUpdate {
  /** `null`: this client fell behind; fetch the whole hall again. */
  board: string | null;
}

/** A board in the Lichess broadcast. */
export interface LichessBoard {
  board: string;
  /** Its number in the broadcast: its place in the team matches, else the number its id ends with. */
  number: number | null;
  /** The round that shows it. */
  round: string | null;
  /** Lichess's error about its game, or what keeps it from being pushed. */
  error: string | null;
}

/** `GET /api/lichess`: the hall pushed to a Lichess broadcast (404 when it is not). */
export interface LichessData {
  /** `ID=FIRST-LAST` each. */
  rounds: string[];
  pushes: number;
  bytes: number;
  last_ok_unix_ms: number | null;
  /** Lichess asked to slow down (HTTP 429): nothing is pushed before this. */
  paused_until_unix_ms: number | null;
  /** Why pushing fails now (it is retried). */
  failing: string | null;
  boards: LichessBoard[];
}

/** A board's result as a round's file holds it; `+-`, `-+`, `--` are forfeits (TRF-26's spelling). */
export type BoardResult = '1-0' | '1/2-1/2' | '0-1' | '+-' | '-+' | '--';

/** A player of a round's pairing. */
export interface RoundPlayer {
  name: string;
  title?: Title;
  elo?: number;
  fide_id?: number;
  federation?: string;
}

/** One board of the round, in FIDE's order. */
export interface RoundBoard {
  number: number;
  white: RoundPlayer;
  black: RoundPlayer;
  /** The hall's board whose id ends in the number, once heard from. */
  id: string | null;
  /** Why the board is not told its pairing (two boards' ids end in the number). */
  problem: string | null;
  /** The board shows the pairing. */
  shown: boolean;
  /** The result the board's game ended with. */
  game: BoardResult | null;
  /** The result the arbiter set or corrected. */
  arbiter: BoardResult | null;
  /** What `/round.trf` holds. */
  result: BoardResult | null;
}

/** `GET /api/round`: the round a relay plays from the pairing program's file (204 when none). */
export interface RoundData {
  file: string;
  round: number | null;
  tournament: string | null;
  /** `TRF-16` or `TRF-26`. */
  layout: string | null;
  /** Why the last reading of the file failed; the relay keeps the round it had. */
  error: string | null;
  boards: RoundBoard[];
  unpaired: { name: string; rank: number; code: string | null }[];
}

/** The body of an error reply. */
export interface ErrorReply {
  error: string;
}
