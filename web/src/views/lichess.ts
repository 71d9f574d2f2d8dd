// The arbiter's view of the hall's push to a Lichess broadcast, when the
// relay pushes to one (`GET /api/lichess`, asked every few seconds): whether
// pushing works, and each board whose game Lichess refused, with its error —
// in a section of its own and on the board's panel.
import type { LichessBoard, LichessData } from '../api';
import { announce, h } from '../dom';
import { store } from '../store';

const EVERY_MS = 2000;

function time(unixMs: number): string {
  return new Date(unixMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

function label(b: LichessBoard): string {
  return store.games.get(b.board)?.label ?? b.board;
}

export class LichessPanel {
  /** Hidden until the server says it pushes to Lichess; `data-loaded` once it has been asked. */
  readonly el: HTMLElement = h('section', { class: 'lichess', 'aria-labelledby': 'lichess-h', hidden: true });
  private data: LichessData | null = null;
  /** Each board's error as last said, so that each is said once. */
  private said = new Map<string, string>();
  private timer: number | null = null;

  start(): void {
    if (this.timer !== null) return;
    this.timer = window.setInterval(() => void this.poll(), EVERY_MS);
    void this.poll();
  }

  private async poll(): Promise<void> {
    let r: Response;
    try {
      r = await fetch('/api/lichess', { headers: { Accept: 'application/json' }, cache: 'no-store' });
    } catch {
      return; // what was shown stays until the server answers again
    }
    if (r.status === 204 || r.status === 404) {
      // This server pushes to no broadcast.
      if (this.timer !== null) window.clearInterval(this.timer);
      this.el.hidden = true;
      this.el.dataset.loaded = '1';
      return;
    }
    if (!r.ok) return;
    const first = this.data === null;
    this.data = (await r.json()) as LichessData;
    this.draw();
    for (const b of this.data.boards) {
      if (b.error !== null && this.said.get(b.board) !== b.error) {
        if (!first) announce(`Lichess broadcast: ${label(b)}: ${b.error}`);
        this.said.set(b.board, b.error);
      } else if (b.error === null) this.said.delete(b.board);
    }
    this.el.dataset.loaded = '1';
  }

  private statusLine(d: LichessData): HTMLElement {
    if (d.failing !== null) return h('p', { class: 'lichess-status err' }, `Pushing to Lichess fails: ${d.failing}. Trying again.`);
    if (d.paused_until_unix_ms !== null && d.paused_until_unix_ms > Date.now())
      return h('p', { class: 'lichess-status warn' }, `Lichess asked to slow down: nothing is pushed until ${time(d.paused_until_unix_ms)}.`);
    if (d.last_ok_unix_ms !== null)
      return h('p', { class: 'lichess-status ok' }, `Pushed to Lichess at ${time(d.last_ok_unix_ms)} (${d.pushes} pushes).`);
    return h('p', { class: 'lichess-status' }, 'Nothing pushed to Lichess yet.');
  }

  private draw(): void {
    const d = this.data;
    if (!d) return;
    const refused = d.boards.filter((b) => b.error !== null);
    this.el.hidden = false;
    this.el.replaceChildren(
      h('h2', { id: 'lichess-h' }, 'Lichess broadcast'),
      this.statusLine(d),
      h('p', { class: 'lichess-rounds' }, `${d.rounds.length === 1 ? 'Round' : 'Rounds'} ${d.rounds.join(', ')}; ${d.boards.length} boards.`),
      refused.length
        ? h('ul', { class: 'lichess-errors' }, ...refused.map((b) => h('li', { 'data-board': b.board }, `${label(b)}: ${b.error}`)))
        : h('p', { class: 'lichess-errors none' }, 'Lichess took every game.'),
    );
    for (const line of document.querySelectorAll<HTMLElement>('p.lichess-line')) this.fill(line);
  }

  /** A board panel's line about the board on Lichess. */
  line(board: string): HTMLElement {
    const el = h('p', { class: 'lichess-line', 'data-board': board, hidden: true });
    this.fill(el);
    return el;
  }

  private fill(el: HTMLElement): void {
    const b = this.data?.boards.find((x) => x.board === el.dataset.board);
    el.hidden = !b;
    if (!b) return;
    el.className = `lichess-line${b.error !== null ? ' err' : ''}`;
    el.textContent =
      b.error !== null ? `Lichess: ${b.error}` : `Lichess: board ${b.number ?? '?'}${b.round !== null ? ` of round ${b.round}` : ''}.`;
  }
}
