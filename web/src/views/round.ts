// The arbiter's view of a round from the pairing program, when the relay
// plays one (`GET /api/round`, asked every few seconds): each board's
// pairing, whether the board took it, its result, and the arbiter's
// forfeits and corrections; the file with the results to download
// (`/round.trf`) and read again for the next round.
import type { BoardResult, ErrorReply, RoundBoard, RoundData, RoundPlayer } from '../api';
import { announce, field, h, select } from '../dom';
import { headers } from '../token';

const EVERY_MS = 2000;

const RESULTS: [string, string][] = [
  ['', "the game's own"],
  ['1-0', '1-0'],
  ['1/2-1/2', '½-½'],
  ['0-1', '0-1'],
  ['+-', '+ − (White wins by forfeit)'],
  ['-+', '− + (Black wins by forfeit)'],
  ['--', '− − (neither played)'],
];

function player(p: RoundPlayer): string {
  return [p.title, p.name, p.elo !== undefined ? `(${p.elo})` : null].filter(Boolean).join(' ');
}

function shown(r: BoardResult | null): string {
  return r === null ? '—' : r === '1/2-1/2' ? '½-½' : r;
}

/** What an error reply says. */
async function reason(r: Response): Promise<string> {
  try {
    const text = (await r.text()).trim();
    return text.startsWith('{') ? ((JSON.parse(text) as Partial<ErrorReply>).error ?? text) : text;
  } catch {
    return '';
  }
}

function refused(r: Response, detail: string): string {
  if (r.status === 401) return 'Refused (401): enter the arbiter token at the top of the page.';
  if (r.status === 403) return `Refused (403): ${detail || 'the arbiter token was not accepted'}.`;
  return `Not done (HTTP ${r.status})${detail ? `: ${detail}` : '.'}`;
}

export class RoundPanel {
  /** Hidden until the server says it plays a round; `data-loaded` once it has been asked. */
  readonly el: HTMLElement = h('section', { class: 'round', 'aria-labelledby': 'round-h', hidden: true });
  private data: RoundData | null = null;
  private timer: number | null = null;
  private status = h('p', { class: 'form-status', role: 'status' });
  private error = '';

  start(): void {
    if (this.timer !== null) return;
    this.timer = window.setInterval(() => void this.poll(), EVERY_MS);
    void this.poll();
  }

  private async poll(): Promise<void> {
    let r: Response;
    try {
      r = await fetch('/api/round', { headers: { Accept: 'application/json' }, cache: 'no-store' });
    } catch {
      return; // what was shown stays until the server answers again
    }
    if (r.status === 204 || r.status === 404) {
      if (this.timer !== null) window.clearInterval(this.timer);
      this.el.hidden = true;
      this.el.dataset.loaded = '1';
      return;
    }
    if (!r.ok) return;
    this.data = (await r.json()) as RoundData;
    const error = this.data.error ?? '';
    if (error && error !== this.error) announce(`The round's file: ${error}`, true);
    this.error = error;
    // A form being filled in is not redrawn under the arbiter's hands.
    if (!this.el.contains(document.activeElement) || this.el.hidden) this.draw();
    this.el.dataset.loaded = '1';
  }

  private draw(): void {
    const d = this.data;
    if (!d) return;
    this.el.hidden = false;
    const title = d.round === null ? 'Round' : `Round ${d.round}`;
    const parts: (HTMLElement | null)[] = [
      h('h2', { id: 'round-h' }, `${title}${d.tournament ? ` — ${d.tournament}` : ''}`),
      h('p', { class: 'round-file' }, `From ${d.file}${d.layout ? ` (${d.layout})` : ''}: ${d.boards.length} boards.`),
      d.error ? h('p', { class: 'round-error err', role: 'alert' }, `The file could not be read: ${d.error}. The round stays as it was.`) : null,
      this.boardsTable(d),
      d.unpaired.length
        ? h('p', { class: 'round-unpaired' }, `No board: ${d.unpaired.map((u) => `${u.name} (${u.code ?? 'absent'})`).join(', ')}.`)
        : null,
      this.fileForms(d),
      this.status,
    ];
    this.el.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }

