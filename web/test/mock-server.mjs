#!/usr/bin/env node
// A stand-in for tactus's HTTP server, to try the page without the daemon:
// serves web/dist, GET /api/hall, GET /api/game/{id}, the /events stream and
// the arbiter's POSTs, with a small scripted team match whose moves, spoken
// lines, an irregularity and a flag fall arrive at set times.
//
//   node test/mock-server.mjs [--port 0] [--token secret] [--dist DIR]
//        [--marker-file PATH] [--start now|connect] [--speed 1] [--boards b1,…]
//
// Prints "listening http://127.0.0.1:PORT" once ready. The script starts when
// the first /events client connects (--start connect, the default) or at
// once. --marker-file gets the wall-clock time (ms since the epoch) at which
// the first scripted move (b1: Re1) was sent.
import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Chess } from 'chessops/chess';
import { parseFen, makeFen } from 'chessops/fen';
import { parseSan } from 'chessops/san';
import { makeUci } from 'chessops/util';

const here = dirname(fileURLToPath(import.meta.url));

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const PORT = Number(arg('port', '0'));
const TOKEN = arg('token', 'secret');
const DIST = arg('dist', join(here, '..', 'dist'));
const MARKER_FILE = arg('marker-file', '');
const START = arg('start', 'connect');
const SPEED = Number(arg('speed', '1'));
const STANDARD = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

// ---------------------------------------------------------------- games

class MockGame {
  constructor(id, { tags, team, moves = [], white_ms, black_ms, running = true, spoken = [] }) {
    this.id = id;
    this.tags = tags;
    this.team = team;
    this.pos = Chess.fromSetup(parseFen(STANDARD).unwrap()).unwrap();
    this.moves = [];
    this.result = '*';
    this.irregularities = [];
    this.spoken = spoken;
    this.clocks = { white: white_ms, black: black_ms };
    this.running = running;
    this.paused = false;
    this.base = Date.now();
    for (const san of moves) this.play(san, 0, true);
  }

  side() {
    return this.pos.turn;
  }

  remaining(side) {
    const v = this.clocks[side];
    if (this.running && !this.paused && this.result === '*' && this.pos.turn === side) return Math.max(0, v - (Date.now() - this.base));
    return v;
  }

  freeze() {
    this.clocks.white = this.remaining('white');
    this.clocks.black = this.remaining('black');
    this.base = Date.now();
  }

  /** Plays a SAN move; returns its move and complete events. */
  play(san, t, quiet = false) {
    const move = parseSan(this.pos, san);
    if (!move) throw new Error(`${this.id}: illegal ${san} in ${makeFen(this.pos.toSetup())}`);
    const side = this.pos.turn;
    const other = side === 'white' ? 'black' : 'white';
    const ply = this.moves.length + 1;
    // Standard castling as a king's two-square move, as shakmaty writes it.
    let uci = makeUci(move);
    if (uci === 'e1h1' && san.startsWith('O-O')) uci = 'e1g1';
    if (uci === 'e1a1' && san.startsWith('O-O-O')) uci = 'e1c1';
    if (uci === 'e8h8' && san.startsWith('O-O')) uci = 'e8g8';
    if (uci === 'e8a8' && san.startsWith('O-O-O')) uci = 'e8c8';
    this.freeze();
    this.pos.play(move);
    const inc = 2000;
    if (!quiet) this.clocks[side] += inc;
    this.moves.push({ ply, san, uci, clock_ms: this.clocks[side] });
    const moveEv = { t, event: 'move', ply, side, san, uci, from: uci.slice(0, 2), to: uci.slice(2, 4) };
    const completeEv = { t: t + 250, event: 'complete', ply, side, san, uci, clock_ms: this.clocks[side], opponent_ms: this.clocks[other] };
    return { moveEv, completeEv };
  }

  json() {
    return {
      id: this.id,
      tags: this.tags,
      fen: makeFen(this.pos.toSetup()),
      start_fen: STANDARD,
      chess960: false,
      moves: this.moves,
      clocks: {
        white_ms: this.remaining('white'),
        black_ms: this.remaining('black'),
        running: this.result === '*' && this.running && !this.paused ? this.pos.turn : null,
        at_t: gameTime(),
      },
      result: this.result,
      irregularities: this.irregularities,
      spoken: this.spoken,
      team: this.team,
    };
  }
}

