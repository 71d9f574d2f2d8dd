// The pieces the views are made of: a board, a clock, the move list, the
// rulings, and the lines that say how a game stands.
import { Chessground } from '@lichess-org/chessground';
import type { Api as CgApi } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import type { Told } from './api';
import { h } from './dom';
import type { Ruling, Side } from './events';
import { fmtClock, fmtDuration, type Game, resultText, rulingText, sayClock, sideName } from './model';

export function boardLink(g: Game): string {
  return `/board/${encodeURIComponent(g.id)}`;
}

/** "Engine: +0.35 after Nf6, expecting Nf6 Nc3 d5", or mate in n; empty without a view. */
export function engineText(g: Game): string {
  const e = g.engine;
  if (!e) return '';
  const score =
    e.mate !== undefined
      ? `${e.mate > 0 ? 'White' : 'Black'} mates in ${Math.abs(e.mate)}`
      : e.cp !== undefined
        ? `${e.cp >= 0 ? '+' : '−'}${(Math.abs(e.cp) / 100).toFixed(2)}`
        : '?';
  const line = e.line.length ? `, expecting ${e.line.join(' ')}` : '';
  return `Engine: ${score} after ${e.san}${line}`;
}

export function statusText(g: Game): string {
  if (g.data.result !== null) {
    // How it ended, in the board's words.
    const how = g.data.end_text ? `. ${g.data.end_text}` : '';
    return `Result ${resultText(g.data.result)}${how}`;
  }
  if (g.paused) return 'Clocks paused';
  if (g.tentative) return `${sideName(g.turn)} played ${g.tentative.san}, clock not yet pressed`;
  return `${sideName(g.turn)} to move`;
}

export function lastMoveText(g: Game): string {
  const n = g.data.moves.length;
  if (g.tentative) {
    const { no, side } = g.moveNumber(n);
    return `${no}${side === 'white' ? '.' : '…'} ${g.tentative.san} (not yet pressed)`;
  }
  if (!n) return 'No moves yet';
  const { no, side } = g.moveNumber(n - 1);
  return `${no}${side === 'white' ? '.' : '…'} ${g.data.moves[n - 1].san}`;
}

/** Game time as a clock on the wall would not show it: 1:02:03 into the game. */
export function fmtGameTime(t: number): string {
  return fmtDuration(t);
}

export class BoardWidget {
  el: HTMLElement;
  cg: CgApi;
  orientation: Side = 'white';

  constructor(
    private g: Game,
    opts: { small?: boolean } = {},
  ) {
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
    this.cg.set({ fen: g.displayFen(), turnColor: g.displayTurn(), check: g.displayCheck(), lastMove: lm ? (lm as Key[]) : undefined });
    this.el.classList.toggle('tentative', !!g.tentative);
    this.el.setAttribute('aria-label', `Chess board, ${g.label}. ${lastMoveText(g)}. ${statusText(g)}.`);
  }

  flip(): void {
    this.orientation = this.orientation === 'white' ? 'black' : 'white';
    this.cg.set({ orientation: this.orientation });
  }
}

export class ClockWidget {
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
    this.el.classList.toggle('paused', g.paused && !g.over);
  }

  /** What a screen reader says when asked for the time. */
  spoken(): string {
    return `${sideName(this.side)} ${sayClock(this.g.clockNow(this.side))}`;
  }
}

export function renderMoveList(g: Game, ol: HTMLOListElement): void {
  type Item = { san: string; ply: number; state: 'complete' | 'tentative'; offRecord: boolean };
  const items: Item[] = g.data.moves.map((m) => ({ san: m.san, ply: m.ply, state: 'complete', offRecord: !!m.off_record }));
  if (g.tentative) items.push({ san: g.tentative.san, ply: g.tentative.ply, state: 'tentative', offRecord: false });
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
    const title = it.state === 'tentative' ? 'Made on the board, clock not yet pressed' : it.offRecord ? 'Off the record: an illegal move stood (A.5.2)' : null;
    const span = h(
      'span',
      {
        class: `mv ${side} ${it.state}${it.offRecord ? ' off-record' : ''}`,
        'data-san': it.san,
        'data-ply': it.ply,
        'data-state': it.state,
        'data-shown-at': shown,
        'data-event-at': g.eventAt.get(key) ?? null,
        title,
      },
      it.san,
    );
    if (it.state === 'tentative') span.append(h('span', { class: 'sr-only' }, ' (not yet pressed)'));
    if (it.offRecord) span.append(h('span', { class: 'sr-only' }, ' (off the record)'));
    li!.append(span);
  });
  ol.dataset.count = String(g.data.moves.length);
}

export function playersHeading(g: Game, level: 'h1' | 'h2' | 'h3'): HTMLElement {
  const res = g.data.result !== null ? h('span', { class: 'result' }, resultText(g.data.result)) : null;
  return h(
    level,
    { class: 'players' },
    h('span', { class: 'pname' }, g.white),
    h('span', { class: 'vs' }, ' – '),
    h('span', { class: 'pname' }, g.black),
    res ? ' ' : null,
    res,
  );
}

/** Event, round, the team match and board, the variant. */
export function eventLine(g: Game): string {
  const t = g.data.tags;
  const team = g.data.team;
  const parts = [t.event, t.round && `Round ${t.round}`, !team && t.board && `Board ${t.board}`];
  if (team) parts.push(`${team.match}, board ${team.board}: ${team.white_team} (White) – ${team.black_team} (Black)`);
  if (g.data.chess960) parts.push('Chess960');
  return parts.filter(Boolean).join(' · ');
}

/** One ruling of a board, in the board's words: rulings stand out, an observation does not. */
export function rulingItem(r: Told<Ruling>): HTMLLIElement {
  const { title, text } = rulingText(r);
  const kind = r.event === 'irregularity' ? 'ruling' : r.event;
  return h('li', { class: `irr ${kind}`, 'data-kind': r.event }, h('strong', {}, title), ': ', text);
}

