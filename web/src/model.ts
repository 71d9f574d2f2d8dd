// The page's model of the hall: boards, their positions and clocks, kept up
// to date from GET /api/hall and the /events stream (docs/events.md).
import { Chess, parseUci, type Position } from 'chessops';
import { normalizeMove } from 'chessops/chess';
import { parseFen, makeFen } from 'chessops/fen';

export type Side = 'white' | 'black';

export interface MoveRec {
  ply: number;
  san: string;
  uci: string;
  clock_ms?: number;
}

export interface Clocks {
  white_ms: number;
  black_ms: number;
  running: Side | null;
  at_t?: number;
}

export interface Spoken {
  t: number;
  text: string;
}

/** One core event as in docs/events.md. Unknown fields are kept. */
export interface CoreEvent {
  t: number;
  event: string;
  [k: string]: unknown;
}

export interface Team {
  match: string;
  side: 'home' | 'away';
  board_no: number;
}

export interface BoardData {
  id: string;
  tags: Record<string, string>;
  fen: string;
  start_fen: string;
  chess960: boolean;
  moves: MoveRec[];
  clocks: Clocks | null;
  result: string;
  irregularities: CoreEvent[];
  spoken: Spoken[];
  team: Team | null;
}

export interface MatchData {
  name: string;
  home: { name: string; score: number };
  away: { name: string; score: number };
  boards: { id: string; points_home: number; points_away: number }[];
}

export interface HallData {
  hall: string;
  boards: BoardData[];
  matches: MatchData[];
}

export interface Tentative {
  ply: number;
  san: string;
  uci: string;
  side?: Side;
}

export type AlertKind = 'irregularity' | 'penalty' | 'game_over' | 'flag_fall' | 'mismatch' | 'claimable' | 'note';

export interface Alert {
  seq: number;
  board: string;
  kind: AlertKind;
  severity: 'high' | 'warn' | 'info';
  title: string;
  text: string;
  t: number;
  /** Wall clock (ms since epoch) when the page learnt of it. */
  at: number;
  live: boolean;
  acknowledged: boolean;
}

export const STANDARD_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

const now = (): number => performance.now();

export function tag(b: BoardData, name: string): string {
  const t = b.tags || {};
  return t[name] ?? t[name.charAt(0).toUpperCase() + name.slice(1)] ?? '';
}

