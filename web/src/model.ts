// One board's game as the page follows it: the server's snapshot
// (api.ts), then its live events (events.ts) in order.
import { Chess, parseUci, type Position } from 'chessops';
import { normalizeMove } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import type { BoardData, FeedMove, Spoken, Told } from './api';
import type { CoreEvent, EngineEval, GameResult, Ruling, Side } from './events';

export const STANDARD_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** What an event changed, for the views to redraw. */
export type Changed = 'board' | 'clock' | 'info' | 'resync';

export interface Tentative {
  ply: number;
  san: string;
  uci: string;
}

const now = (): number => performance.now();

export function other(side: Side): Side {
  return side === 'white' ? 'black' : 'white';
}

export function sideName(s: Side): string {
  return s === 'white' ? 'White' : 'Black';
}

function setupPosition(fen: string): Position | null {
  const setup = parseFen(fen);
  if (setup.isErr) return null;
  const pos = Chess.fromSetup(setup.value);
  return pos.isOk ? pos.value : null;
}

function playUci(pos: Position, uci: string): boolean {
  const m = parseUci(uci);
  if (!m) return false;
  const move = normalizeMove(pos, m);
  if (!pos.isLegal(move)) return false;
  pos.play(move);
  return true;
}

export class Game {
  data: BoardData;
  /** The position after the completed moves, from the server's FEN. */
  pos: Position | null = null;
  startTurn: Side = 'white';
  startFullmoves = 1;
  tentative: Tentative | null = null;
  /** The engine's view at its last move, where the game shows it. */
  engine: (EngineEval & { ply: number; san: string }) | null = null;
  /** Clock values valid at `base` (performance.now()). */
  clock = { white: 0, black: 0, running: null as Side | null, base: 0, known: false };
  /** When each ply first reached the page (the SSE event) and the screen. */
  eventAt = new Map<string, number>();
  shownAt = new Map<string, number>();

  constructor(data: BoardData, serverNow: number | null) {
    this.data = data;
    this.reset(data, serverNow);
  }

  /** Takes the server's snapshot of the board. `serverNow` is the server's
   * clock when it wrote the reply: the running clock has run since its
   * reading by that much (measured on the server's clock, so a wrong clock
   * here or there does not matter). */
  reset(data: BoardData, serverNow: number | null): void {
    this.data = { ...data, moves: [...data.moves], irregularities: [...data.irregularities], spoken: [...data.spoken] };
    this.tentative = null;
    this.engine = data.engine ?? null;
    const start = setupPosition(data.start_fen);
    this.startTurn = start?.turn ?? 'white';
    this.startFullmoves = start?.fullmoves ?? 1;
    this.pos = setupPosition(data.fen);
    const c = data.clocks;
    const known = c.white_ms !== null && c.black_ms !== null;
    const ran = c.running && serverNow !== null && c.at_unix_ms !== null ? Math.max(0, serverNow - c.at_unix_ms) : 0;
    this.clock = { white: c.white_ms ?? 0, black: c.black_ms ?? 0, running: c.running, base: now() - ran, known };
  }

  get id(): string {
    return this.data.id;
  }

  get seq(): number {
    return this.data.seq;
  }

  get white(): string {
    return this.data.tags.white || 'White';
  }

  get black(): string {
    return this.data.tags.black || 'Black';
  }

  get label(): string {
    const team = this.data.team;
    const who = `${this.white} – ${this.black}`;
    return team ? `Board ${team.board}: ${who}` : `${this.data.id}: ${who}`;
  }

  get over(): boolean {
    return this.data.result !== null;
  }

  get paused(): boolean {
    return this.data.paused;
  }

  get turn(): Side {
    if (this.pos) return this.pos.turn;
    const n = this.data.moves.length + (this.startTurn === 'black' ? 1 : 0);
    return n % 2 === 0 ? 'white' : 'black';
  }

  /** The FEN to show: after the tentative move if there is one. */
  displayFen(): string {
    if (!this.pos) return this.data.fen;
    if (this.tentative) {
      const p = this.pos.clone();
      if (playUci(p, this.tentative.uci)) return makeFen(p.toSetup());
    }
    return makeFen(this.pos.toSetup());
  }

  displayCheck(): boolean {
    if (!this.pos) return false;
    if (this.tentative) {
      const p = this.pos.clone();
      if (playUci(p, this.tentative.uci)) return p.isCheck();
    }
    return this.pos.isCheck();
  }

  displayTurn(): Side {
    return this.tentative ? other(this.turn) : this.turn;
  }

  lastMoveSquares(): [string, string] | null {
    const uci = this.tentative?.uci ?? this.data.moves[this.data.moves.length - 1]?.uci;
    if (!uci || uci.length < 4) return null;
    return [uci.slice(0, 2), uci.slice(2, 4)];
  }

