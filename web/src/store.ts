// The hall as the page holds it, kept up to date from GET /api/hall and the
// /events stream as crates/net/API.md says: open the stream first, then
// fetch, then apply the updates whose `seq` is newer than the board's.
import type { ArbiterNote, ArbiterUpdate, BoardData, BoardUpdate, HallData, MatchScore, ResetUpdate, Spoken, SpokenUpdate, Trust } from './api';
import { $ } from './dom';
import type { CoreEvent } from './events';
import { type Changed, Game, resultText, rulingText } from './model';
import type { EndReason, GameResult } from './events';

export type AlertKind = 'irregularity' | 'penalty' | 'game_over' | 'flag_fall' | 'mismatch' | 'claimable' | 'note' | 'observation';

export interface Alert {
  seq: number;
  board: string;
  kind: AlertKind;
  severity: 'high' | 'warn' | 'info';
  title: string;
  text: string;
  /** Game time. */
  t: number;
  /** When the page received it (ms since the epoch); `null` for what was
   * already on record when the page opened. */
  receivedAt: number | null;
  acknowledged: boolean;
}

export interface View {
  render(): void;
  /** A board changed. */
  onBoard(g: Game, what: Set<Changed>, ev: CoreEvent | null): void;
  onSpoken(g: Game, line: Spoken): void;
  onAlert(a: Alert): void;
  /** The match scores changed. */
  onMatches(): void;
  tick(): void;
}

export const store = {
  hall: '',
  trust: 'own_board' as Trust,
  games: new Map<string, Game>(),
  order: [] as string[],
  matches: [] as MatchScore[],
  alerts: [] as Alert[],
  alertSeq: 0,
};

let view: View | null = null;

export function setView(v: View): void {
  view = v;
}

async function fetchJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return (await r.json()) as T;
}

export function fetchHall(): Promise<HallData> {
  return fetchJson<HallData>('/api/hall');
}

/** Takes the whole hall. */
export function loadHall(data: HallData): void {
  store.hall = data.hall;
  store.trust = data.trust;
  const seen = new Set<string>();
  store.order = [];
  for (const b of data.boards) {
    seen.add(b.id);
    store.order.push(b.id);
    const g = store.games.get(b.id);
    if (g) g.reset(b, data.now_unix_ms);
    else store.games.set(b.id, new Game(b, data.now_unix_ms));
  }
  for (const id of [...store.games.keys()]) if (!seen.has(id)) store.games.delete(id);
  store.matches = data.matches;
  for (const id of store.order) recordedAlerts(store.games.get(id)!);
  const name = $('#hall-name');
  if (name) name.textContent = store.hall;
  const trust = $('#trust');
  if (trust) trust.hidden = store.trust !== 'none';
}

/** What a board had on record when the page learnt of it become quiet alerts. */
function recordedAlerts(g: Game): void {
  for (const r of g.data.irregularities) addAlert(g, r, r.text, false);
  if (g.data.result !== null && g.data.end_reason !== null) {
    pushAlert(g.id, g.data.last_t, ended(g.data.result, g.data.end_reason, g.data.end_text), false);
  }
  for (const note of g.data.arbiter_notes ?? []) addNote(g.id, note, false);
}

function alertKey(a: { board: string; t: number; title: string; text: string }): string {
  return `${a.board}|${a.t}|${a.title}|${a.text}`;
}

type Described = Pick<Alert, 'kind' | 'severity' | 'title' | 'text'>;

function ended(result: GameResult, reason: EndReason, text: string | undefined): Described {
  const flag = reason === 'flag_fall';
  return {
    kind: flag ? 'flag_fall' : 'game_over',
    severity: flag || reason === 'illegal_moves' ? 'high' : 'warn',
    title: flag ? `Flag fall: ${resultText(result)}` : `Game over: ${resultText(result)}`,
    text: text ?? '',
  };
}

/**
 * How an event that an arbiter should see is listed: its kind, how urgent
 * it is, a heading of the page's own, and the board's words for it (`text`,
 * as the server sent them: the page writes no sentence of its own).
 */