export function sideName(s: unknown): string {
  return s === 'white' ? 'White' : s === 'black' ? 'Black' : String(s ?? '');
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
  /** Position after the completed moves; null when it could not be followed. */
  pos: Position | null = null;
  startTurn: Side = 'white';
  startFullmoves = 1;
  tentative: Tentative | null = null;
  /** Clock values valid at `base` (performance.now()). */
  clock = { white: 0, black: 0, running: null as Side | null, base: 0, known: false };
  paused = false;
  /** When each ply first reached the page (the SSE event) and the screen. */
  eventAt = new Map<string, number>();
  shownAt = new Map<string, number>();
  lastEventT = 0;
  gameOverReason = '';

  constructor(data: BoardData) {
    this.data = data;
    this.reset(data);
  }

  reset(data: BoardData): void {
    this.data = {
      ...data,
      tags: data.tags || {},
      moves: data.moves || [],
      irregularities: data.irregularities || [],
      spoken: data.spoken || [],
      team: data.team || null,
      result: data.result || '*',
    };
    this.tentative = null;
    const start = data.start_fen || STANDARD_FEN;
    const pos = setupPosition(start);
    this.startTurn = pos?.turn ?? 'white';
    this.startFullmoves = pos?.fullmoves ?? 1;
    if (pos) {
      let ok = true;
      for (const m of this.data.moves) {
        if (!playUci(pos, m.uci)) {
          ok = false;
          break;
        }
      }
      this.pos = ok ? pos : setupPosition(data.fen);
    } else {
      this.pos = setupPosition(data.fen);
    }
    const c = data.clocks;
    if (c) {
      this.clock = { white: c.white_ms, black: c.black_ms, running: c.running, base: now(), known: true };
    } else {
      this.clock = { white: 0, black: 0, running: null, base: now(), known: false };
    }
    this.paused = false;
    this.gameOverReason = '';
  }

  get id(): string {
    return this.data.id;
  }

  get white(): string {
    return tag(this.data, 'white') || 'White';
  }

  get black(): string {
    return tag(this.data, 'black') || 'Black';
  }

  get label(): string {
    const team = this.data.team;
    const who = `${this.white} – ${this.black}`;
    return team ? `Board ${team.board_no}: ${who}` : `${this.data.id}: ${who}`;
  }

  get turn(): Side {
    if (this.pos) return this.pos.turn;
    const n = this.data.moves.length + (this.startTurn === 'black' ? 1 : 0);
    return n % 2 === 0 ? 'white' : 'black';
  }

  get over(): boolean {
    return this.data.result !== '*' && this.data.result !== '';
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
    if (this.tentative) return this.turn === 'white' ? 'black' : 'white';
    return this.turn;
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
   * Applies one core event. Returns what changed: 'board' (position or move
   * list), 'clock', 'info' (irregularities, result), 'resync' (the page
   * lost track and must fetch the game again) or '' (nothing shown).
   */
  apply(ev: CoreEvent): Set<string> {
    const changed = new Set<string>();
    if (typeof ev.t === 'number') this.lastEventT = ev.t;
    const ply = Number(ev.ply ?? 0);
    const san = String(ev.san ?? '');
    const uci = String(ev.uci ?? '');
    switch (ev.event) {
      case 'start': {
        const fen = String(ev.fen ?? STANDARD_FEN);
        this.reset({
          ...this.data,
          fen,
          start_fen: fen,
          chess960: Boolean(ev.chess960),
          moves: [],
          result: '*',
          irregularities: [],
          clocks: {
            white_ms: Number(ev.white_ms ?? this.clock.white),
            black_ms: Number(ev.black_ms ?? this.clock.black),
            running: null,
          },
        });
        this.clock.running = this.turn;
        this.clock.base = now();
        changed.add('board').add('clock').add('info');
        break;
      }
      case 'move': {
        if (ply <= this.lastPly()) break; // already completed
        this.tentative = { ply, san, uci, side: ev.side as Side };
        this.markEvent(ply, san, 'tentative');
        changed.add('board');
        break;
      }
      case 'withdrawn': {
        if (this.tentative && this.tentative.ply === ply) {
          this.tentative = null;
          changed.add('board');
        }
        break;
      }
      case 'complete': {
        const last = this.lastPly();
        if (ply <= last && last > 0) {
          const existing = this.data.moves.find((m) => m.ply === ply);
          if (existing && existing.uci === uci) break; // seen already
          changed.add('resync');
          break;
        }
        if (this.data.moves.length > 0 && ply !== last + 1) {
          changed.add('resync');
          break;
        }
        if (this.pos && !playUci(this.pos, uci)) {
          changed.add('resync');
          break;
        }
        const side: Side = ev.side === 'black' || ev.side === 'white' ? ev.side : this.pos ? (this.pos.turn === 'white' ? 'black' : 'white') : 'white';
        const rec: MoveRec = { ply, san, uci };
        if (typeof ev.clock_ms === 'number') rec.clock_ms = ev.clock_ms;
        this.data.moves.push(rec);
        this.tentative = null;
        this.markEvent(ply, san, 'complete');
        const other: Side = side === 'white' ? 'black' : 'white';
        this.freezeClocks();
        if (typeof ev.clock_ms === 'number') this.clock[side] = ev.clock_ms;
        if (typeof ev.opponent_ms === 'number') this.clock[other] = ev.opponent_ms;
        if (typeof ev.clock_ms === 'number' || typeof ev.opponent_ms === 'number') this.clock.known = true;
        this.clock.running = this.over ? null : other;
        this.clock.base = now();
        if (this.pos) this.data.fen = makeFen(this.pos.toSetup());
        changed.add('board').add('clock');
        break;
      }
      case 'irregularity':
      case 'board_mismatch':
        if (ev.event === 'irregularity') this.data.irregularities.push(ev);
        changed.add('info');
        break;
      case 'penalty': {
        const s = ev.side as Side;
        if (s === 'white' || s === 'black') {
          this.freezeClocks();
          this.clock[s] += Number(ev.ms ?? 0);
          changed.add('clock');
        }
        changed.add('info');
        break;
      }
      case 'game_over':
        this.freezeClocks();
        this.data.result = String(ev.result ?? '*');
        this.gameOverReason = String(ev.reason ?? '');
        if (ev.reason === 'flag_fall') {
          // The flag that fell: the loser's, or on a draw the side to move.
          const fell: Side = ev.result === '1-0' ? 'black' : ev.result === '0-1' ? 'white' : this.turn;
          this.clock[fell] = 0;
          this.clock.known = true;
        }
        this.clock.running = null;
        this.tentative = null;
        changed.add('clock').add('info').add('board');
        break;
      case 'paused':
        this.freezeClocks();
        this.paused = true;
        changed.add('clock');
        break;
      case 'resumed':
        this.freezeClocks();
        this.paused = false;
        if (!this.clock.running && !this.over) this.clock.running = this.turn;
        changed.add('clock');
        break;
      case 'clock_set':
      case 'time': {
        this.freezeClocks();
        if (typeof ev.white_ms === 'number') this.clock.white = ev.white_ms;
        if (typeof ev.black_ms === 'number') this.clock.black = ev.black_ms;
        if (ev.running === 'white' || ev.running === 'black') this.clock.running = ev.running;
        this.clock.known = true;
        changed.add('clock');
        break;
      }
      default:
        break;
    }
    return changed;
  }

  addSpoken(line: Spoken): boolean {
    if (this.data.spoken.some((s) => s.t === line.t && s.text === line.text)) return false;
    this.data.spoken.push(line);
    if (this.data.spoken.length > 200) this.data.spoken.splice(0, this.data.spoken.length - 200);
    return true;
  }
}

/** Formats a clock: h:mm:ss from an hour, m:ss, tenths under ten seconds. */
export function fmtClock(ms: number): string {
  ms = Math.max(0, ms);
  if (ms < 10_000) {
    const tenths = Math.floor(ms / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const s = Math.floor(ms / 1000);
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

export function fmtPoints(p: number): string {
  const whole = Math.floor(p);
  const half = p - whole >= 0.5;
  if (half) return whole === 0 ? '½' : `${whole}½`;
  return String(whole);
}

const REASONS: Record<string, string> = {
  checkmate: 'checkmate',
  stalemate: 'stalemate',
  insufficient_material: 'insufficient material',
  fivefold_repetition: 'fivefold repetition',
  seventy_five_moves: 'the 75-move rule',
  flag_fall: 'flag fall',
  illegal_moves: 'a second illegal move',
  threefold_repetition: 'threefold repetition (claimed)',
  fifty_moves: 'the fifty-move rule (claimed)',
  resignation: 'resignation',
  agreement: 'agreement',
  arbiter: "the arbiter's decision",
};

export function reasonText(r: string): string {
  return REASONS[r] ?? r.replace(/_/g, ' ');
}

export function resultText(result: string): string {
  return result === '1/2-1/2' ? '½–½' : result.replace('-', '–');
}

/** Plain-English title and text of an event that an arbiter should see. */
export function describe(g: Game, ev: CoreEvent): Omit<Alert, 'seq' | 'at' | 'live' | 'acknowledged'> | null {
  const base = { board: g.id, t: ev.t };
  const art = ev.article ? ` (${ev.article})` : '';
  const ply = Number(ev.ply ?? 0);
  const at = ply > 0 ? ` at ply ${ply}` : '';
  switch (ev.event) {
    case 'irregularity':
      return {
        ...base,
        kind: 'irregularity',
        severity: 'high',
        title: `Irregularity${art}: ${sideName(ev.side)}${at}`,
        text: String(ev.detail ?? ev.reason ?? 'irregularity'),
      };
    case 'penalty':
      return {
        ...base,
        kind: 'penalty',
        severity: 'info',
        title: `Penalty${art}`,
        text: `${sideName(ev.side)} gets ${Math.round(Number(ev.ms ?? 0) / 1000)} seconds added.`,
      };
    case 'game_over': {
      const flag = ev.reason === 'flag_fall';
      return {
        ...base,
        kind: flag ? 'flag_fall' : 'game_over',
        severity: flag || ev.reason === 'illegal_moves' ? 'high' : 'warn',
        title: flag ? `Flag fall: ${resultText(String(ev.result))}` : `Game over: ${resultText(String(ev.result))}`,
        text: `Result ${resultText(String(ev.result))} by ${reasonText(String(ev.reason ?? ''))}${art}.`,
      };
    }
    case 'board_mismatch': {
      const missing = Array.isArray(ev.missing) ? (ev.missing as { sq: string; piece: string }[]) : [];
      const extra = Array.isArray(ev.extra) ? (ev.extra as string[]) : [];
      const parts: string[] = [];
      if (missing.length) parts.push(`missing ${missing.map((m) => `${m.piece} on ${m.sq}`).join(', ')}`);
      if (extra.length) parts.push(`unexpected piece on ${extra.join(', ')}`);
      return {
        ...base,
        kind: 'mismatch',
        severity: 'warn',
        title: 'Board differs from the game',
        text: parts.length ? `The board shows ${parts.join('; ')}.` : 'The board differs from the game.',
      };
    }
    case 'claimable':
      return {
        ...base,
        kind: 'claimable',
        severity: 'info',
        title: `Draw claimable${art}`,
        text: `${sideName(ev.side)} may claim ${ev.claim === 'fifty' ? 'the fifty-move rule' : 'threefold repetition'}${at}.`,
      };
    case 'ambiguous':
      return {
        ...base,
        kind: 'note',
        severity: 'warn',
        title: 'Ambiguous move',
        text: `Recorded ${String(ev.chosen ?? '?')}; could also be ${Array.isArray(ev.candidates) ? ev.candidates.join(', ') : '?'}${at}.`,
      };
    case 'observation':
      return { ...base, kind: 'note', severity: 'info', title: `Observation${art}`, text: String(ev.detail ?? '') };
    default:
      return null;
  }
}
