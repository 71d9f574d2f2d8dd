#!/usr/bin/env python3
"""A Lichess test server, written from Lichess's published API reference
(lichess-org/api, doc/specs/: lichess-api.yaml, tags/board, tags/challenges,
tags/account, tags/oauth, tags/broadcasts and the schemas they name), not
from tactus's code.

It serves, for one account, the endpoints the Board API and a broadcast push
use, with the shapes and status codes the reference gives:

  GET  /api/account                                  (OAuth2, any scope)
  POST /api/token/test                               (no auth)
  GET  /api/stream/event                             challenge:read | bot:play | board:play
  GET  /api/board/game/stream/{gameId}               board:play
  POST /api/board/game/{gameId}/move/{move}          board:play
  POST /api/board/game/{gameId}/draw/{accept}        board:play
  POST /api/board/game/{gameId}/takeback/{accept}    board:play
  POST /api/board/game/{gameId}/resign|abort|claim-victory|claim-draw
  POST /api/board/game/{gameId}/chat                 board:play
  POST /api/board/seek                               board:play (real-time: streamed)
  POST /api/challenge/{username}                     challenge:write | bot:play | board:play
  POST /api/challenge/{challengeId}/accept|decline
  POST /api/broadcast/round/{broadcastRoundId}/push  study:write

A list of scopes in the reference is read as "any one of them" (a Board API
token has board:play and never bot:play). The reference gives no status for
a missing or unknown token: this server answers 401 with the Error schema
for those, and 403 for a token without the scope.

Each pushed game is read strictly with python-chess: anything it cannot read
exactly (a move, a [%clk] comment, the Result tag against the movetext's
result, clocks missing on a game with a TimeControl) is that game's error in
the BroadcastPgnPush reply.

The test drives the opponent and the faults through its own endpoints under
/_test/ (no auth): see the CONTROL section below. Every request is logged
with its time (GET /_test/log); for benchmarks, the times are also on
CLOCK_MONOTONIC ("mono"), as are the writes of gameState lines, with a count
of keep-alive lines (GET /_test/writes).

Usage: lichess_server.py --user NAME --token TOKEN=scope,scope [--token ...]
                         [--keepalive SECONDS] [--lax]
--lax is for load benchmarks: a pushed game's tags are read and its
clocks counted, nothing more (python-chess takes some ms a game).
It prints "listening on http://127.0.0.1:PORT" once it accepts requests.
"""

import argparse
import io
import json
import logging
import queue
import random
import re
import select
import socket
import string
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("python-chess is not installed: pip install chess")

# A game's errors go in the push's reply, not to stderr.
logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)

START = time.monotonic()
LOCK = threading.RLock()
CHANGED = threading.Condition(LOCK)

ARGS = None
TOKENS = {}  # token -> set of scopes
REVOKED = set()  # tokens the account revoked (a test's control): unknown from then on
LOG = []  # {"t", "mono", "method", "path", "status"}
# For benchmarks: when each gameState line was written (CLOCK_MONOTONIC, the
# clock a Rust Instant reads too), and how many keep-alive lines were.
WRITES = {"states": [], "keepalives": 0}
FAULTS = []  # {"method", "path" (regex), "status", "body", "count", "drop"}
GAMES = {}  # id -> Game
CHALLENGES = {}  # id -> challenge JSON (ChallengeJson)
PUSHES = []  # what each push held
OPPONENTS = {"accept": True}  # how the other players answer our challenges
EVENT_STREAM = {"stream": None}
SEEK = {"stream": None, "spec": None}


def now():
    return time.monotonic() - START


def mono():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def new_id(n=8):
    return "".join(random.choice(string.ascii_letters + string.digits) for _ in range(n))


# ---------------------------------------------------------------- streams


class Stream:
    """An NDJSON response being written: lines queued by the game, written by
    the request's thread, with an empty line as keep-alive."""

    def __init__(self):
        self.q = queue.Queue()
        self.silent = False

    def line(self, obj):
        self.q.put(json.dumps(obj, separators=(",", ":")).encode() + b"\n")

    def close(self):
        self.q.put("close")

    def drop(self):
        self.q.put("drop")

    def raw(self, data):
        """Bytes as they are: a faulty server's, with no newline."""
        self.q.put(data)


# ---------------------------------------------------------------- games


