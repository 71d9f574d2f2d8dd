// Every board of the hall, with the team matches' scores.
import type { MatchScore } from '../api';
import { $, announce, h } from '../dom';
import { fmtPoints, type Changed, type Game, resultText } from '../model';
import type { Alert, View } from '../store';
import { store } from '../store';
import { BoardWidget, ClockWidget, boardLink, eventLine, lastMoveText, statusText } from '../widgets';

interface Card {
  board: BoardWidget;
  clocks: ClockWidget[];
  last: HTMLElement;
  status: HTMLElement;
}

/** A match board's players by team: home's player, away's player. */
function byTeam(m: MatchScore, row: MatchScore['boards'][number], g: Game | undefined): [string, string] {
  if (!g) return ['', ''];
  const homeWhite = row.white_team === m.home.name;
  return homeWhite ? [g.white, g.black] : [g.black, g.white];
}

export function matchTable(m: MatchScore): HTMLTableElement {
  const score = `${fmtPoints(m.home.points)} – ${fmtPoints(m.away.points)}`;
  const table = h(
    'table',
    { class: 'match', 'data-match': m.name },
    h(
      'caption',
      {},
      h('span', { class: 'mname' }, m.name),
      ' ',
      h('span', { class: 'score' }, h('span', {}, m.home.name), h('strong', {}, ` ${score} `), h('span', {}, m.away.name)),
      m.finished ? h('span', { class: 'final' }, ' (final)') : null,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Board'),
        h('th', { scope: 'col' }, m.home.name),
        h('th', { scope: 'col', class: 'pts' }, 'Points'),
        h('th', { scope: 'col' }, m.away.name),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const row of m.boards) {
    const g = store.games.get(row.id);
    const [home, away] = byTeam(m, row, g);
    const homeColour = row.white_team === m.home.name ? 'White' : 'Black';
    const pts =
      row.home_points !== null && row.away_points !== null ? `${fmtPoints(row.home_points)} – ${fmtPoints(row.away_points)}` : 'playing';
    tbody.append(
      h(
        'tr',
        { 'data-board': row.id },
        h('th', { scope: 'row' }, g ? h('a', { href: boardLink(g) }, String(row.board)) : String(row.board)),
        h('td', {}, home, h('span', { class: 'colour' }, ` (${homeColour})`)),
        h('td', { class: 'pts', title: row.result ? resultText(row.result) : null }, pts),
        h('td', {}, away),
      ),
    );
  }
  table.append(tbody);
  return table;
}

export class HallView implements View {
  private cards = new Map<string, Card>();
  private matchesEl: HTMLElement | null = null;

  render(): void {
    const main = $('#main')!;
    document.title = store.hall ? `${store.hall} · tactus` : 'tactus';
    this.cards.clear();
    const games = store.order.map((id) => store.games.get(id)).filter((g): g is Game => g !== undefined);
    const grid = h('ul', { class: 'hall-grid', 'aria-label': 'Boards' });
    for (const g of games) grid.append(this.card(g));
    this.matchesEl = store.matches.length ? this.matches() : null;
    main.replaceChildren(
      ...[h('h1', { class: 'hall-title' }, store.hall || 'All boards'), this.matchesEl, games.length ? grid : h('p', {}, 'No boards are connected yet.')].filter(
        (x): x is HTMLElement => x !== null,
      ),
    );
    main.dataset.ready = '1';
  }

  private matches(): HTMLElement {
    return h('section', { class: 'matches', 'aria-labelledby': 'matches-h' }, h('h2', { id: 'matches-h' }, 'Team matches'), ...store.matches.map(matchTable));
  }

  private card(g: Game): HTMLLIElement {
    const board = new BoardWidget(g, { small: true });
    const clocks = [new ClockWidget(g, 'white', g.white), new ClockWidget(g, 'black', g.black)];
    const last = h('p', { class: 'last' }, lastMoveText(g));
    const status = h('p', { class: 'status' }, statusText(g));
    this.cards.set(g.id, { board, clocks, last, status });
    const ev = eventLine(g);
    return h(
      'li',
      { class: 'card', 'data-board': g.id },
      h('h2', { class: 'card-title' }, h('a', { href: boardLink(g) }, g.label)),
      ev ? h('p', { class: 'event' }, ev) : null,
      h('a', { href: boardLink(g), class: 'board-link', tabindex: '-1', 'aria-hidden': 'true' }, board.el),
      h('div', { class: 'card-clocks' }, ...clocks.map((c) => c.el)),
      last,
      status,
    );
  }

  onBoard(g: Game, what: Set<Changed>): void {
    const c = this.cards.get(g.id);
    if (!c) return this.render();
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

  onMatches(): void {
    if (!this.matchesEl) return this.render();
    const fresh = this.matches();
    this.matchesEl.replaceWith(fresh);
    this.matchesEl = fresh;
  }

  tick(): void {
    for (const c of this.cards.values()) for (const k of c.clocks) k.tick();
  }
}