  /** Move number and side of the i-th move of the list (0-based). */
  moveNumber(i: number): { no: number; side: Side } {
    const k = i + (this.startTurn === 'black' ? 1 : 0);
    return { no: this.startFullmoves + Math.floor(k / 2), side: k % 2 === 0 ? 'white' : 'black' };
  }

  clockNow(side: Side): number {
    const v = this.clock[side];
    if (this.clock.running === side && !this.paused && !this.over) {
      return Math.max(0, v - (now() - this.clock.base));
    }
    return v;
  }

  private freezeClocks(): void {
    this.clock.white = this.clockNow('white');
    this.clock.black = this.clockNow('black');
    this.clock.base = now();
  }

  private lastPly(): number {
    const m = this.data.moves[this.data.moves.length - 1];
    return m ? m.ply : 0;
  }

  private markEvent(ply: number, san: string, state: string): void {
    const k = `${ply}:${san}:${state}`;
    if (!this.eventAt.has(k)) this.eventAt.set(k, Date.now());
  }

  /**
   * Applies the board's change number `seq`, with the board's words for it
   * (`text`, for the rulings and the end). Returns what changed; `resync`
   * when the page lost track of the game and must fetch it again.
   */
  apply(seq: number, ev: CoreEvent, text?: string): Set<Changed> {
    const changed = new Set<Changed>();
    if (seq <= this.data.seq) return changed; // already in the snapshot
    this.data.seq = seq;
    this.data.last_t = Math.max(this.data.last_t, ev.t);
    switch (ev.event) {
      case 'start':
        this.reset(
          {
            ...this.data,
            fen: ev.fen,
            start_fen: ev.fen,
            chess960: ev.chess960,
            moves: [],
            result: null,
            end_reason: null,
            end_text: undefined,
            paused: false,
            irregularities: [],
            spoken: [],
            arbiter_notes: [],
            clocks: {
              white_ms: ev.white_ms ?? null,
              black_ms: ev.black_ms ?? null,
              running: ev.white_ms !== undefined || ev.black_ms !== undefined ? (setupPosition(ev.fen)?.turn ?? 'white') : null,
              at_t: ev.t,
              at_unix_ms: null,
            },
          },
          null,
        );
        changed.add('board').add('clock').add('info');
        break;
      case 'move':
        if (ev.ply <= this.lastPly()) break; // already completed
        this.tentative = { ply: ev.ply, san: ev.san, uci: ev.uci };
        this.markEvent(ev.ply, ev.san, 'tentative');
        changed.add('board');
        break;
      case 'opponent_move':
        this.engine = ev.eval ? { ...ev.eval, ply: ev.ply, san: ev.san } : null;
        changed.add('info');
        break;
      case 'take_back':
        // The server's feed has played the kept moves again: fetch it.
        return changed.add('resync');
      case 'pairing':
        // The round's pairing names the players, the round and the board:
        // the server's feed has them.
        return changed.add('resync');
      case 'withdrawn':
        if (this.tentative && this.tentative.ply === ev.ply) {
          this.tentative = null;
          changed.add('board');
        }
        break;
      case 'complete': {
        const last = this.lastPly();
        if (ev.ply <= last) break; // seen already
        if (this.data.moves.length > 0 && ev.ply !== last + 1) return changed.add('resync');
        const rec: FeedMove = { ply: ev.ply, san: ev.san, uci: ev.uci };
        if (ev.clock_ms !== undefined) rec.clock_ms = ev.clock_ms;
        // An illegal move that stood (A.5.2) cannot be followed here: the
        // server's snapshot has the position it made.
        if (!this.pos || this.data.moves.some((m) => m.off_record) || !playUci(this.pos, ev.uci)) {
          return changed.add('resync');
        }
        this.data.moves.push(rec);
        this.data.fen = makeFen(this.pos.toSetup());
        this.tentative = null;
        this.markEvent(ev.ply, ev.san, 'complete');
        this.freezeClocks();
        if (ev.clock_ms !== undefined) this.clock[ev.side] = ev.clock_ms;
        if (ev.opponent_ms !== undefined) this.clock[other(ev.side)] = ev.opponent_ms;
        if (this.clock.running) this.clock.running = other(ev.side);
        changed.add('board').add('clock');
        break;
      }
      case 'irregularity':
      case 'claimable':
      case 'observation':
        this.data.irregularities.push(told(ev, text));
        changed.add('info');
        break;
      case 'penalty':
        this.data.irregularities.push(told(ev, text));
        this.freezeClocks();
        this.clock[ev.side] += ev.ms;
        changed.add('clock').add('info');
        // 7.5.5 after an upheld A.5.2 claim takes moves back.
        if (this.data.moves.some((m) => m.off_record)) changed.add('resync');
        break;
      case 'game_over':
        this.freezeClocks();
        this.data.result = ev.result;
        this.data.end_reason = ev.reason;
        this.data.end_text = text;
        if (ev.reason === 'flag_fall') {
          // The flag that fell: the loser's, or on a draw the side to move.
          const fell: Side = ev.result === '1-0' ? 'black' : ev.result === '0-1' ? 'white' : this.turn;
          this.clock[fell] = 0;
        }
        this.clock.running = null;
        this.tentative = null;
        changed.add('clock').add('info').add('board');
        break;
      case 'paused':
        this.freezeClocks();
        this.data.paused = true;
        changed.add('clock').add('info');
        break;
      case 'resumed':
        this.freezeClocks();
        this.data.paused = false;
        if (!this.clock.running && !this.over && this.clock.known) this.clock.running = this.turn;
        changed.add('clock').add('info');
        break;
      case 'clock_set':
        this.freezeClocks();
        this.clock.white = ev.white_ms;
        this.clock.black = ev.black_ms;
        this.clock.known = true;
        changed.add('clock');
        break;
      case 'time':
        this.freezeClocks();
        this.clock.white = ev.white_ms;
        this.clock.black = ev.black_ms;
        this.clock.running = ev.running ?? null;
        this.clock.known = true;
        changed.add('clock');
        break;
      case 'time_warning':
        this.freezeClocks();
        this.clock[ev.side] = ev.remaining_ms;
        changed.add('clock');
        break;
      default:
        // Kinds that change nothing shown here (touches, sensor faults, …),
        // and kinds added after this page was built.
        break;
    }
    return changed;
  }

