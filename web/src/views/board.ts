// One board, big: the board and clocks, the moves, the rulings, what the
// board said, and the screen reader's choices.
import { $, announce, describePieces, h, prefs } from '../dom';
import type { CoreEvent } from '../events';
import { type Changed, type Game, sideName } from '../model';
import type { Alert, View } from '../store';
import { store } from '../store';
import type { Spoken } from '../api';
import { BoardWidget, ClockWidget, engineText, eventLine, fmtGameTime, playersHeading, renderMoveList, rulingItem, statusText } from '../widgets';

export class BoardView implements View {
  private board!: BoardWidget;
  private clocks: ClockWidget[] = [];
  private moveList!: HTMLOListElement;
  private spoken!: HTMLOListElement;
  private rulings!: HTMLUListElement;
  private status!: HTMLElement;
  private engine!: HTMLElement;
  private heading!: HTMLElement;
  private event!: HTMLElement;

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
    this.engine = h('p', { class: 'engine', id: 'engine' }, engineText(g));
    this.heading = playersHeading(g, 'h1');
    this.event = h('p', { class: 'event' }, eventLine(g));

    const readSpoken = prefs.get('readSpoken', true);
    this.spoken = h('ol', { class: 'spoken', role: 'log', 'aria-live': readSpoken ? 'polite' : 'off', 'aria-labelledby': 'spoken-h' });
    for (const s of g.data.spoken.slice(-30)) this.spoken.append(this.spokenItem(s));
    this.rulings = h('ul', { class: 'irregularities', role: 'log', 'aria-live': 'assertive', 'aria-labelledby': 'irr-h' });
    this.renderRulings(g);

    const flipBtn = h('button', { type: 'button', class: 'btn', onclick: () => this.flip() }, 'Flip board');
    const timeBtn = h('button', { type: 'button', class: 'btn', onclick: () => announce(this.clocks.map((c) => c.spoken()).join('. '), true) }, 'Say the clocks');
    const pref = (name: string, label: string, value: boolean, on: (v: boolean) => void): HTMLElement => {
      const input = h('input', { type: 'checkbox', id: `pref-${name}`, checked: value || null });
      input.addEventListener('change', () => {
        prefs.set(name, input.checked);
        on(input.checked);
      });
      return h('label', { class: 'check', for: `pref-${name}` }, input, ` ${label}`);
    };
    const pieces = describePieces(g.displayFen());
    const piecesEl = h(
      'details',
      { class: 'pieces' },
      h('summary', {}, 'Pieces on the board (text)'),
      h('p', { id: 'pieces-w' }, `White: ${pieces.white}.`),
      h('p', { id: 'pieces-b' }, `Black: ${pieces.black}.`),
    );

    main.replaceChildren(
      h(
        'div',
        { class: 'game' },
        h('div', { class: 'game-head' }, this.heading, this.event),
        h('div', { class: 'board-col' }, topClock.el, this.board.el, bottomClock.el, h('div', { class: 'toolbar' }, flipBtn, timeBtn)),
        h(
          'div',
          { class: 'side-col' },
          this.status,
          this.engine,
          h('section', { class: 'panel', 'aria-labelledby': 'moves-h' }, h('h2', { id: 'moves-h' }, 'Moves'), h('div', { class: 'moves-scroll' }, this.moveList)),
          h('section', { class: 'panel', 'aria-labelledby': 'irr-h' }, h('h2', { id: 'irr-h' }, 'Rulings and observations'), this.rulings, h('p', { class: 'none' }, 'None so far.')),
          h('section', { class: 'panel', 'aria-labelledby': 'spoken-h' }, h('h2', { id: 'spoken-h' }, 'Spoken'), this.spoken, h('p', { class: 'none' }, 'Nothing spoken yet.')),
          h(
            'section',
            { class: 'panel prefs', 'aria-labelledby': 'prefs-h' },
            h('h2', { id: 'prefs-h' }, 'Screen reader'),
            pref('readMoves', 'Read each move aloud', prefs.get('readMoves', true), () => {}),
            pref('readSpoken', 'Read what the board speaks', readSpoken, (v) => this.spoken.setAttribute('aria-live', v ? 'polite' : 'off')),
            piecesEl,
          ),
        ),
      ),
    );
    this.scrollMoves();
    main.dataset.ready = '1';
  }

  private renderRulings(g: Game): void {
    this.rulings.replaceChildren(...g.data.irregularities.map(rulingItem));
  }

  private spokenItem(s: Spoken): HTMLLIElement {
    return h('li', {}, h('span', { class: 't', 'aria-hidden': 'true' }, fmtGameTime(s.t)), ' ', h('span', { class: 'text' }, s.text));
  }

  private flip(): void {
    this.board.flip();
    const col = this.board.el.parentElement!;
    const [top, bottom] = this.clocks;
    if (this.board.orientation === 'white') {
      col.insertBefore(top.el, this.board.el);
      this.board.el.after(bottom.el);
    } else {
      col.insertBefore(bottom.el, this.board.el);
      this.board.el.after(top.el);
    }
  }

  private scrollMoves(): void {
    const sc = this.moveList.parentElement;
    if (sc) sc.scrollTop = sc.scrollHeight;
  }

  onBoard(g: Game, what: Set<Changed>, ev: CoreEvent | null): void {
    if (g.id !== this.id) return;
    if (ev?.event === 'start' || ev === null) return this.render();
    if (what.has('board')) {
      this.board.update();
      renderMoveList(g, this.moveList);
      this.scrollMoves();
      const pieces = describePieces(g.displayFen());
      const w = $('#pieces-w');
      const b = $('#pieces-b');
      if (w) w.textContent = `White: ${pieces.white}.`;
      if (b) b.textContent = `Black: ${pieces.black}.`;
      const said = ev.event === 'complete' || (ev.event === 'move' && ev.correction);
      if (said && prefs.get('readMoves', true)) announce(`${sideName(ev.side)}: ${ev.san}`);
    }
    if (what.has('info') || what.has('board')) {
      this.status.textContent = statusText(g);
      this.engine.textContent = engineText(g);
      const heading = playersHeading(g, 'h1');
      this.heading.replaceWith(heading);
      this.heading = heading;
    }
    if (what.has('info')) this.renderRulings(g);
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

  onMatches(): void {
    const g = this.game;
    if (g) this.event.textContent = eventLine(g);
  }

  tick(): void {
    for (const c of this.clocks) c.tick();
  }
}