  private boardsTable(d: RoundData): HTMLElement {
    const rows = d.boards.map((b) => this.boardRow(b));
    return h(
      'table',
      { class: 'round-boards' },
      h('caption', { class: 'sr-only' }, 'The round\'s boards'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Board', 'White', 'Black', 'Hall board', 'Game', 'In the file', 'Set or correct'].map((c) => h('th', { scope: 'col' }, c))),
      ),
      h('tbody', {}, ...rows),
    );
  }

  private boardRow(b: RoundBoard): HTMLElement {
    const where = b.problem ?? (b.id === null ? 'not heard yet' : `${b.id}${b.shown ? '' : ' (telling it…)'}`);
    const choice = select('result', RESULTS, b.arbiter ?? '');
    choice.setAttribute('aria-label', `Board ${b.number}'s result`);
    const set = h('button', { type: 'submit', class: 'btn' }, 'Set');
    const form = h('form', { class: 'round-result', 'data-board': b.number }, choice, set);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.setResult(b.number, choice.value === '' ? null : (choice.value as BoardResult));
    });
    return h(
      'tr',
      { 'data-board': b.number, 'data-result': b.result ?? '' },
      h('th', { scope: 'row' }, String(b.number)),
      h('td', {}, player(b.white)),
      h('td', {}, player(b.black)),
      h('td', { class: b.problem ? 'err' : '' }, where),
      h('td', {}, shown(b.game)),
      h('td', { class: 'in-file' }, shown(b.result)),
      h('td', {}, form),
    );
  }

  private fileForms(d: RoundData): HTMLElement {
    const download = h('button', { type: 'button', class: 'btn primary', 'data-action': 'download' }, `Download ${d.file}`);
    download.addEventListener('click', () => void this.download());
    const next = h('input', { type: 'number', name: 'round', min: '1', max: '999', value: String((d.round ?? 0) + 1) });
    const reload = h('form', { class: 'round-reload' }, field('Round', next), h('button', { type: 'submit', class: 'btn' }, 'Read the file again'));
    reload.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.reload(Number(next.value));
    });
    return h('div', { class: 'round-file-actions' }, download, reload);
  }

  private say(text: string, ok: boolean): void {
    this.status.textContent = text;
    this.status.className = `form-status ${ok ? 'ok' : 'err'}`;
  }

  private async post(path: string, body: unknown): Promise<Response | null> {
    try {
      return await fetch(path, { method: 'POST', headers: headers(true), body: JSON.stringify(body) });
    } catch (e) {
      this.say(`Could not reach tactus: ${(e as Error).message}`, false);
      return null;
    }
  }

  private async setResult(board: number, result: BoardResult | null): Promise<void> {
    const r = await this.post('/api/round/result', { board, result });
    if (!r) return;
    if (r.ok) this.say(`Board ${board}: ${result === null ? "the game's own result" : shown(result)} is in the file.`, true);
    else this.say(refused(r, await reason(r)), false);
    await this.poll();
    this.draw();
  }

  private async reload(round: number): Promise<void> {
    this.say('Reading the file…', true);
    const r = await this.post('/api/round/reload', { round });
    if (!r) return;
    if (r.ok) this.say(`Round ${round} read from the file: each board is told its players.`, true);
    else this.say(refused(r, await reason(r)), false);
    await this.poll();
    this.draw();
  }

  /** The file with the results, fetched with the token, saved under its own name. */
  private async download(): Promise<void> {
    let r: Response;
    try {
      r = await fetch('/round.trf', { headers: headers(false), cache: 'no-store' });
    } catch (e) {
      this.say(`Could not reach tactus: ${(e as Error).message}`, false);
      return;
    }
    if (!r.ok) {
      this.say(refused(r, await reason(r)), false);
      return;
    }
    const name = /filename="([^"]+)"/.exec(r.headers.get('Content-Disposition') ?? '')?.[1] ?? 'round.trf';
    const url = URL.createObjectURL(await r.blob());
    const a = h('a', { href: url, download: name, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
    this.say(`${name} downloaded, with the round's results.`, true);
  }
}
