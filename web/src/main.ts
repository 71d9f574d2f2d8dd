// tactus live page: the hall (/), one board (/board/{id}) and the arbiter's
// view (/arbiter). One index.html serves all three; the path says which.
// The page says it is ready (`main[data-ready="1"]`) once the hall is drawn,
// after the live stream opened (`body[data-live="1"]` while it is open):
// from then on it misses no change.
import { $, h } from './dom';
import { type View, connect, fetchHall, flushPending, loadHall, setView, store } from './store';
import { ArbiterView } from './views/arbiter';
import { BoardView } from './views/board';
import { HallView } from './views/hall';

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
  if (store.order.length === 1 && store.matches.length === 0) {
    document.body.dataset.view = 'board';
    return new BoardView(store.order[0]);
  }
  document.body.dataset.view = 'hall';
  return new HallView();
}

async function start(): Promise<void> {
  // The stream first, so that the hall fetched next misses nothing.
  await connect();
  for (let attempt = 0; ; attempt++) {
    try {
      loadHall(await fetchHall());
      break;
    } catch (e) {
      $('#main')!.replaceChildren(h('p', { class: 'loading', role: 'alert' }, `Cannot load the boards (${(e as Error).message}). Retrying…`));
      await new Promise((r) => setTimeout(r, Math.min(5000, 500 * 2 ** attempt)));
    }
  }
  const view = route();
  setView(view);
  view.render();
  flushPending();
  window.setInterval(() => view.tick(), 100);
  window.addEventListener('resize', () => document.body.dispatchEvent(new Event('chessground.resize')));
}

void start();
