// tactus live page: the hall (/), one board (/board/{id}) and the arbiter's
// view (/arbiter). One index.html serves all three; we route on the path.
import { Chessground } from '@lichess-org/chessground';
import type { Api as CgApi } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import {
  type Alert,
  type BoardData,
  type CoreEvent,
  type HallData,
  type MatchData,
  type Side,
  type Spoken,
  Game,
  describe,
  fmtClock,
  fmtPoints,
  parseClock,
  reasonText,
  resultText,
  sayClock,
  sideName,
  tag,
} from './model';

// ---------------------------------------------------------------- helpers

type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

function h<K extends keyof HTMLElementTagNameMap>(
  name: K,
  attrs: Attrs = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v as EventListener);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c);
  }
  return el;
}

function $(sel: string): HTMLElement | null {
  return document.querySelector(sel);
}

function announce(text: string, assertive = false): void {
  const region = $(assertive ? '#announce-assertive' : '#announce-polite');
  if (!region) return;
  const p = h('p', {}, text);
  region.append(p);
  while (region.childElementCount > 5) region.firstElementChild?.remove();
}

const PIECE_NAMES: Record<string, string> = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };

/** A screen reader's description of a FEN's pieces: "White: king g1, …". */
function describePieces(fen: string): { white: string; black: string } {
  const rows = fen.split(' ')[0].split('/');
  const out: Record<Side, string[]> = { white: [], black: [] };
  const order = 'kqrbnp';
  const found: { side: Side; role: string; sq: string }[] = [];
  rows.forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else {
        const side: Side = ch === ch.toUpperCase() ? 'white' : 'black';
        found.push({ side, role: ch.toLowerCase(), sq: 'abcdefgh'[file] + String(8 - i) });
        file += 1;
      }
    }
  });
  found.sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role) || a.sq.localeCompare(b.sq));
  for (const f of found) out[f.side].push(`${PIECE_NAMES[f.role] ?? f.role} ${f.sq}`);
  return { white: out.white.join(', ') || 'none', black: out.black.join(', ') || 'none' };
}

const prefs = {
  get(name: string, dflt: boolean): boolean {
    try {
      const v = localStorage.getItem(`tactus.${name}`);
      return v === null ? dflt : v === '1';
    } catch {
      return dflt;
    }
  },
  set(name: string, v: boolean): void {
    try {
      localStorage.setItem(`tactus.${name}`, v ? '1' : '0');
    } catch {
      /* private mode */
    }
  },
};

// ---------------------------------------------------------------- store

interface View {
  render(): void;
  /** A board changed: `what` holds 'board', 'clock', 'info'. */
  onBoard(g: Game, what: Set<string>, ev: CoreEvent | null): void;
  onSpoken(g: Game, line: Spoken): void;
  onAlert(a: Alert): void;
  tick(): void;
}

const store = {
  hall: '',
  games: new Map<string, Game>(),
  order: [] as string[],
  matches: [] as MatchData[],
  alerts: [] as Alert[],
  alertSeq: 0,
  loaded: false,
};

let view: View | null = null;

function loadHall(data: HallData): void {
  store.hall = data.hall || '';
  const seen = new Set<string>();
  store.order = [];
  for (const b of data.boards || []) {
    seen.add(b.id);
    store.order.push(b.id);
    const g = store.games.get(b.id);
    if (g) g.reset(b);
    else store.games.set(b.id, new Game(b));
  }
  for (const id of [...store.games.keys()]) if (!seen.has(id)) store.games.delete(id);
  store.matches = data.matches || [];
  // Irregularities already on record become (quiet) alerts.
  for (const id of store.order) {
    const g = store.games.get(id)!;
    for (const ev of g.data.irregularities) addAlert(g, ev, false);
  }
  const hn = $('#hall-name');
  if (hn) hn.textContent = store.hall;
}

function alertKey(a: { board: string; t: number; title: string }): string {
  return `${a.board}|${a.t}|${a.title}`;
}

function addAlert(g: Game, ev: CoreEvent, live: boolean): Alert | null {
  const d = describe(g, ev);
  if (!d) return null;
  const key = alertKey(d);
  if (store.alerts.some((a) => alertKey(a) === key)) return null;
  const a: Alert = { ...d, seq: ++store.alertSeq, at: Date.now(), live, acknowledged: false };
  store.alerts.push(a);
  return a;
}

async function fetchJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return (await r.json()) as T;
}

let resyncTimer = 0;
let resyncFull = false;
/**
 * Fetches the hall again: in full when the page lost track of a game (the
 * view is drawn anew), or only for the match scores after a game ended.
 */
function scheduleResync(full = true): void {
  resyncFull = resyncFull || full;
  if (resyncTimer) return;
  resyncTimer = window.setTimeout(async () => {
    resyncTimer = 0;
    const all = resyncFull;
    resyncFull = false;
    try {
      const data = await fetchJson<HallData>('/api/hall');
      if (all) {
        loadHall(data);
        view?.render();
      } else {
        store.matches = data.matches || [];
        if (view instanceof HallView) view.render();
      }
    } catch (e) {
      console.warn('resync failed', e);
    }
  }, 250);
}

let pending: { kind: 'board' | 'spoken'; data: unknown }[] | null = [];