class Game:
    def __init__(self, gid, our_color, opponent, clock, moves, random_mover, fen, ai=None, players=None, stream_id=None, garble=None):
        self.id = gid
        # Faults a test asks for: Lichess's own AI as the opponent (its
        # level), players other than the account, a gameFull naming another
        # game, a move list with a token that is no legal move.
        self.ai = ai
        self.players = players or {}
        self.stream_id = stream_id or gid
        self.garble = garble
        self.our_color = our_color
        self.opponent = opponent
        self.clock = clock  # {"initial": ms, "increment": ms} or None
        self.fen = fen
        self.board = chess.Board(fen) if fen else chess.Board()
        self.moves = []
        self.status = "started"
        self.winner = None
        self.draw = {"white": False, "black": False}
        self.takeback = {"white": False, "black": False}
        self.times = {"white": clock["initial"] if clock else 0, "black": clock["initial"] if clock else 0}
        self.last = time.monotonic()
        self.streams = []
        # Both clocks after each move, as the server kept them (for a test
        # to compare with the board's).
        self.history = []
        self.random_mover = random_mover
        self.gone = None
        for uci in moves:
            self.push(chess.Move.from_uci(uci))

    def side_to_move(self):
        return "white" if self.board.turn == chess.WHITE else "black"

    def player(self, color):
        if color in self.players:
            name = self.players[color]
            return {"id": name.lower(), "name": name, "title": None, "rating": 1500}
        if color == self.our_color:
            return {"id": ARGS.user.lower(), "name": ARGS.user, "title": None, "rating": 1500}
        if self.ai is not None:
            # GameEventPlayer of Lichess's AI: its level (aiLevel).
            return {"aiLevel": self.ai}
        return {"id": self.opponent.lower(), "name": self.opponent, "title": None, "rating": 1500}

    def running(self):
        """The side whose clock runs: once each side has moved."""
        if self.clock and self.ongoing() and len(self.moves) >= 2:
            return self.side_to_move()
        return None

    def left(self, side):
        """Milliseconds `side` has left on the clock now (GameStateEvent's
        wtime, btime): its running move's time counted."""
        t = self.times[side]
        if self.running() == side:
            t -= (time.monotonic() - self.last) * 1000
        return int(t)

    def state(self):
        # GameStateEvent: the flags are sent only when true ("else omitted").
        s = {
            "type": "gameState",
            "moves": " ".join(self.moves + ([self.garble] if self.garble else [])),
            "wtime": self.left("white"),
            "btime": self.left("black"),
            "winc": self.clock["increment"] if self.clock else 0,
            "binc": self.clock["increment"] if self.clock else 0,
            "status": self.status,
        }
        if self.winner:
            s["winner"] = self.winner
        for side, key in (("white", "w"), ("black", "b")):
            if self.draw[side]:
                s[key + "draw"] = True
            if self.takeback[side]:
                s[key + "takeback"] = True
        return s

    def full(self):
        full = {
            "type": "gameFull",
            "id": self.stream_id,
            "variant": {"key": "standard" if not self.fen else "fromPosition", "name": "Standard"},
            "speed": "rapid",
            "perf": {"name": "Rapid"},
            "rated": False,
            "createdAt": 1700000000000,
            "white": self.player("white"),
            "black": self.player("black"),
            "initialFen": self.fen or "startpos",
            "state": self.state(),
        }
        if self.clock:
            full["clock"] = self.clock
        return full

    def info(self):
        # GameEventInfo
        return {
            "fullId": self.id + "abcd",
            "gameId": self.id,
            "fen": self.board.fen(),
            "color": self.our_color,
            "lastMove": self.moves[-1] if self.moves else "",
            "source": "friend",
            "status": {"id": 20, "name": self.status},
            "variant": {"key": "standard", "name": "Standard"},
            "speed": "rapid",
            "perf": "rapid",
            "rated": False,
            "hasMoved": len(self.moves) > 0,
            "opponent": {"id": None, "username": "Stockfish level %d" % self.ai, "ai": self.ai} if self.ai is not None
            else {"id": self.opponent.lower(), "username": self.opponent, "rating": 1500},
            "isMyTurn": self.side_to_move() == self.our_color,
            "secondsLeft": int(self.times[self.our_color] / 1000),
            "compat": {"bot": False, "board": True},
            "id": self.id,
        }

    def ongoing(self):
        return self.status in ("created", "started")

    def push(self, move):
        mover = self.side_to_move()
        t = time.monotonic()
        if self.clock and len(self.moves) >= 2:
            self.times[mover] -= (t - self.last) * 1000
            self.times[mover] += self.clock["increment"]
        self.last = t
        self.board.push(move)
        self.moves.append(move.uci())
        self.history.append({"white": int(self.times["white"]), "black": int(self.times["black"])})
        # A move answers the opponent's offers.
        other = "black" if mover == "white" else "white"
        self.draw[other] = False
        self.takeback[other] = False
        if self.board.is_checkmate():
            self.status, self.winner = "mate", mover
        elif self.board.is_stalemate():
            self.status = "stalemate"
        elif self.board.is_insufficient_material() or self.board.is_seventyfive_moves() or self.board.is_fivefold_repetition():
            self.status = "draw"

    def send(self, obj):
        for s in self.streams:
            s.line(obj)

    def changed(self):
        self.send(self.state())
        if not self.ongoing():
            for s in self.streams:
                s.close()
            self.streams = []
            event({"type": "gameFinish", "game": self.info()})
        CHANGED.notify_all()

    def end(self, status, winner):
        self.status, self.winner = status, winner
        self.draw = {"white": False, "black": False}
        self.takeback = {"white": False, "black": False}
        self.changed()

    def take_back(self, proposer):
        n = 2 if self.side_to_move() == proposer else 1
        for _ in range(min(n, len(self.moves))):
            self.board.pop()
            self.moves.pop()
            self.history.pop()
        self.takeback = {"white": False, "black": False}

    def random_reply(self):
        if self.random_mover and self.ongoing() and self.side_to_move() != self.our_color:
            move = random.choice(list(self.board.legal_moves))
            self.push(move)
            self.changed()


