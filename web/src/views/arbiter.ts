// The arbiter's view: alerts as they happen, and the arbiter's actions on
// each board (each needs the arbiter's token).
import type { ErrorReply } from '../api';
import { $, announce, field, h, select } from '../dom';
import { type Changed, fmtDuration, type Game, parseClock, resultText, sideName } from '../model';
import type { Alert, View } from '../store';
import { store } from '../store';
import { ClockWidget, boardLink, fmtGameTime, lastMoveText, statusText } from '../widgets';
import { getToken, setToken } from '../token';
import { LichessPanel } from './lichess';
import { RoundPanel } from './round';

/** Sends an action; what to tell the arbiter about how it went. */
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
    const text = (await r.text()).trim();
    detail = text.startsWith('{') ? ((JSON.parse(text) as Partial<ErrorReply>).error ?? '') : text;
  } catch {
    /* no body */
  }
  detail = detail.slice(0, 300);
  if (r.ok) return { ok: true, message: 'Sent to the board: its clock and record show it as it happens.' };
  if (r.status === 401) return { ok: false, message: `Refused (401): ${token ? 'the token was not accepted' : 'no token entered'}. Enter the arbiter token at the top of the page.` };
  if (r.status === 403) return { ok: false, message: `Refused (403): ${detail || 'the arbiter token was not accepted'}. Check the token at the top of the page.` };
  return { ok: false, message: `Not done (HTTP ${r.status})${detail ? `: ${detail}` : '.'}` };
}

const SIDES: [string, string][] = [
  ['white', 'White'],
  ['black', 'Black'],
];

interface Panel {
  summary: HTMLElement;
  clocks: ClockWidget[];
}

export class ArbiterView implements View {
  private alertList!: HTMLOListElement;
  private alertCount!: HTMLElement;
  private showAck = false;
  private panels = new Map<string, Panel>();
  private lichess = new LichessPanel();
  private round = new RoundPanel();