function handleBoardEvent(msg: { board: string; event: CoreEvent }): void {
  const g = store.games.get(msg.board);
  if (!g) {
    scheduleResync();
    return;
  }
  const ev = msg.event;
  const changed = g.apply(ev);
  if (changed.has('resync')) {
    scheduleResync();
    return;
  }
  const alert = addAlert(g, ev, true);
  if (ev.event === 'game_over') scheduleResync(false); // match scores
  if (changed.size) view?.onBoard(g, changed, ev);
  if (alert) view?.onAlert(alert);
}

function handleSpoken(msg: { board: string; t: number; text: string }): void {
  const g = store.games.get(msg.board);
  if (!g) return;
  const line = { t: msg.t, text: msg.text };
  if (g.addSpoken(line)) view?.onSpoken(g, line);
}

function connect(): void {
  const conn = $('#conn');
  const setConn = (text: string, cls: string): void => {
    if (!conn) return;
    conn.textContent = text;
    conn.className = `conn ${cls}`;
  };
  let wasDown = false;
  const es = new EventSource('/events');
  es.addEventListener('open', () => {
    setConn('Live', 'ok');
    if (wasDown) scheduleResync();
    wasDown = false;
  });
  es.addEventListener('error', () => {
    setConn('Reconnecting…', 'down');
    wasDown = true;
  });
  const route = (kind: 'board' | 'spoken') => (e: MessageEvent) => {
    let data: unknown;
    try {
      data = JSON.parse(e.data);
    } catch {
      return;
    }
    if (pending) {
      pending.push({ kind, data });
      return;
    }
    if (kind === 'board') handleBoardEvent(data as { board: string; event: CoreEvent });
    else handleSpoken(data as { board: string; t: number; text: string });
  };
  es.addEventListener('board', route('board'));
  es.addEventListener('spoken', route('spoken'));
}

// ---------------------------------------------------------------- pieces of views

function boardLink(g: Game): string {
  return `/board/${encodeURIComponent(g.id)}`;
}

function statusText(g: Game): string {
  if (g.over) {
    return `Result ${resultText(g.data.result)}${g.gameOverReason ? ` by ${reasonText(g.gameOverReason)}` : ''}`;
  }
  if (g.paused) return 'Clocks paused';
  if (g.tentative) return `${sideName(g.turn)} played ${g.tentative.san}, clock not yet pressed`;
  return `${sideName(g.turn)} to move`;
}

function lastMoveText(g: Game): string {
  const n = g.data.moves.length;
  if (g.tentative) {
    const { no, side } = g.moveNumber(n);
    return `${no}${side === 'white' ? '.' : '…'} ${g.tentative.san} (not yet pressed)`;
  }
  if (!n) return 'No moves yet';
  const { no, side } = g.moveNumber(n - 1);
  return `${no}${side === 'white' ? '.' : '…'} ${g.data.moves[n - 1].san}`;
}

class BoardWidget {
  el: HTMLElement;
  cg: CgApi;
  orientation: Side = 'white';
  private label: string;

  constructor(
    private g: Game,
    opts: { small?: boolean } = {},
  ) {
    this.label = g.label;
    const inner = h('div', { class: 'cg-host' });
    this.el = h('div', { class: `board${opts.small ? ' small' : ''}`, role: 'img' }, inner);
    this.cg = Chessground(inner, {
      fen: g.displayFen(),
      viewOnly: true,
      coordinates: !opts.small,
      orientation: this.orientation,
      animation: { enabled: true, duration: 120 },
      drawable: { enabled: false, visible: false },
      disableContextMenu: true,
    });
    this.update();
  }

  update(): void {
    const g = this.g;
    const lm = g.lastMoveSquares();
    this.cg.set({
      fen: g.displayFen(),
      turnColor: g.displayTurn(),
      check: g.displayCheck(),
      lastMove: lm ? (lm as Key[]) : undefined,
    });
    this.el.classList.toggle('tentative', !!g.tentative);
    this.el.setAttribute('aria-label', `Chess board, ${this.label}. ${lastMoveText(g)}. ${statusText(g)}.`);
  }

  flip(): void {
    this.orientation = this.orientation === 'white' ? 'black' : 'white';
    this.cg.set({ orientation: this.orientation });
  }
}

class ClockWidget {
  el: HTMLElement;
  private time: HTMLElement;
  private last = '';

  constructor(
    private g: Game,
    private side: Side,
    name: string,
  ) {
    this.time = h('span', { class: 'time' });
    this.el = h(
      'div',
      { class: `clock ${side}`, role: 'timer', 'aria-live': 'off', 'aria-label': `${sideName(side)} clock, ${name}` },
      h('span', { class: 'who' }, h('span', { class: `dot ${side}`, 'aria-hidden': 'true' }), name),
      this.time,
    );
    this.tick();
  }

  tick(): void {
    const g = this.g;
    const ms = g.clockNow(this.side);
    const txt = g.clock.known ? fmtClock(ms) : '–:––';
    if (txt !== this.last) {
      this.time.textContent = txt;
      this.last = txt;
    }
    const running = g.clock.running === this.side && !g.paused && !g.over;
    this.el.classList.toggle('running', running);
    this.el.classList.toggle('low', g.clock.known && ms < 30_000);
    this.el.classList.toggle('flagged', g.clock.known && ms <= 0);
    this.el.classList.toggle('paused', g.paused);
  }