def event(obj):
    s = EVENT_STREAM["stream"]
    if s is not None:
        s.line(obj)


def new_game(our_color, opponent, clock, moves=(), random_mover=False, gid=None, fen=None, **faults):
    g = Game(gid or new_id(), our_color, opponent, clock, list(moves), random_mover, fen, **faults)
    GAMES[g.id] = g
    event({"type": "gameStart", "game": g.info()})
    CHANGED.notify_all()
    return g


def challenge_json(cid, challenger, dest, limit, increment, color, direction, status="created"):
    # ChallengeJson
    return {
        "id": cid,
        "url": "https://lichess.org/" + cid,
        "status": status,
        "challenger": {"id": challenger.lower(), "name": challenger, "rating": 1500},
        "destUser": {"id": dest.lower(), "name": dest, "rating": 1500},
        "variant": {"key": "standard", "name": "Standard", "short": "Std"},
        "rated": False,
        "speed": "rapid",
        "timeControl": {"type": "clock", "limit": limit, "increment": increment, "show": "%d+%d" % (limit // 60, increment)},
        "color": color,
        "finalColor": color if color != "random" else "white",
        "perf": {"icon": "", "name": "Rapid"},
        "direction": direction,
    }


# ---------------------------------------------------------------- PGN, strictly


RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def split_games(text):
    """The push body: games separated by a blank line, each starting with a tag."""
    text = text.replace("\r", "")
    return [g for g in re.split(r"\n\n(?=\[)", text) if g.strip()]


def movetext_tokens(pgn):
    body = "\n".join(l for l in pgn.split("\n") if not l.startswith("["))
    body = re.sub(r"\{[^}]*\}", " ", body)
    body = re.sub(r";[^\n]*", " ", body)
    tokens = []
    for tok in body.split():
        if re.fullmatch(r"\$\d+", tok):
            continue
        tok = re.sub(r"^\d+\.(\.\.)?", "", tok)
        if tok:
            tokens.append(tok)
    return tokens


def read_strictly(pgn):
    """(game, None) or (tags, error)."""
    f = io.StringIO(pgn)
    game = chess.pgn.read_game(f)
    if game is None:
        return {}, "no game"
    tags = dict(game.headers)
    if game.errors:
        return tags, "python-chess: %r" % (game.errors[0],)
    if f.read().strip():
        return tags, "text after the game"
    for tag in ("White", "Black", "Result"):
        if tag not in pgn.split("\n\n")[0]:
            return tags, "no %s tag" % tag
    tokens = movetext_tokens(pgn)
    if not tokens or tokens[-1] not in RESULTS:
        return tags, "the movetext does not end with a result"
    if tokens[-1] != game.headers.get("Result"):
        return tags, "Result tag %s but the movetext ends %s" % (game.headers.get("Result"), tokens[-1])
    nodes = list(game.mainline())
    sans = [n.san() for n in nodes]
    if tokens[:-1] != sans:
        return tags, "moves not written exactly as SAN: %s" % " ".join(t for t, s in zip(tokens, sans) if t != s)[:80]
    timed = game.headers.get("TimeControl", "-") not in ("-", "?", "")
    for i, n in enumerate(nodes):
        if "%clk" in n.comment and n.clock() is None:
            return tags, "a [%%clk] comment python-chess cannot read at ply %d" % (i + 1)
        if timed and n.clock() is None:
            return tags, "no [%%clk] after ply %d" % (i + 1)
    return game, None


# ---------------------------------------------------------------- HTTP


def scopes_ok(scopes, wanted):
    return not wanted or any(w in scopes for w in wanted)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    # -- helpers

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n).decode("utf-8", "replace") if n else ""

    def form(self):
        return {k: v[0] for k, v in urllib.parse.parse_qs(self.body(), keep_blank_values=True).items()}

    def reply(self, status, obj, ctype="application/json"):
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(data)
        finally:
            # Done, whether or not the client still reads (`hung_up`).
            self.answered(status)

    def answered(self, status):
        # A long poll waiting for answered requests wakes.
        with LOCK:
            self.entry["status"] = status
            CHANGED.notify_all()

    def error(self, status, text):
        self.reply(status, {"error": text})

    def ok(self):
        self.reply(200, {"ok": True})

    def auth(self, wanted):
        h = self.headers.get("Authorization", "")
        token = h[len("Bearer "):] if h.startswith("Bearer ") else None
        if token is None or token not in TOKENS or token in REVOKED:
            self.error(401, "No such token")
            return False
        if not scopes_ok(TOKENS[token], wanted):
            self.error(403, "Missing scope: " + " or ".join(wanted))
            return False
        return True

    def stream(self, s, first=()):
        """Writes an NDJSON stream until it is closed or dropped."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.answered(200)

        def chunk(data):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            with LOCK:
                if data == b"\n":
                    WRITES["keepalives"] += 1
                elif data.startswith(b'{"type":"gameState"'):
                    if len(WRITES["states"]) < 100000:
                        WRITES["states"].append({"mono": mono(), "moves": len(json.loads(data)["moves"].split())})

        try:
            for line in first:
                chunk(json.dumps(line, separators=(",", ":")).encode() + b"\n")
            while True:
                try:
                    item = s.q.get(timeout=ARGS.keepalive)
                except queue.Empty:
                    if not s.silent:
                        chunk(b"\n")
                    continue
                if item == "close":
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    break
                if item == "drop":
                    break
                if not s.silent:
                    chunk(item)
        except OSError:
            pass
        self.close_connection = True

    def hung_up(self):
        """Whether the client closed the connection: it is readable, and
        there is nothing more to read."""
        try:
            ready, _, _ = select.select([self.connection], [], [], 0)
            return bool(ready) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def fault(self, method, path):
        """A fault for the request, if one matches: answered with it (True),
        or held `delay` seconds and then served as usual (False)."""
        for f in FAULTS:
            live = f["count"] > 0 and (f.get("until") is None or time.monotonic() < f["until"])
            if live and (f.get("method") in (None, method)) and re.search(f["path"], path):
                f["count"] -= 1
                if f.get("delay"):
                    delay = f["delay"]
                    LOCK.release()
                    try:
                        time.sleep(delay)
                    finally:
                        LOCK.acquire()
                    # Served all the same, as a server that took the
                    # request does; the log says whether anyone waited.
                    self.entry["hung_up"] = self.hung_up()
                    if f.get("status") is None:
                        return False
                if f.get("drop"):
                    self.answered("dropped")
                    self.close_connection = True
                    return True
                self.reply(f["status"], f.get("body") or {"error": "injected %d" % f["status"]})
                return True
        return False

    # -- dispatch

    def handle_any(self, method):
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, urllib.parse.parse_qs(url.query)
        self.entry = {"t": now(), "mono": mono(), "method": method, "path": path, "status": None}
        with LOCK:
            if not path.startswith("/_test/"):
                LOG.append(self.entry)
                CHANGED.notify_all()
            if not path.startswith("/_test/") and self.fault(method, path):
                return
        try:
            self.route(method, path, query)
        except BrokenPipeError:
            pass

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def route(self, method, path, query):
        m = lambda pattern: re.fullmatch(pattern, path)
        if path.startswith("/_test/"):
            return self.control(method, path, query)
        if method == "GET" and path == "/api/account":
            if not self.auth([]):
                return
            return self.reply(200, {"id": ARGS.user.lower(), "username": ARGS.user, "url": "https://lichess.org/@/" + ARGS.user})
        if method == "POST" and path == "/api/token/test":
            out = {}
            for t in self.body().split(","):
                t = t.strip()
                known = t in TOKENS and t not in REVOKED
                out[t] = {"userId": ARGS.user.lower(), "scopes": ",".join(sorted(TOKENS[t])), "expires": None} if known else None
            return self.reply(200, out)
        if method == "GET" and path == "/api/stream/event":
            if not self.auth(["challenge:read", "bot:play", "board:play"]):
                return
            s = Stream()
            with LOCK:
                old = EVENT_STREAM["stream"]
                if old is not None:
                    old.close()  # only one event stream at a time
                EVENT_STREAM["stream"] = s
                first = [{"type": "challenge", "challenge": c} for c in CHALLENGES.values() if c["status"] == "created"]
                first += [{"type": "gameStart", "game": g.info()} for g in GAMES.values() if g.ongoing()]
            return self.stream(s, first)
        r = m(r"/api/board/game/stream/([^/]+)")
        if method == "GET" and r:
            if not self.auth(["board:play"]):
                return
            with LOCK:
                g = GAMES.get(r.group(1))
                if g is None:
                    return self.error(404, "Not found.")
                s = Stream()
                first = [g.full()]
                if g.ongoing():
                    g.streams.append(s)
                else:
                    s.close()
            return self.stream(s, first)
        r = m(r"/api/board/game/([^/]+)/(move/([^/]+)|draw/([^/]+)|takeback/([^/]+)|resign|abort|claim-victory|claim-draw|chat)")
        if method == "POST" and r:
            if not self.auth(["board:play"]):
                return
            return self.board(r.group(1), r.group(2), query)
        if method == "POST" and path == "/api/board/seek":
            if not self.auth(["board:play"]):
                return
            f = self.form()
            try:
                t, inc = float(f["time"]), int(f["increment"])
            except (KeyError, ValueError):
                return self.error(400, "time and increment are required for a real-time seek")
            if not (0 <= t <= 180 and 0 <= inc <= 180):
                return self.error(400, "time and increment must be within 0..180")
            s = Stream()
            with LOCK:
                SEEK["stream"], SEEK["spec"] = s, {"time": t, "increment": inc}
                CHANGED.notify_all()
            return self.stream(s)
        r = m(r"/api/challenge/([^/]+)/(accept|decline)")
        if method == "POST" and r:
            if not self.auth(["challenge:write", "bot:play", "board:play"]):
                return
            if r.group(2) == "decline":
                self.body()
            with LOCK:
                c = CHALLENGES.get(r.group(1))
                if c is None or c["status"] != "created" or c["direction"] != "in":
                    return self.error(404, "Not found.")
                if r.group(2) == "accept":
                    c["status"] = "accepted"
                    color = c["color"] if c["color"] != "random" else "white"
                    ours = "black" if color == "white" else "white"  # the challenger's color is the challenge's
                    new_game(ours, c["challenger"]["name"], {"initial": c["timeControl"]["limit"] * 1000, "increment": c["timeControl"]["increment"] * 1000}, gid=c["id"])
                else:
                    c["status"] = "declined"
                CHANGED.notify_all()
            return self.ok()
        r = m(r"/api/challenge/([^/]+)")
        if method == "POST" and r:
            if not self.auth(["challenge:write", "bot:play", "board:play"]):
                return
            return self.create_challenge(r.group(1))
        r = m(r"/api/broadcast/round/([^/]+)/push")
        if method == "POST" and r:
            if not self.auth(["study:write"]):
                return
            return self.push(r.group(1))
        self.error(404, "Not found.")

    def board(self, gid, what, query):
        with LOCK:
            g = GAMES.get(gid)
            if g is None:
                return self.error(404, "Not found.")
            us, them = g.our_color, ("black" if g.our_color == "white" else "white")
            if what == "chat":
                f = self.form()
                if f.get("room") not in ("player", "spectator") or "text" not in f:
                    return self.error(400, "room and text are required")
                g.send({"type": "chatLine", "room": f["room"], "username": ARGS.user, "text": f["text"]})
                return self.ok()
            if not g.ongoing():
                return self.error(400, "Not your turn, or game already over")
            if what.startswith("move/"):
                if g.side_to_move() != us:
                    return self.error(400, "Not your turn, or game already over")
                try:
                    move = chess.Move.from_uci(what[len("move/"):])
                except ValueError:
                    return self.error(400, "Invalid UCI move")
                if move not in g.board.legal_moves:
                    return self.error(400, "Illegal move " + move.uci())
                g.push(move)
                if query.get("offeringDraw", ["false"])[0] == "true":
                    g.draw[us] = True
                g.changed()
                threading.Timer(0.0, lambda: locked(g.random_reply)).start()
                return self.ok()
            if what.startswith("draw/") or what.startswith("takeback/"):
                kind, accept = what.split("/")
                yes = accept in ("yes", "true")
                if accept not in ("yes", "true", "no", "false"):
                    return self.error(400, "accept must be yes or no")
                flags = g.draw if kind == "draw" else g.takeback
                if yes and flags[them]:
                    if kind == "draw":
                        g.end("draw", None)
                    else:
                        g.take_back(them)
                        g.changed()
                elif yes:
                    flags[us] = True
                    g.changed()
                else:
                    flags[them] = False
                    g.changed()
                return self.ok()
            if what == "resign":
                g.end("resign", them)
                return self.ok()
            if what == "abort":
                if len(g.moves) >= 2:
                    return self.error(400, "This game can no longer be aborted")
                g.end("aborted", None)
                return self.ok()
            if what == "claim-victory":
                if not g.gone or g.gone.get("claimWinInSeconds", 1) > 0:
                    return self.error(400, "The opponent has not left the game long enough")
                g.end("timeout", us)
                return self.ok()
            if what == "claim-draw":
                if not g.gone:
                    return self.error(400, "The opponent has not left the game")
                g.end("timeout", None)
                return self.ok()
        self.error(404, "Not found.")

    def create_challenge(self, username):
        f = self.form()
        try:
            limit, inc = int(f["clock.limit"]), int(f["clock.increment"])
        except (KeyError, ValueError):
            return self.error(400, "clock.limit and clock.increment are required for a real-time challenge")
        if not (limit in (0, 15, 30, 45, 60, 90) or (limit % 60 == 0 and 0 < limit <= 10800)) or not 0 <= inc <= 60:
            return self.error(400, "invalid clock")
        color = f.get("color", "random")
        if color not in ("white", "black", "random"):
            return self.error(400, "invalid color")
        with LOCK:
            cid = new_id()
            c = challenge_json(cid, ARGS.user, username, limit, inc, color, "out")
            CHALLENGES[cid] = c
            event({"type": "challenge", "challenge": c})
            self.reply(200, c)
            # The other player answers; a game's id is the challenge's id.
            if OPPONENTS["accept"]:
                c["status"] = "accepted"
                ours = color if color != "random" else "white"
                new_game(ours, username, {"initial": limit * 1000, "increment": inc * 1000}, gid=cid, random_mover=OPPONENTS.get("random", False))
            else:
                c["status"] = "declined"
                d = dict(c)
                d["declineReason"] = "I'm not accepting challenges at the moment."
                d["declineReasonKey"] = "generic"
                event({"type": "challengeDeclined", "challenge": d})
            CHANGED.notify_all()

    def push(self, round_id):
        text = self.body()
        arrived, arrived_wall = now(), time.time()
        games = split_games(text)
        if not any(g.lstrip().startswith("[") for g in games):
            return self.error(400, "Cannot parse PGN: no game in it")
        if len(games) > 100:
            return self.error(400, "more than 100 games")
        out, record = [], []
        for pgn in games:
            if ARGS.lax:
                # Tags and a count of clocks only: python-chess takes some ms a game.
                tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', pgn, re.M))
                plies = pgn.count("[%clk ")
                out.append({"tags": tags, "moves": plies})
                record.append({"tags": tags, "plies": plies})
                continue
            game, error = read_strictly(pgn)
            if error:
                out.append({"tags": game, "error": error})
                record.append({"tags": game, "error": error})
            else:
                nodes = list(game.mainline())
                out.append({"tags": dict(game.headers), "moves": len(nodes)})
                record.append({
                    "tags": dict(game.headers),
                    "plies": len(nodes),
                    "moves": [n.san() for n in nodes],
                    "clocks": [n.clock() for n in nodes],
                    "comments": [n.comment for n in nodes],
                })
        with LOCK:
            # When the push came in; "wall": in Unix time, for a test that
            # compares it with when a move was made.
            PUSHES.append({"t": arrived, "wall": arrived_wall, "round": round_id, "bytes": len(text.encode()), "games": record})
            CHANGED.notify_all()
        self.reply(200, {"games": out})

    # ------------------------------------------------------------ CONTROL

    def control(self, method, path, query):
        m = lambda pattern: re.fullmatch(pattern, path)
        body = self.body() if method == "POST" else ""
        args = json.loads(body) if body.strip() else {}
        with LOCK:
            if path == "/_test/log":
                return self.reply(200, LOG)
            if path == "/_test/pushes":
                return self.reply(200, PUSHES)
            if path == "/_test/writes":
                return self.reply(200, WRITES)
            if path == "/_test/wait":
                # Long poll: until N requests match (with answered=1, N
                # answered: what they asked is done), or N pushes, or a game
                # has N moves; at most `timeout` s.
                pattern, n = query.get("path", [".*"])[0], int(query.get("count", ["1"])[0])
                answered = query.get("answered", ["0"])[0] == "1"
                deadline = time.monotonic() + float(query.get("timeout", ["30"])[0])
                what = query.get("what", ["requests"])[0]

                def count():
                    if what == "pushes":
                        return len(PUSHES)
                    if what == "seek":
                        return 1 if SEEK["stream"] is not None else 0
                    if what == "moves":
                        g = GAMES.get(query.get("game", [""])[0])
                        return len(g.moves) if g else 0
                    return sum(1 for e in LOG if re.search(pattern, e["method"] + " " + e["path"]) and (not answered or e["status"] is not None))

                while count() < n and time.monotonic() < deadline:
                    CHANGED.wait(timeout=max(0.0, deadline - time.monotonic()))
                return self.reply(200, {"count": count()})
            if path == "/_test/game" and method == "POST":
                g = new_game(
                    args.get("our_color", "white"),
                    args.get("opponent", "Opponent"),
                    args.get("clock", {"initial": 1800000, "increment": 5000}),
                    args.get("moves", []),
                    args.get("random", False),
                    fen=args.get("fen"),
                    ai=args.get("ai"),
                    players=args.get("players"),
                    stream_id=args.get("stream_id"),
                    garble=args.get("garble"),
                )
                return self.reply(200, {"id": g.id})
            r = m(r"/_test/game/([^/]+)")
            if r:
                g = GAMES[r.group(1)]
                return self.reply(200, {"moves": g.moves, "status": g.status, "winner": g.winner, "draw": g.draw, "takeback": g.takeback, "clocks": g.history})
            r = m(r"/_test/game/([^/]+)/(.*)")
            if r:
                g = GAMES.get(r.group(1))
                if g is None:
                    return self.error(404, "no such game")
                return self.opponent(g, r.group(2), args)
            if path == "/_test/fault" and args.get("clear"):
                FAULTS.clear()
                return self.reply(200, {"ok": True})
            if path == "/_test/fault":
                # `for_s`: the fault lasts so many seconds, for any count;
                # `delay`: the request is held so long first (then answered
                # with `status`, or served as usual without one).
                until = time.monotonic() + args["for_s"] if "for_s" in args else None
                count = args.get("count", 10**9 if until else 1)
                status = args.get("status", None if args.get("delay") else 429)
                FAULTS.append({"method": args.get("method"), "path": args["path"], "status": status, "body": args.get("body"), "count": count, "drop": args.get("drop", False), "delay": args.get("delay"), "until": until})
                return self.reply(200, {"ok": True})
            if path == "/_test/token":
                # The account revokes a token (Lichess forgets it), or it is
                # known again.
                (REVOKED.add if args.get("revoked", True) else REVOKED.discard)(args["token"])
                return self.reply(200, {"ok": True})
            if path == "/_test/challenge-policy":
                OPPONENTS.update(args)
                return self.reply(200, {"ok": True})
            if path == "/_test/challenge":
                cid = new_id()
                c = challenge_json(cid, args.get("from", "Friend"), ARGS.user, args.get("limit", 1800), args.get("increment", 0), args.get("color", "white"), "in")
                CHALLENGES[cid] = c
                event({"type": "challenge", "challenge": c})
                return self.reply(200, {"id": cid})
            r = m(r"/_test/events/(drop|close|silence)")
            if r:
                s = EVENT_STREAM["stream"]
                if s is None:
                    return self.error(404, "no event stream")
                EVENT_STREAM["stream"] = None if r.group(1) != "silence" else s
                {"drop": s.drop, "close": s.close, "silence": lambda: setattr(s, "silent", True)}[r.group(1)]()
                return self.reply(200, {"ok": True})
            if path == "/_test/seek/pair":
                s = SEEK["stream"]
                if s is None:
                    return self.error(404, "no seek")
                g = new_game(args.get("our_color", "white"), args.get("opponent", "Seeker"), {"initial": int(SEEK["spec"]["time"] * 60000), "increment": SEEK["spec"]["increment"] * 1000})
                s.close()
                SEEK["stream"] = None
                return self.reply(200, {"id": g.id})
        self.error(404, "no such control")

    def opponent(self, g, what, args):
        us = g.our_color
        them = "black" if us == "white" else "white"
        if what.startswith("move/"):
            move = chess.Move.from_uci(what[len("move/"):])
            if not g.ongoing() or g.side_to_move() != them or move not in g.board.legal_moves:
                return self.error(400, "not the opponent's move")
            g.push(move)
            g.changed()
        elif what in ("offer/draw", "offer/takeback", "withdraw/draw", "withdraw/takeback"):
            verb, kind = what.split("/")
            (g.draw if kind == "draw" else g.takeback)[them] = verb == "offer"
            g.changed()
        elif what in ("answer/draw/yes", "answer/takeback/yes", "answer/draw/no", "answer/takeback/no"):
            _, kind, yes = what.split("/")
            flags = g.draw if kind == "draw" else g.takeback
            if not flags[us]:
                return self.error(400, "no offer to answer")
            flags[us] = False
            if yes == "yes" and kind == "draw":
                g.end("draw", None)
            else:
                if yes == "yes":
                    g.take_back(us)
                g.changed()
        elif what == "resign":
            g.end("resign", us)
        elif what == "abort":
            g.end("aborted", None)
        elif what == "gone":
            g.gone = {"type": "opponentGone", "gone": args.get("gone", True)}
            if "claimWinInSeconds" in args:
                g.gone["claimWinInSeconds"] = args["claimWinInSeconds"]
            g.send(g.gone)
            if not g.gone["gone"]:
                g.gone = None
        elif what.startswith("website/move/"):
            # The account's own move, made on Lichess's website rather than
            # the board: the game stream shows it as any move.
            move = chess.Move.from_uci(what[len("website/move/"):])
            if not g.ongoing() or g.side_to_move() != us or move not in g.board.legal_moves:
                return self.error(400, "not the account's move")
            g.push(move)
            g.changed()
        elif what == "chat":
            # ChatLineEvent: a line in the players' room, or the spectators';
            # `count` lines at once, numbered, for a flood.
            room = args.get("room", "player")
            count = args.get("count")
            for i in range(count or 1):
                text = args.get("text", "")
                if count:
                    text = "%d: %s" % (i + 1, text)
                g.send({"type": "chatLine", "room": room, "username": args.get("from", g.opponent), "text": text})
        elif what == "raw":
            # A faulty server: `bytes` of junk with no newline on the game's
            # streams, glued to whatever line comes next.
            for s in g.streams:
                s.raw(b"x" * args.get("bytes", 0))
        elif what in ("drop", "close", "silence"):
            for s in g.streams:
                {"drop": s.drop, "close": s.close, "silence": lambda s=s: setattr(s, "silent", True)}[what]()
            if what != "silence":
                g.streams = []
        else:
            return self.error(404, "no such control")
        CHANGED.notify_all()
        return self.reply(200, {"ok": True, "moves": g.moves, "status": g.status, "mono": mono()})


def locked(f):
    with LOCK:
        f()


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--user", default="Player")
    p.add_argument("--token", action="append", default=[], help="TOKEN=scope,scope")
    p.add_argument("--keepalive", type=float, default=7.0, help="seconds between keep-alive lines")
    p.add_argument("--lax", action="store_true", help="a load benchmark's: pushed games are not read, only their tags and clocks counted")
    ARGS = p.parse_args()
    for t in ARGS.token:
        token, _, scopes = t.partition("=")
        TOKENS[token] = set(s for s in scopes.split(",") if s)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