export function describe(ev: CoreEvent, text: string | undefined): Described | null {
  const words = text ?? '';
  const note = (severity: Alert['severity'], title: string): Described => ({ kind: 'note', severity, title, text: words });
  switch (ev.event) {
    case 'irregularity': {
      const r = rulingText({ ...ev, text });
      return { kind: 'irregularity', severity: 'high', title: `Irregularity ${r.title}`, text: r.text };
    }
    case 'penalty':
    case 'claimable':
    case 'observation': {
      const r = rulingText({ ...ev, text });
      return { kind: ev.event, severity: 'info', title: r.title, text: r.text };
    }
    case 'game_over':
      return ended(ev.result, ev.reason, text);
    case 'board_mismatch':
      return { kind: 'mismatch', severity: 'warn', title: 'Board differs from the game', text: words };
    case 'ambiguous':
      return note('warn', 'Ambiguous move');
    case 'opponent_move':
      return note('info', `Engine's move ${ev.san}`);
    case 'opponent_fix':
      return note('warn', "Engine's move carried out wrongly");
    case 'device_lost': {
      // The board's words, then the device's own report, if any.
      const shown = [words, ev.diagnostic && `(${ev.diagnostic})`].filter(Boolean).join(' ') || ev.why;
      return { ...note('warn', `Device not answering: ${ev.device}`), text: shown };
    }
    case 'device_back':
      return note('info', `Device answers again: ${ev.device}`);
    case 'draw_offer':
      return note('info', 'Draw offer');
    case 'draw_declined':
      return note('info', 'Draw declined');
    case 'take_back':
      return note('info', 'Moves taken back');
    case 'sensor_fault':
      return note('warn', `Sensor ${ev.sq}`);
    default:
      return null;
  }
}

function pushAlert(board: string, t: number, d: Described, live: boolean): Alert | null {
  const key = alertKey({ board, t, title: d.title, text: d.text });
  if (store.alerts.some((a) => alertKey(a) === key)) return null;
  const a: Alert = { ...d, board, t, seq: ++store.alertSeq, receivedAt: live ? Date.now() : null, acknowledged: false };
  store.alerts.push(a);
  // Bounded: the oldest acknowledged go first.
  while (store.alerts.length > 500) {
    const i = store.alerts.findIndex((x) => x.acknowledged);
    store.alerts.splice(i >= 0 ? i : 0, 1);
  }
  return a;
}

function addAlert(g: Game, ev: CoreEvent, text: string | undefined, live: boolean): Alert | null {
  const d = describe(ev, text);
  return d ? pushAlert(g.id, ev.t, d, live) : null;
}

function addNote(board: string, note: ArbiterNote, live: boolean): Alert | null {
  return pushAlert(board, note.t, { kind: 'note', severity: 'info', title: "Arbiter's note", text: note.text }, live);
}

// ---------------------------------------------------------------- resync

let resyncTimer = 0;
let resyncAll = false;
const resyncBoards = new Set<string>();
let resyncMatches = false;

/**
 * Fetches again, soon and once for many reasons: the whole hall (the page
 * lost track), some boards (a `reset`, a move it could not follow), or the
 * match scores (a game ended).
 */
function scheduleResync(what: { all?: boolean; board?: string; matches?: boolean }): void {
  if (what.all) resyncAll = true;
  if (what.board) resyncBoards.add(what.board);
  if (what.matches) resyncMatches = true;
  if (resyncTimer) return;
  resyncTimer = window.setTimeout(resync, 150);
}

async function resync(): Promise<void> {
  resyncTimer = 0;
  const [all, boards, matches] = [resyncAll, [...resyncBoards], resyncMatches];
  resyncAll = false;
  resyncMatches = false;
  resyncBoards.clear();
  try {
    if (all || boards.some((id) => !store.games.has(id))) {
      loadHall(await fetchHall());
      view?.render();
      return;
    }
    for (const id of boards) {
      const data = await fetchJson<BoardData>(`/api/game/${encodeURIComponent(id)}`);
      const g = store.games.get(id);
      if (!g) continue;
      g.reset(data, data.now_unix_ms ?? null);
      recordedAlerts(g);
      view?.onBoard(g, new Set<Changed>(['board', 'clock', 'info']), null);
    }
    if (matches) {
      store.matches = (await fetchHall()).matches;
      view?.onMatches();
    }
  } catch (e) {
    console.warn('tactus: fetching again failed', e);
    scheduleResync({ all: true });
  }
}