  /** What a screen reader says when asked for the time. */
  spoken(): string {
    return `${sideName(this.side)} ${sayClock(this.g.clockNow(this.side))}`;
  }
}

function renderMoveList(g: Game, ol: HTMLOListElement): void {
  const moves = g.data.moves;
  const items: { san: string; ply: number; state: 'complete' | 'tentative' }[] = moves.map((m) => ({
    san: m.san,
    ply: m.ply,
    state: 'complete' as const,
  }));
  if (g.tentative) items.push({ san: g.tentative.san, ply: g.tentative.ply, state: 'tentative' });
  ol.replaceChildren();
  let li: HTMLLIElement | null = null;
  items.forEach((it, i) => {
    const { no, side } = g.moveNumber(i);
    if (side === 'white' || !li) {
      li = h('li', { value: no });
      ol.append(li);
      if (side === 'black') li.append(h('span', { class: 'mv empty', 'aria-hidden': 'true' }, '…'));
    }
    const key = `${it.ply}:${it.san}:${it.state}`;
    let shown = g.shownAt.get(key);
    if (shown === undefined) {
      shown = Date.now();
      g.shownAt.set(key, shown);
    }
    const span = h(
      'span',
      {
        class: `mv ${side} ${it.state}`,
        'data-san': it.san,
        'data-ply': it.ply,
        'data-state': it.state,
        'data-shown-at': shown,
        'data-event-at': g.eventAt.get(key) ?? null,
        title: it.state === 'tentative' ? 'Made on the board, clock not yet pressed' : null,
      },
      it.san,
    );
    if (it.state === 'tentative') span.append(h('span', { class: 'sr-only' }, ' (not yet pressed)'));
    li!.append(span);
  });
  ol.dataset.count = String(moves.length);
}

function playersHeading(g: Game, level: 'h1' | 'h2' | 'h3'): HTMLElement {
  const res = g.over ? h('span', { class: 'result' }, resultText(g.data.result)) : null;
  return h(level, { class: 'players' }, h('span', { class: 'pname' }, g.white), h('span', { class: 'vs' }, ' – '), h('span', { class: 'pname' }, g.black), res ? ' ' : null, res);
}

function eventLine(g: Game): string {
  const parts = [tag(g.data, 'event'), tag(g.data, 'round') && `Round ${tag(g.data, 'round')}`];
  if (g.data.team) parts.push(`${g.data.team.match}, board ${g.data.team.board_no}`);
  if (g.data.chess960) parts.push('Chess960');
  return parts.filter(Boolean).join(' · ');
}