  /** A spoken line, number `seq` of the board's changes. */
  addSpoken(seq: number, line: Spoken): boolean {
    if (seq <= this.data.seq) return false;
    this.data.seq = seq;
    this.data.spoken.push(line);
    if (this.data.spoken.length > 200) this.data.spoken.splice(0, this.data.spoken.length - 200);
    return true;
  }
}

/** A ruling with the board's words for it, as the record keeps it. */
function told<R extends Ruling>(ev: R, text: string | undefined): Told<R> {
  return text === undefined ? ev : { ...ev, text };
}

/** Formats a clock: h:mm:ss from an hour, m:ss, tenths under ten seconds. */
export function fmtClock(ms: number): string {
  ms = Math.max(0, ms);
  if (ms < 10_000) {
    const tenths = Math.floor(ms / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  return fmtDuration(ms);
}

/** h:mm:ss, or m:ss under an hour. */
export function fmtDuration(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Spoken form of a clock for screen readers. */
export function sayClock(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts: string[] = [];
  if (h) parts.push(`${h} hour${h === 1 ? '' : 's'}`);
  if (m) parts.push(`${m} minute${m === 1 ? '' : 's'}`);
  parts.push(`${s % 60} second${s % 60 === 1 ? '' : 's'}`);
  return parts.join(' ');
}

/** Parses "90" (minutes), "1:30" (m:ss) or "1:30:00" (h:mm:ss) into ms. */
export function parseClock(text: string): number | null {
  const t = text.trim();
  if (!/^\d+(?::\d{1,2}){0,2}(?:\.\d+)?$/.test(t)) return null;
  const parts = t.split(':').map(Number);
  if (parts.some((p) => !Number.isFinite(p))) return null;
  if (parts.length === 1) return Math.round(parts[0] * 60_000);
  if (parts.length === 2) return Math.round((parts[0] * 60 + parts[1]) * 1000);
  return Math.round((parts[0] * 3600 + parts[1] * 60 + parts[2]) * 1000);
}

/** Board points: 1, ½, 1½ … */
export function fmtPoints(p: number): string {
  const whole = Math.floor(p);
  if (p - whole >= 0.5) return whole === 0 ? '½' : `${whole}½`;
  return String(whole);
}

export function resultText(result: GameResult): string {
  return result === '1/2-1/2' ? '½–½' : result.replace('-', '–');
}

/**
 * A ruling in one line, for the board's list and the arbiter: a heading of
 * the page's own (the article and what kind of record it is) and the
 * board's words, as the server sent them.
 */
export function rulingText(r: Told<Ruling>): { title: string; text: string } {
  const kind = { irregularity: '', penalty: ' Penalty', claimable: ' Draw claimable', observation: ' Observation (not a ruling)' }[r.event];
  return { title: `${r.article}${kind}`, text: r.text ?? '' };
}
