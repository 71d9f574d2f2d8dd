// DOM helpers: elements, the screen reader's live regions, preferences.
import type { Side } from './events';

type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;
type Child = Node | string | null | undefined | false;

/** An element with attributes (`on…` functions become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(name: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
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

export function $(sel: string): HTMLElement | null {
  return document.querySelector(sel);
}

/** Says `text` through a live region (assertive: interrupts). */
export function announce(text: string, assertive = false): void {
  const region = $(assertive ? '#announce-assertive' : '#announce-polite');
  if (!region) return;
  region.append(h('p', {}, text));
  while (region.childElementCount > 5) region.firstElementChild?.remove();
}

const PIECE_NAMES: Record<string, string> = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };

/** A screen reader's description of a FEN's pieces: "king g1, …" per side. */
export function describePieces(fen: string): Record<Side, string> {
  const rows = fen.split(' ')[0].split('/');
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
  const order = 'kqrbnp';
  found.sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role) || a.sq.localeCompare(b.sq));
  const out: Record<Side, string[]> = { white: [], black: [] };
  for (const f of found) out[f.side].push(`${PIECE_NAMES[f.role] ?? f.role} ${f.sq}`);
  return { white: out.white.join(', ') || 'none', black: out.black.join(', ') || 'none' };
}

/** Choices kept in this browser. */
export const prefs = {
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
      /* private mode: not kept */
    }
  },
};

/** A labelled form control. */
let uid = 0;
export function field(label: string, control: HTMLElement): HTMLElement {
  const id = `f${++uid}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

export function select(name: string, options: [string, string][], value?: string): HTMLSelectElement {
  const s = h('select', { name });
  for (const [v, l] of options) s.append(h('option', { value: v, selected: v === value || null }, l));
  return s;
}