function fmtGameTime(t: number): string {
  const s = Math.floor(Math.max(0, t) / 1000);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

function irregularityItem(ev: CoreEvent): HTMLLIElement {
  const art = ev.article ? `${ev.article} ` : '';
  return h(
    'li',
    { class: 'irr' },
    h('strong', {}, `${art}${sideName(ev.side)}`),
    ev.ply ? ` at ply ${ev.ply}: ` : ': ',
    String(ev.detail ?? ev.reason ?? ''),
  );
}

// ---------------------------------------------------------------- board view

class BoardView implements View {
  private board!: BoardWidget;
  private clocks: ClockWidget[] = [];
  private moveList!: HTMLOListElement;
  private spoken!: HTMLOListElement;
  private irr!: HTMLUListElement;
  private status!: HTMLElement;
  private heading!: HTMLElement;

  constructor(private id: string) {}

  get game(): Game | undefined {
    return store.games.get(this.id);
  }

  render(): void {
    const main = $('#main')!;
    const g = this.game;
    if (!g) {
      document.title = 'Board not found · tactus';
      main.replaceChildren(h('h1', {}, 'Board not found'), h('p', {}, `There is no board “${this.id}” in this hall. `, h('a', { href: '/' }, 'See all boards.')));
      main.dataset.ready = '1';
      return;
    }
    document.title = `${g.white} – ${g.black} · tactus`;
    this.board = new BoardWidget(g);
    const topClock = new ClockWidget(g, 'black', g.black);
    const bottomClock = new ClockWidget(g, 'white', g.white);
    this.clocks = [topClock, bottomClock];
    this.moveList = h('ol', { class: 'moves', id: 'moves', 'aria-labelledby': 'moves-h' });
    renderMoveList(g, this.moveList);
    this.status = h('p', { class: 'status', id: 'status' }, statusText(g));
    this.heading = playersHeading(g, 'h1');

    const readMoves = prefs.get('readMoves', true);
    const readSpoken = prefs.get('readSpoken', true);
    this.spoken = h('ol', { class: 'spoken', role: 'log', 'aria-live': readSpoken ? 'polite' : 'off', 'aria-labelledby': 'spoken-h' });
    for (const s of g.data.spoken.slice(-30)) this.spoken.append(this.spokenItem(s));
    this.irr = h('ul', { class: 'irregularities', role: 'log', 'aria-live': 'assertive', 'aria-labelledby': 'irr-h' });
    for (const ev of g.data.irregularities) this.irr.append(irregularityItem(ev));

    const flipBtn = h('button', { type: 'button', class: 'btn', onclick: () => this.flip() }, 'Flip board');
    const timeBtn = h(
      'button',
      { type: 'button', class: 'btn', onclick: () => announce(this.clocks.map((c) => c.spoken()).join('. '), true) },
      'Say the clocks',
    );
    const pref = (name: string, label: string, value: boolean, on: (v: boolean) => void): HTMLElement => {
      const input = h('input', { type: 'checkbox', id: `pref-${name}`, checked: value || null });
      input.addEventListener('change', () => {
        prefs.set(name, input.checked);
        on(input.checked);
      });
      return h('label', { class: 'check', for: `pref-${name}` }, input, ` ${label}`);
    };

    const pieces = describePieces(g.displayFen());
    const piecesEl = h('details', { class: 'pieces' }, h('summary', {}, 'Pieces on the board (text)'), h('p', { id: 'pieces-w' }, `White: ${pieces.white}.`), h('p', { id: 'pieces-b' }, `Black: ${pieces.black}.`));

    main.replaceChildren(
      h(
        'div',
        { class: 'game' },
        h('div', { class: 'game-head' }, this.heading, h('p', { class: 'event' }, eventLine(g))),
        h('div', { class: 'board-col' }, topClock.el, this.board.el, bottomClock.el, h('div', { class: 'toolbar' }, flipBtn, timeBtn)),
        h(
          'div',
          { class: 'side-col' },
          this.status,
          h('section', { class: 'panel', 'aria-labelledby': 'moves-h' }, h('h2', { id: 'moves-h' }, 'Moves'), h('div', { class: 'moves-scroll' }, this.moveList)),
          h('section', { class: 'panel', 'aria-labelledby': 'irr-h' }, h('h2', { id: 'irr-h' }, 'Irregularities'), this.irr, h('p', { class: 'none' }, 'None so far.')),
          h('section', { class: 'panel', 'aria-labelledby': 'spoken-h' }, h('h2', { id: 'spoken-h' }, 'Spoken'), this.spoken, h('p', { class: 'none' }, 'Nothing spoken yet.')),
          h(
            'section',
            { class: 'panel prefs', 'aria-labelledby': 'prefs-h' },
            h('h2', { id: 'prefs-h' }, 'Screen reader'),
            pref('readMoves', 'Read each move aloud', readMoves, () => {}),
            pref('readSpoken', 'Read what the board speaks', readSpoken, (v) => this.spoken.setAttribute('aria-live', v ? 'polite' : 'off')),
            piecesEl,
          ),
        ),
      ),
    );
    this.scrollMoves();
    main.dataset.ready = '1';
  }

  private spokenItem(s: Spoken): HTMLLIElement {
    return h('li', {}, h('span', { class: 't', 'aria-hidden': 'true' }, fmtGameTime(s.t)), ' ', h('span', { class: 'text' }, s.text));
  }

  private flip(): void {
    this.board.flip();
    const col = this.board.el.parentElement!;
    const [a, b] = this.clocks;
    if (this.board.orientation === 'white') {
      col.insertBefore(a.el, this.board.el);
      this.board.el.after(b.el);
    } else {
      col.insertBefore(b.el, this.board.el);
      this.board.el.after(a.el);
    }
  }

  private scrollMoves(): void {
    const sc = this.moveList.parentElement;
    if (sc) sc.scrollTop = sc.scrollHeight;
  }

  onBoard(g: Game, what: Set<string>, ev: CoreEvent | null): void {
    if (g.id !== this.id) return;
    if (what.has('board')) {
      this.board.update();
      renderMoveList(g, this.moveList);
      this.scrollMoves();
      const pieces = describePieces(g.displayFen());
      const w = $('#pieces-w');
      const b = $('#pieces-b');
      if (w) w.textContent = `White: ${pieces.white}.`;
      if (b) b.textContent = `Black: ${pieces.black}.`;
      if (ev && (ev.event === 'complete' || ev.event === 'move') && prefs.get('readMoves', true)) {
        if (ev.event === 'complete' || ev.correction) {
          announce(`${sideName(ev.side)}: ${String(ev.san)}${ev.event === 'move' ? '' : ''}`);
        }
      }
    }
    if (what.has('info') || what.has('board')) {
      this.status.textContent = statusText(g);
      const nh = playersHeading(g, 'h1');
      this.heading.replaceWith(nh);
      this.heading = nh;
    }
    if (ev && ev.event === 'irregularity') this.irr.append(irregularityItem(ev));
    if (ev && ev.event === 'start') this.render();
    if (what.has('clock')) this.tick();
  }

  onSpoken(g: Game, line: Spoken): void {
    if (g.id !== this.id) return;
    this.spoken.append(this.spokenItem(line));
    while (this.spoken.childElementCount > 50) this.spoken.firstElementChild?.remove();
    this.spoken.scrollTop = this.spoken.scrollHeight;
  }

  onAlert(a: Alert): void {
    if (a.board !== this.id) return;
    if (a.kind === 'flag_fall' || a.kind === 'game_over') announce(`${a.title}. ${a.text}`, true);
  }

  tick(): void {
    for (const c of this.clocks) c.tick();
  }
}

// ---------------------------------------------------------------- hall view

class HallView implements View {
  private cards = new Map<string, { board: BoardWidget; clocks: ClockWidget[]; last: HTMLElement; status: HTMLElement; head: HTMLElement }>();

  render(): void {
    const main = $('#main')!;
    document.title = store.hall ? `${store.hall} · tactus` : 'tactus';
    this.cards.clear();
    const games = store.order.map((id) => store.games.get(id)!).filter(Boolean);
    const grid = h('ul', { class: 'hall-grid', 'aria-label': 'Boards' });
    for (const g of games) grid.append(this.card(g));
    main.replaceChildren(
      ...[
        h('h1', { class: 'hall-title' }, store.hall || 'All boards'),
        store.matches.length ? this.matches() : null,
        games.length ? grid : h('p', {}, 'No boards are connected yet.'),
      ].filter((x): x is HTMLElement => x !== null),
    );
    main.dataset.ready = '1';
  }

  private matches(): HTMLElement {
    const sec = h('section', { class: 'matches', 'aria-labelledby': 'matches-h' }, h('h2', { id: 'matches-h' }, 'Team matches'));
    for (const m of store.matches) {
      const table = h(
        'table',
        { class: 'match' },
        h(
          'caption',
          {},
          h('span', { class: 'mname' }, m.name),
          h('span', { class: 'score' }, h('span', {}, m.home.name), h('strong', {}, ` ${fmtPoints(m.home.score)} – ${fmtPoints(m.away.score)} `), h('span', {}, m.away.name)),
        ),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Board'), h('th', { scope: 'col' }, m.home.name), h('th', { scope: 'col', class: 'pts' }, 'Points'), h('th', { scope: 'col' }, m.away.name))),
      );
      const tbody = h('tbody');
      m.boards.forEach((b, i) => {
        const g = store.games.get(b.id);
        let home = '';
        let away = '';
        if (g) {
          const homeIsWhite = g.data.team?.side !== 'away';
          home = homeIsWhite ? g.white : g.black;
          away = homeIsWhite ? g.black : g.white;
        }
        const done = g ? g.over : true;
        const pts = done ? `${fmtPoints(b.points_home)} – ${fmtPoints(b.points_away)}` : 'playing';
        tbody.append(
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, g ? h('a', { href: boardLink(g) }, String(g.data.team?.board_no ?? i + 1)) : String(i + 1)),
            h('td', {}, home),
            h('td', { class: 'pts' }, pts),
            h('td', {}, away),
          ),
        );
      });
      table.append(tbody);
      sec.append(table);
    }
    return sec;
  }

  private card(g: Game): HTMLLIElement {
    const board = new BoardWidget(g, { small: true });
    const clocks = [new ClockWidget(g, 'white', g.white), new ClockWidget(g, 'black', g.black)];
    const last = h('p', { class: 'last' }, lastMoveText(g));
    const status = h('p', { class: 'status' }, statusText(g));
    const head = h('h2', { class: 'card-title' }, h('a', { href: boardLink(g) }, g.label));
    this.cards.set(g.id, { board, clocks, last, status, head });
    const ev = eventLine(g);
    return h(
      'li',
      { class: 'card', 'data-board': g.id },
      head,
      ev ? h('p', { class: 'event' }, ev) : null,
      h('a', { href: boardLink(g), class: 'board-link', tabindex: '-1', 'aria-hidden': 'true' }, board.el),
      h('div', { class: 'card-clocks' }, ...clocks.map((c) => c.el)),
      last,
      status,
    );
  }

  onBoard(g: Game, what: Set<string>): void {
    const c = this.cards.get(g.id);
    if (!c) return;
    if (what.has('board')) c.board.update();
    c.last.textContent = lastMoveText(g);
    c.status.textContent = statusText(g);
    if (what.has('clock')) for (const k of c.clocks) k.tick();
  }

  onSpoken(): void {}

  onAlert(a: Alert): void {
    if (a.kind === 'flag_fall' || a.kind === 'game_over') {
      const g = store.games.get(a.board);
      announce(`${g ? g.label : a.board}: ${a.title}`, false);
    }
  }

  tick(): void {
    for (const c of this.cards.values()) for (const k of c.clocks) k.tick();
  }
}