// ---------------------------------------------------------------- live

function onBoardUpdate(msg: BoardUpdate): void {
  const g = store.games.get(msg.board);
  if (!g) return scheduleResync({ board: msg.board });
  const changed = g.apply(msg.seq, msg.event, msg.text);
  if (changed.has('resync')) return scheduleResync({ board: g.id });
  const alert = addAlert(g, msg.event, msg.text, true);
  if (msg.event.event === 'game_over' || msg.event.event === 'start') scheduleResync({ matches: true });
  if (changed.size) view?.onBoard(g, changed, msg.event);
  if (alert) view?.onAlert(alert);
}

function onSpokenUpdate(msg: SpokenUpdate): void {
  const g = store.games.get(msg.board);
  if (!g) return scheduleResync({ board: msg.board });
  const line = { t: msg.t, text: msg.text };
  if (g.addSpoken(msg.seq, line)) view?.onSpoken(g, line);
}

function onArbiterUpdate(msg: ArbiterUpdate): void {
  const alert = addNote(msg.board, { t: msg.t, text: msg.text }, true);
  if (alert) view?.onAlert(alert);
}

function onReset(msg: ResetUpdate): void {
  if (msg.board === null) scheduleResync({ all: true });
  else scheduleResync({ board: msg.board });
}

type Update = { kind: 'board'; data: BoardUpdate } | { kind: 'spoken'; data: SpokenUpdate } | { kind: 'arbiter'; data: ArbiterUpdate } | { kind: 'reset'; data: ResetUpdate };

/** Updates that came before the hall was loaded, applied after it. */
let pending: Update[] | null = [];

function dispatch(u: Update): void {
  if (pending) {
    pending.push(u);
    return;
  }
  switch (u.kind) {
    case 'board':
      return onBoardUpdate(u.data);
    case 'spoken':
      return onSpokenUpdate(u.data);
    case 'arbiter':
      return onArbiterUpdate(u.data);
    case 'reset':
      return onReset(u.data);
  }
}

/** Applies what came in while the hall was loading; from now on, at once. */
export function flushPending(): void {
  const buffered = pending ?? [];
  pending = null;
  for (const u of buffered) dispatch(u);
}

function setConn(text: string, cls: string): void {
  const conn = $('#conn');
  if (!conn) return;
  conn.textContent = text;
  conn.className = `conn ${cls}`;
}

/** How long to wait before trying again when the server is full. */
const FULL_RETRY_MS = 30_000;

/**
 * Opens the live stream; resolves once it is open (or has failed), so that
 * what is fetched next misses nothing. Reconnects for as long as the page
 * lives; after a gap, the hall is fetched again.
 */
export function connect(): Promise<void> {
  return new Promise((resolve) => {
    let wasDown = false;
    const es = new EventSource('/events');
    es.addEventListener('open', () => {
      setConn('Live', 'ok');
      document.body.dataset.live = '1';
      if (wasDown) scheduleResync({ all: true });
      wasDown = false;
      resolve();
    });
    es.addEventListener('error', () => {
      wasDown = true;
      delete document.body.dataset.live;
      if (es.readyState === EventSource.CLOSED) {
        // Refused (the server holds as many viewers as it can): try later.
        setConn('Live updates paused: the server is full, trying again shortly', 'down');
        es.close();
        window.setTimeout(() => void connect().then(() => scheduleResync({ all: true })), FULL_RETRY_MS);
      } else {
        setConn('Reconnecting…', 'down');
      }
      resolve();
    });
    const on = <K extends Update['kind']>(kind: K) => (e: MessageEvent<string>) => {
      let data: unknown;
      try {
        data = JSON.parse(e.data);
      } catch {
        return;
      }
      dispatch({ kind, data } as Update);
    };
    es.addEventListener('board', on('board'));
    es.addEventListener('spoken', on('spoken'));
    es.addEventListener('arbiter', on('arbiter'));
    es.addEventListener('reset', on('reset'));
  });
}