  render(): void {
    const main = $('#main')!;
    this.panels.clear();
    this.alertList = h('ol', { class: 'alerts', 'aria-labelledby': 'alerts-h', reversed: true });
    this.alertCount = h('span', { class: 'count' });
    const showAck = h('input', { type: 'checkbox', id: 'show-ack', checked: this.showAck || null });
    showAck.addEventListener('change', () => {
      this.showAck = showAck.checked;
      this.renderAlerts();
    });
    const ackAll = h('button', { type: 'button', class: 'btn', onclick: () => this.ackAll() }, 'Acknowledge all');

    const boards = h('section', { class: 'arb-boards', 'aria-labelledby': 'arb-boards-h' }, h('h2', { id: 'arb-boards-h' }, 'Boards'));
    for (const id of store.order) {
      const g = store.games.get(id);
      if (g) boards.append(this.boardPanel(g));
    }
    if (!store.order.length) boards.append(h('p', {}, 'No boards are connected yet.'));

    main.replaceChildren(
      h('h1', {}, 'Arbiter'),
      this.tokenForm(),
      this.round.el,
      this.lichess.el,
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
        boards,
      ),
    );
    this.renderAlerts();
    this.lichess.start();
    this.round.start();
    main.dataset.ready = '1';
  }

  private tokenForm(): HTMLElement {
    const status = h('p', { class: 'token-status', role: 'status' });
    const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false' });
    const forget = h('button', { type: 'button', class: 'btn' }, 'Forget token');
    const refresh = (): void => {
      const saved = !!getToken();
      status.textContent = saved ? 'A token is saved for this browser tab.' : 'No token yet: actions will be refused.';
      status.className = `token-status ${saved ? 'ok' : 'warn'}`;
      forget.hidden = !saved;
      input.placeholder = saved ? '(saved for this tab)' : '';
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

  private actionForm(
    g: Game,
    title: string,
    controls: HTMLElement[],
    buttons: HTMLButtonElement[],
    submit: (submitter: HTMLButtonElement | null) => { action: string; body: unknown; confirm?: string } | string,
  ): HTMLElement {
    const status = h('p', { class: 'form-status', role: 'status' });
    const form = h(
      'form',
      { class: 'action', novalidate: true, 'data-action': title },
      h('fieldset', {}, h('legend', {}, title), ...controls, h('div', { class: 'buttons' }, ...buttons), status),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const req = submit((e as SubmitEvent).submitter as HTMLButtonElement | null);
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
    const btn = (label: string, cls = 'btn', value?: string): HTMLButtonElement =>
      h('button', { type: 'submit', class: cls, value: value ?? null, name: value ? 'which' : null }, label);
    const clocks = [new ClockWidget(g, 'white', g.white), new ClockWidget(g, 'black', g.black)];
    const summary = h('p', { class: 'status' }, this.summaryText(g));

    const pause = this.actionForm(g, 'Clocks', [], [btn('Pause', 'btn', 'pause'), btn('Resume', 'btn', 'resume')], (s) => ({
      action: s?.value === 'resume' ? 'resume' : 'pause',
      body: {},
    }));

    const claimSide = select('side', SIDES, g.turn);
    const claimKind = select('claim', [
      ['illegal', 'Illegal move (7.5, A.5.2)'],
      ['threefold', 'Threefold repetition (9.2)'],
      ['fifty', 'Fifty moves (9.3)'],
    ]);
    const claim = this.actionForm(
      g,
      'Claim',
      [field('Claimed by', claimSide), field('Claim', claimKind)],
      [btn('Accept', 'btn primary', 'accept'), btn('Reject', 'btn', 'reject')],
      (s) => {
        const accept = s?.value !== 'reject';
        const side = claimSide.value === 'black' ? 'black' : 'white';
        return {
          action: 'claim',
          body: { side, claim: claimKind.value, accept },
          confirm: accept ? `Accept ${sideName(side)}'s claim (${claimKind.selectedOptions[0]?.text}) on ${g.label}?` : undefined,
        };
      },
    );

    // The results an arbiter records off the board (API.md): the board
    // itself ends games by checkmate, flag fall and the rest.
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
      ],
      'resignation',
    );
    const resultForm = this.actionForm(g, 'Result', [field('Result', result), field('Reason', reason)], [btn('Set result', 'btn primary')], () => {
      const r = result.value === '0-1' ? '0-1' : result.value === '1/2-1/2' ? '1/2-1/2' : '1-0';
      return { action: 'result', body: { result: r, reason: reason.value }, confirm: `Set the result of ${g.label} to ${resultText(r)} (${reason.selectedOptions[0]?.text ?? reason.value})?` };
    });

    const whiteIn = h('input', { type: 'text', inputmode: 'numeric', name: 'white', autocomplete: 'off', placeholder: 'm:ss', 'aria-describedby': `clkhelp-${g.id}` });
    const blackIn = h('input', { type: 'text', inputmode: 'numeric', name: 'black', autocomplete: 'off', placeholder: 'm:ss', 'aria-describedby': `clkhelp-${g.id}` });
    const fill = h('button', { type: 'button', class: 'btn' }, 'Use current times');
    fill.addEventListener('click', () => this.fillClocks(g, whiteIn, blackIn));
    const clockForm = this.actionForm(
      g,
      'Correct the clocks',
      [field(`White (${g.white})`, whiteIn), field(`Black (${g.black})`, blackIn), h('p', { class: 'help', id: `clkhelp-${g.id}` }, 'Minutes, m:ss or h:mm:ss (at most 9:59:59).'), fill],
      [btn('Set clocks', 'btn primary')],
      () => {
        const w = parseClock(whiteIn.value);
        const b = parseClock(blackIn.value);
        if (w === null || b === null) return 'Enter both times as minutes, m:ss or h:mm:ss.';
        return { action: 'clock', body: { white_ms: w, black_ms: b } };
      },
    );
    this.fillClocks(g, whiteIn, blackIn);

    const penSide = select('side', SIDES);
    const penTime = h('input', { type: 'text', inputmode: 'numeric', name: 'ms', autocomplete: 'off', value: '2:00' });
    const penalty = this.actionForm(g, 'Add time (penalty)', [field('Add time to', penSide), field('Time (m:ss)', penTime)], [btn('Add time', 'btn primary')], () => {
      const ms = parseClock(penTime.value);
      if (ms === null || ms <= 0) return 'Enter the time to add as minutes or m:ss.';
      return { action: 'penalty', body: { side: penSide.value, ms } };
    });

    this.panels.set(g.id, { summary, clocks });
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
      h(
        'div',
        { class: 'arb-head' },
        h('h3', { id: hid }, h('a', { href: boardLink(g) }, g.label)),
        h('div', { class: 'card-clocks' }, ...clocks.map((c) => c.el)),
      ),
      summary,
      this.lichess.line(g.id),
      details,
    );
  }

  private summaryText(g: Game): string {
    const over = g.over ? ' · the game is over: the board takes no more actions' : '';
    return `${lastMoveText(g)} · ${statusText(g)}${over}`;
  }

  private fillClocks(g: Game, w: HTMLInputElement, b: HTMLInputElement): void {
    if (!g.clock.known) return;
    w.value = fmtDuration(g.clockNow('white'));
    b.value = fmtDuration(g.clockNow('black'));
  }

  private alertItem(a: Alert): HTMLLIElement {
    const g = store.games.get(a.board);
    const when =
      a.receivedAt !== null
        ? `${new Date(a.receivedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })} · game time ${fmtGameTime(a.t)}`
        : `on record before this page opened · game time ${fmtGameTime(a.t)}`;
    const ack = h('button', { type: 'button', class: 'btn small' }, a.acknowledged ? 'Acknowledged' : 'Acknowledge');
    ack.disabled = a.acknowledged;
    ack.addEventListener('click', () => {
      a.acknowledged = true;
      this.renderAlerts();
      (this.alertList.querySelector('button:not([disabled])') as HTMLElement | null)?.focus();
    });
    const act = g
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
      : null;
    return h(
      'li',
      { class: `alert ${a.severity} ${a.kind}${a.acknowledged ? ' ack' : ''}`, 'data-kind': a.kind, 'data-board': a.board },
      h('div', { class: 'alert-head' }, h('strong', { class: 'alert-title' }, a.title), h('span', { class: 'when' }, when)),
      h('p', { class: 'alert-board' }, g ? h('a', { href: boardLink(g) }, g.label) : a.board),
      h('p', { class: 'alert-text' }, a.text),
      h('div', { class: 'alert-actions' }, ack, act),
    );
  }

  private renderAlerts(): void {
    const list = store.alerts.filter((a) => this.showAck || !a.acknowledged).reverse();
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

  onBoard(g: Game, what: Set<Changed>): void {
    const p = this.panels.get(g.id);
    if (!p) return this.render();
    p.summary.textContent = this.summaryText(g);
    if (what.has('clock')) for (const c of p.clocks) c.tick();
  }

  onSpoken(): void {}

  onAlert(a: Alert): void {
    this.renderAlerts();
    const g = store.games.get(a.board);
    announce(`${g ? g.label : a.board}. ${a.title}. ${a.text}`, a.severity !== 'info');
  }

  onMatches(): void {}

  tick(): void {
    for (const p of this.panels.values()) for (const c of p.clocks) c.tick();
  }
}