// ---------------------------------------------------------------- arbiter view

const TOKEN_KEY = 'tactus.arbiterToken';

function getToken(): string {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

function setToken(t: string): void {
  try {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* ignore */
  }
}

async function postAction(id: string, action: string, body: unknown): Promise<{ ok: boolean; message: string }> {
  const token = getToken();
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  let r: Response;
  try {
    r = await fetch(`/api/game/${encodeURIComponent(id)}/${action}`, { method: 'POST', headers, body: JSON.stringify(body ?? {}) });
  } catch (e) {
    return { ok: false, message: `Could not reach tactus: ${(e as Error).message}` };
  }
  let detail = '';
  try {
    detail = (await r.text()).trim();
    if (detail.startsWith('{')) {
      const j = JSON.parse(detail) as { error?: string; message?: string };
      detail = j.error ?? j.message ?? '';
    }
  } catch {
    /* no body */
  }
  detail = detail.slice(0, 200);
  if (r.ok) return { ok: true, message: 'Done.' };
  if (r.status === 401) return { ok: false, message: `Refused (401): ${token ? 'the token was not accepted' : 'no token entered'}. Enter the arbiter token at the top of the page.` };
  if (r.status === 403) return { ok: false, message: `Refused (403): the arbiter token was not accepted${detail ? ` (${detail})` : ''}. Check the token at the top of the page.` };
  return { ok: false, message: `Failed (HTTP ${r.status})${detail ? `: ${detail}` : '.'}` };
}

let uid = 0;
function field(label: string, control: HTMLElement): HTMLElement {
  const id = `f${++uid}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

function select(name: string, options: [string, string][], value?: string): HTMLSelectElement {
  const s = h('select', { name });
  for (const [v, l] of options) s.append(h('option', { value: v, selected: v === value || null }, l));
  return s;
}

const SIDES: [string, string][] = [
  ['white', 'White'],
  ['black', 'Black'],
];

class ArbiterView implements View {
  private alertList!: HTMLOListElement;
  private alertCount!: HTMLElement;
  private showAck = false;
  private boards = new Map<string, { summary: HTMLElement; clocks: ClockWidget[]; whiteIn: HTMLInputElement; blackIn: HTMLInputElement }>();

  render(): void {
    const main = $('#main')!;
    this.boards.clear();
    this.alertList = h('ol', { class: 'alerts', 'aria-labelledby': 'alerts-h', reversed: true });
    this.alertCount = h('span', { class: 'count' });
    const showAck = h('input', { type: 'checkbox', id: 'show-ack', checked: this.showAck || null });
    showAck.addEventListener('change', () => {
      this.showAck = showAck.checked;
      this.renderAlerts();
    });
    const ackAll = h('button', { type: 'button', class: 'btn', onclick: () => this.ackAll() }, 'Acknowledge all');

    const boardsSec = h('section', { class: 'arb-boards', 'aria-labelledby': 'arb-boards-h' }, h('h2', { id: 'arb-boards-h' }, 'Boards'));
    for (const id of store.order) {
      const g = store.games.get(id);
      if (g) boardsSec.append(this.boardPanel(g));
    }
    if (!store.order.length) boardsSec.append(h('p', {}, 'No boards are connected yet.'));

    main.replaceChildren(
      h('h1', {}, 'Arbiter'),
      this.tokenForm(),
      h(
        'div',
        { class: 'arbiter' },
        h(
          'section',
          { class: 'alerts-panel', 'aria-labelledby': 'alerts-h' },
          h('h2', { id: 'alerts-h' }, 'Alerts ', this.alertCount),
          h('div', { class: 'toolbar' }, ackAll, h('label', { class: 'check', for: 'show-ack' }, showAck, ' Show acknowledged')),
          this.alertList,
        ),
        boardsSec,
      ),
    );
    this.renderAlerts();
    main.dataset.ready = '1';
  }

  private tokenForm(): HTMLElement {
    const status = h('p', { class: 'token-status', role: 'status' });
    const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false', placeholder: getToken() ? '(saved for this tab)' : '' });
    const forget = h('button', { type: 'button', class: 'btn' }, 'Forget token');
    const refresh = (): void => {
      status.textContent = getToken() ? 'A token is saved for this browser tab.' : 'No token yet: actions will be refused.';
      status.className = `token-status ${getToken() ? 'ok' : 'warn'}`;
      forget.hidden = !getToken();
      input.placeholder = getToken() ? '(saved for this tab)' : '';
    };
    forget.addEventListener('click', () => {
      setToken('');
      refresh();
    });
    const form = h(
      'form',
      { class: 'token', 'aria-labelledby': 'token-h' },
      h('h2', { id: 'token-h', class: 'sr-only' }, 'Arbiter token'),
      field('Arbiter token', input),
      h('button', { type: 'submit', class: 'btn primary' }, 'Save'),
      forget,
      status,
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (input.value.trim()) setToken(input.value.trim());
      input.value = '';
      refresh();
    });
    refresh();
    return form;
  }

  private actionForm(g: Game, title: string, controls: HTMLElement[], buttons: HTMLButtonElement[], submit: (form: HTMLFormElement, submitter: HTMLButtonElement | null) => { action: string; body: unknown; confirm?: string } | string): HTMLElement {
    const status = h('p', { class: 'form-status', role: 'status' });
    const form = h('form', { class: 'action', novalidate: true }, h('fieldset', {}, h('legend', {}, title), ...controls, h('div', { class: 'buttons' }, ...buttons), status));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
      const req = submit(form, submitter);
      if (typeof req === 'string') {
        status.textContent = req;
        status.className = 'form-status err';
        return;
      }
      if (req.confirm && !window.confirm(req.confirm)) return;
      status.textContent = 'Sending…';
      status.className = 'form-status';
      for (const b of buttons) b.disabled = true;
      const res = await postAction(g.id, req.action, req.body);
      for (const b of buttons) b.disabled = false;
      status.textContent = res.message;
      status.className = `form-status ${res.ok ? 'ok' : 'err'}`;
    });
    return form;
  }

  private boardPanel(g: Game): HTMLElement {
    const btn = (label: string, cls = 'btn', value?: string): HTMLButtonElement => h('button', { type: 'submit', class: cls, value: value ?? null, name: value ? 'which' : null }, label);
    const clocks = [new ClockWidget(g, 'white', g.white), new ClockWidget(g, 'black', g.black)];
    const summary = h('p', { class: 'status' }, `${lastMoveText(g)} · ${statusText(g)}`);

    // Pause / resume
    const pause = this.actionForm(g, 'Clocks', [], [btn('Pause', 'btn', 'pause'), btn('Resume', 'btn', 'resume')], (_f, s) => ({ action: s?.value === 'resume' ? 'resume' : 'pause', body: {} }));

    // Claims
    const claimSide = select('side', SIDES, g.turn);
    const claimKind = select('claim', [
      ['illegal', 'Illegal move (7.5)'],
      ['threefold', 'Threefold repetition (9.2)'],
      ['fifty', 'Fifty moves (9.3)'],
    ]);
    const claim = this.actionForm(
      g,
      'Claim',
      [field('Claimed by', claimSide), field('Claim', claimKind)],
      [btn('Accept', 'btn primary', 'accept'), btn('Reject', 'btn', 'reject')],
      (_f, s) => {
        const accept = s?.value !== 'reject';
        return {
          action: 'claim',
          body: { side: claimSide.value, claim: claimKind.value, accept },
          confirm: accept ? `Accept ${sideName(claimSide.value)}'s claim (${claimKind.selectedOptions[0]?.text}) on ${g.label}?` : undefined,
        };
      },
    );

    // Result
    const result = select('result', [
      ['1-0', '1–0 (White wins)'],
      ['0-1', '0–1 (Black wins)'],
      ['1/2-1/2', '½–½ (draw)'],
    ]);
    const reason = select(
      'reason',
      [
        ['resignation', 'Resignation'],
        ['agreement', 'Agreement'],
        ['arbiter', "Arbiter's decision"],
        ['flag_fall', 'Flag fall'],
        ['illegal_moves', 'Illegal moves'],
        ['checkmate', 'Checkmate'],
        ['stalemate', 'Stalemate'],
        ['insufficient_material', 'Insufficient material'],
        ['threefold_repetition', 'Threefold repetition'],
        ['fifty_moves', 'Fifty moves'],
      ],
      'resignation',
    );
    const resultForm = this.actionForm(g, 'Result', [field('Result', result), field('Reason', reason)], [btn('Set result', 'btn primary')], () => ({
      action: 'result',
      body: { result: result.value, reason: reason.value },
      confirm: `Set the result of ${g.label} to ${resultText(result.value)} (${reasonText(reason.value)})?`,
    }));

    // Clocks
    const whiteIn = h('input', { type: 'text', inputmode: 'numeric', name: 'white', autocomplete: 'off', placeholder: 'm:ss', 'aria-describedby': `clkhelp-${g.id}` });
    const blackIn = h('input', { type: 'text', inputmode: 'numeric', name: 'black', autocomplete: 'off', placeholder: 'm:ss', 'aria-describedby': `clkhelp-${g.id}` });
    const fill = h('button', { type: 'button', class: 'btn' }, 'Use current times');
    fill.addEventListener('click', () => this.fillClocks(g, whiteIn, blackIn));
    const clockForm = this.actionForm(
      g,
      'Correct the clocks',
      [field(`White (${g.white})`, whiteIn), field(`Black (${g.black})`, blackIn), h('p', { class: 'help', id: `clkhelp-${g.id}` }, 'Minutes, m:ss or h:mm:ss.'), fill],
      [btn('Set clocks', 'btn primary')],
      () => {
        const w = parseClock(whiteIn.value);
        const b = parseClock(blackIn.value);
        if (w === null || b === null) return 'Enter both times as minutes, m:ss or h:mm:ss.';
        return { action: 'clock', body: { white_ms: w, black_ms: b } };
      },
    );
    this.fillClocks(g, whiteIn, blackIn);

    // Penalty
    const penSide = select('side', SIDES);
    const penTime = h('input', { type: 'text', inputmode: 'numeric', name: 'ms', autocomplete: 'off', value: '2:00' });
    const penalty = this.actionForm(g, 'Add time (penalty)', [field('Add time to', penSide), field('Time (m:ss)', penTime)], [btn('Add time', 'btn primary')], () => {
      const ms = parseClock(penTime.value);
      if (ms === null || ms <= 0) return 'Enter the time to add as minutes or m:ss.';
      return { action: 'penalty', body: { side: penSide.value, ms } };
    });

    this.boards.set(g.id, { summary, clocks, whiteIn, blackIn });
    const hid = `arb-${g.id}`;
    const details = h(
      'details',
      { class: 'arb-actions', open: store.order.length <= 2 || null },
      h('summary', {}, 'Actions: claim, time, clocks, result'),
      h('div', { class: 'forms' }, claim, penalty, clockForm, resultForm, pause),
    );
    return h(
      'article',
      { class: 'arb-board', 'aria-labelledby': hid, 'data-board': g.id, id: `board-${g.id}` },
      h('div', { class: 'arb-head' }, h('h3', { id: hid }, h('a', { href: boardLink(g) }, g.label)), h('div', { class: 'card-clocks' }, ...clocks.map((c) => c.el))),
      summary,
      details,
    );
  }

  private fillClocks(g: Game, w: HTMLInputElement, b: HTMLInputElement): void {
    if (!g.clock.known) return;
    const f = (ms: number): string => {
      const s = Math.floor(ms / 1000);
      const hh = Math.floor(s / 3600);
      const mm = Math.floor((s % 3600) / 60);
      const ss = String(s % 60).padStart(2, '0');
      return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
    };
    w.value = f(g.clockNow('white'));
    b.value = f(g.clockNow('black'));
  }

  private alertItem(a: Alert): HTMLLIElement {
    const g = store.games.get(a.board);
    const when = new Date(a.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    const ack = h('button', { type: 'button', class: 'btn small' }, a.acknowledged ? 'Acknowledged' : 'Acknowledge');
    ack.disabled = a.acknowledged;
    ack.addEventListener('click', () => {
      a.acknowledged = true;
      this.renderAlerts();
      (this.alertList.querySelector('button:not([disabled])') as HTMLElement | null)?.focus();
    });
    return h(
      'li',
      { class: `alert ${a.severity} ${a.kind}${a.acknowledged ? ' ack' : ''}`, 'data-kind': a.kind },
      h('div', { class: 'alert-head' }, h('strong', { class: 'alert-title' }, a.title), h('span', { class: 'when' }, `${when} · game time ${fmtGameTime(a.t)}`)),
      h('p', { class: 'alert-board' }, g ? h('a', { href: boardLink(g) }, g.label) : a.board),
      h('p', { class: 'alert-text' }, a.text),
      h(
        'div',
        { class: 'alert-actions' },
        ack,
        g
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn small',
                onclick: () => {
                  const panel = document.getElementById(`board-${g.id}`);
                  const det = panel?.querySelector('details');
                  if (det) det.open = true;
                  panel?.scrollIntoView({ block: 'start' });
                  (panel?.querySelector('summary') as HTMLElement | null)?.focus();
                },
              },
              'Act on this board',
            )
          : null,
      ),
    );
  }

  private renderAlerts(): void {
    const list = store.alerts.filter((a) => this.showAck || !a.acknowledged).slice().reverse();
    this.alertList.replaceChildren(...list.map((a) => this.alertItem(a)));
    if (!list.length) this.alertList.append(h('li', { class: 'none' }, this.showAck ? 'No alerts.' : 'No new alerts.'));
    const n = store.alerts.filter((a) => !a.acknowledged).length;
    this.alertCount.textContent = n ? `(${n} new)` : '';
    document.title = `${n ? `(${n}) ` : ''}Arbiter · tactus`;
  }

  private ackAll(): void {
    for (const a of store.alerts) a.acknowledged = true;
    this.renderAlerts();
  }

  onBoard(g: Game, what: Set<string>): void {
    const b = this.boards.get(g.id);
    if (!b) return;
    b.summary.textContent = `${lastMoveText(g)} · ${statusText(g)}`;
    if (what.has('clock')) for (const c of b.clocks) c.tick();
  }

  onSpoken(): void {}

  onAlert(a: Alert): void {
    this.renderAlerts();
    const g = store.games.get(a.board);
    announce(`${g ? g.label : a.board}. ${a.title}. ${a.text}`, a.severity !== 'info');
  }

  tick(): void {
    for (const b of this.boards.values()) for (const c of b.clocks) c.tick();
  }
}