const EVENT = { event: 'Club League 2026', round: '5', site: 'Hamburg' };
const games = new Map();
const add = (g) => games.set(g.id, g);
add(
  new MockGame('b1', {
    tags: { ...EVENT, white: 'Anna Becker', black: 'Jonas Weber' },
    team: { match: 'SK Elbe – SF Spree', side: 'home', board_no: 1 },
    moves: ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6', 'Ba4', 'Nf6', 'O-O', 'Be7'],
    white_ms: 5_123_000,
    black_ms: 5_287_000,
    spoken: [
      { t: 60_000, text: 'White castles kingside' },
      { t: 75_000, text: 'Black bishop e7' },
    ],
  }),
);
add(
  new MockGame('b2', {
    tags: { ...EVENT, white: 'Lukas Sommer', black: 'Marta Nowak' },
    team: { match: 'SK Elbe – SF Spree', side: 'away', board_no: 2 },
    moves: ['d4', 'Nf6', 'c4', 'e6', 'Nc3', 'Bb4', 'Qc2'],
    white_ms: 4_980_000,
    black_ms: 5_011_000,
  }),
);
add(
  new MockGame('b3', {
    tags: { ...EVENT, white: 'Fatima Yilmaz', black: 'Peter Hansen' },
    team: { match: 'SK Elbe – SF Spree', side: 'home', board_no: 3 },
    moves: ['c4', 'e5', 'Nc3', 'Nf6', 'g3', 'd5', 'cxd5', 'Nxd5', 'Bg2', 'Nb6', 'Nf3', 'Nc6', 'O-O', 'Be7', 'd3', 'O-O', 'a3', 'Be6', 'b4'],
    white_ms: 42_000,
    black_ms: 9_000,
  }),
);
add(
  new MockGame('b4', {
    tags: { ...EVENT, white: 'Sofia Rossi', black: 'Tim Schulz' },
    team: { match: 'SK Elbe – SF Spree', side: 'away', board_no: 4 },
    moves: ['e4', 'c5', 'Nf3', 'd6', 'd4', 'cxd4', 'Nxd4', 'Nf6', 'Nc3', 'a6', 'Be2', 'e5', 'Nb3', 'Be7', 'O-O', 'O-O', 'Kh1', 'Qc7', 'a4', 'Nc6', 'f4'],
    white_ms: 3_400_000,
    black_ms: 3_120_000,
  }),
);
games.get('b4').result = '1/2-1/2';
games.get('b4').running = false;
// --boards b1,b2 keeps only those boards (one board: the hall shows it big).
const KEEP = arg('boards', '');
if (KEEP) for (const id of [...games.keys()]) if (!KEEP.split(',').includes(id)) games.delete(id);

const matchInfo = () => {
  const pts = (g, home) => {
    if (g.result === '*') return 0;
    const homeWhite = g.team.side === 'home';
    const w = g.result === '1-0' ? 1 : g.result === '0-1' ? 0 : 0.5;
    const homePts = homeWhite ? w : 1 - w;
    return home ? homePts : 1 - homePts;
  };
  if (![...games.values()].some((g) => g.team)) return [];
  const boards = [...games.values()].map((g) => ({ id: g.id, points_home: pts(g, true), points_away: pts(g, false) }));
  return [
    {
      name: 'SK Elbe – SF Spree',
      home: { name: 'SK Elbe', score: boards.reduce((s, b) => s + b.points_home, 0) },
      away: { name: 'SF Spree', score: boards.reduce((s, b) => s + b.points_away, 0) },
      boards,
    },
  ];
};

// ---------------------------------------------------------------- the script

let startedAt = 0;
const gameT0 = Date.now() - 3_600_000; // the games began an hour ago
const gameTime = () => Date.now() - gameT0;
const clients = new Set();