// ---------------------------------------------------------------- start

function route(): View {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  const nav = (name: string): void => {
    document.querySelectorAll<HTMLAnchorElement>('[data-nav]').forEach((a) => {
      if (a.dataset.nav === name) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    });
  };
  const m = /^\/board\/([^/]+)$/.exec(path);
  if (m) {
    document.body.dataset.view = 'board';
    nav('');
    return new BoardView(decodeURIComponent(m[1]));
  }
  if (path === '/arbiter') {
    document.body.dataset.view = 'arbiter';
    nav('arbiter');
    return new ArbiterView();
  }
  nav('hall');
  if (store.order.length === 1) {
    document.body.dataset.view = 'board';
    return new BoardView(store.order[0]);
  }
  document.body.dataset.view = 'hall';
  return new HallView();
}

async function start(): Promise<void> {
  connect();
  let data: HallData;
  for (let attempt = 0; ; attempt++) {
    try {
      data = await fetchJson<HallData>('/api/hall');
      break;
    } catch (e) {
      const main = $('#main')!;
      main.replaceChildren(h('p', { class: 'loading', role: 'alert' }, `Cannot load the boards (${(e as Error).message}). Retrying…`));
      await new Promise((r) => setTimeout(r, Math.min(5000, 500 * 2 ** attempt)));
    }
  }
  loadHall(data);
  store.loaded = true;
  view = route();
  view.render();
  const buffered = pending ?? [];
  pending = null;
  for (const p of buffered) {
    if (p.kind === 'board') handleBoardEvent(p.data as { board: string; event: CoreEvent });
    else handleSpoken(p.data as { board: string; t: number; text: string });
  }
  window.setInterval(() => view?.tick(), 100);
  window.addEventListener('resize', () => document.body.dispatchEvent(new Event('chessground.resize')));
}

void start();

export type { BoardData };