function send(kind, data) {
  const msg = `event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;
  for (const res of clients) res.write(msg);
}

function boardEvent(id, ev) {
  send('board', { board: id, event: ev });
}

const SPOKEN = {
  Re1: 'White rook e1',
  b5: 'Black pawn b5',
  Bb3: 'White bishop b3',
  d6: 'Black pawn d6',
  c3: 'White pawn c3',
  'O-O': 'Black castles kingside',
  h3: 'White pawn h3',
};

function scriptedMove(id, san, { marker = false } = {}) {
  const g = games.get(id);
  if (!g) return;
  const t = gameTime();
  const { moveEv, completeEv } = g.play(san, t);
  if (marker && MARKER_FILE) writeFileSync(MARKER_FILE, String(Date.now()));
  boardEvent(id, moveEv);
  if (id === 'b1' && SPOKEN[san]) {
    const line = { t, text: SPOKEN[san] };
    g.spoken.push(line);
    send('spoken', { board: id, ...line });
  }
  setTimeout(() => boardEvent(id, completeEv), 250 / SPEED);
}

const script = [
  [1000, () => scriptedMove('b1', 'Re1', { marker: true })],
  [1500, () => scriptedMove('b2', 'O-O')],
  [2200, () => scriptedMove('b1', 'b5')],
  [2600, () => {
    // b2: White touches the knight on c3, then plays another piece.
    const g = games.get('b2');
    if (!g) return;
    const t = gameTime();
    boardEvent('b2', { t, event: 'touch', sq: 'c3', piece: 'N', ply: 9, binding: '4.3.1' });
    const ev = {
      t: t + 900,
      event: 'irregularity',
      article: '4.3.1',
      side: 'white',
      ply: 9,
      reason: 'touch_move',
      detail: 'White touched the knight on c3 first, which could move, and moved the pawn a3.',
      touched: { sq: 'c3', piece: 'N' },
    };
    g.irregularities.push(ev);
    setTimeout(() => boardEvent('b2', ev), 300 / SPEED);
  }],
  [3200, () => scriptedMove('b1', 'Bb3')],
  [3500, () => {
    const t = gameTime();
    const g = games.get('b2');
    if (!g) return;
    g.freeze();
    g.clocks.black += 60_000;
    boardEvent('b2', { t, event: 'penalty', article: '7.5.5', side: 'black', ms: 60_000 });
  }],
  [4200, () => scriptedMove('b1', 'd6')],
  [5200, () => scriptedMove('b1', 'c3')],
  [6200, () => scriptedMove('b1', 'O-O')],
  [6500, () => {
    const g = games.get('b3');
    if (!g) return;
    g.freeze();
    g.clocks.black = 0;
    g.result = '1-0';
    boardEvent('b3', { t: gameTime(), event: 'game_over', result: '1-0', reason: 'flag_fall', article: '6.9' });
  }],
  [7200, () => scriptedMove('b1', 'h3')],
];

function startScript() {
  if (startedAt) return;
  startedAt = Date.now();
  for (const [at, fn] of script) setTimeout(fn, at / SPEED);
}

// ---------------------------------------------------------------- HTTP

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json', '.txt': 'text/plain; charset=utf-8', '.svg': 'image/svg+xml' };

function sendJson(res, status, obj) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(obj));
}

function serveFile(res, path) {
  if (!existsSync(path) || !statSync(path).isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
    return;
  }
  res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream' });
  res.end(readFileSync(path));
}

function readBody(req) {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        resolve(body ? JSON.parse(body) : {});
      } catch {
        resolve(null);
      }
    });
  });
}

async function action(req, res, id, what) {
  const g = games.get(id);
  if (!g) return sendJson(res, 404, { error: `no board ${id}` });
  const auth = req.headers.authorization ?? '';
  if (!auth.startsWith('Bearer ')) return sendJson(res, 401, { error: 'arbiter token required' });
  if (auth.slice(7) !== TOKEN) return sendJson(res, 403, { error: 'wrong arbiter token' });
  const body = await readBody(req);
  if (body === null) return sendJson(res, 400, { error: 'malformed JSON' });
  const t = gameTime();
  switch (what) {
    case 'result':
      g.freeze();
      g.result = body.result;
      boardEvent(id, { t, event: 'game_over', result: body.result, reason: body.reason ?? 'arbiter', article: '12' });
      break;
    case 'clock':
      g.clocks.white = body.white_ms;
      g.clocks.black = body.black_ms;
      g.base = Date.now();
      boardEvent(id, { t, event: 'clock_set', white_ms: body.white_ms, black_ms: body.black_ms });
      break;
    case 'penalty':
      g.freeze();
      g.clocks[body.side] += body.ms;
      boardEvent(id, { t, event: 'penalty', article: '12', side: body.side, ms: body.ms });
      break;
    case 'claim':
      if (body.accept && body.claim !== 'illegal') {
        g.freeze();
        g.result = '1/2-1/2';
        boardEvent(id, { t, event: 'game_over', result: '1/2-1/2', reason: body.claim === 'fifty' ? 'fifty_moves' : 'threefold_repetition', article: body.claim === 'fifty' ? '9.3' : '9.2' });
      }
      break;
    case 'pause':
      g.freeze();
      g.paused = true;
      boardEvent(id, { t, event: 'paused' });
      break;
    case 'resume':
      g.freeze();
      g.paused = false;
      boardEvent(id, { t, event: 'resumed' });
      break;
    default:
      return sendJson(res, 404, { error: `no action ${what}` });
  }
  return sendJson(res, 200, { ok: true });
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const p = url.pathname;
  if (req.method === 'GET' && p === '/api/hall') {
    return sendJson(res, 200, { hall: 'SK Elbe – SF Spree, round 5', boards: [...games.values()].map((g) => g.json()), matches: matchInfo() });
  }
  let m;
  if (req.method === 'GET' && (m = /^\/api\/game\/([^/]+)$/.exec(p))) {
    const g = games.get(decodeURIComponent(m[1]));
    return g ? sendJson(res, 200, g.json()) : sendJson(res, 404, { error: 'no such board' });
  }
  if (req.method === 'POST' && (m = /^\/api\/game\/([^/]+)\/([a-z]+)$/.exec(p))) {
    return action(req, res, decodeURIComponent(m[1]), m[2]);
  }
  if (req.method === 'GET' && p === '/events') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.write(': tactus mock\n\n');
    clients.add(res);
    req.on('close', () => clients.delete(res));
    if (START === 'connect') startScript();
    return;
  }
  if (req.method === 'GET' && p.startsWith('/assets/')) {
    const file = normalize(join(DIST, p));
    if (!file.startsWith(normalize(DIST))) return sendJson(res, 403, { error: 'no' });
    return serveFile(res, file);
  }
  if (req.method === 'GET' && (p === '/' || p === '/arbiter' || p.startsWith('/board/'))) {
    return serveFile(res, join(DIST, 'index.html'));
  }
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('not found');
});

// Keep SSE connections alive through proxies.
setInterval(() => {
  for (const r of clients) r.write(': ping\n\n');
}, 15_000).unref();

server.listen(PORT, '127.0.0.1', () => {
  const { port } = server.address();
  if (START === 'now') startScript();
  console.log(`listening http://127.0.0.1:${port}`);
});

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
