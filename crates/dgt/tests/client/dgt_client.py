#!/usr/bin/env python3
"""A DGT e-Board client written from DGT's protocol description (dgtbrd.h),
for tactus's tests: it shares no code with tactus, only the document.

    dgt_client.py PATH [--dump-after SECONDS]

Opens the serial line at PATH (9600 baud, 8N1, raw), introduces itself as
chess software does (update mode, version, serial numbers, trademark, bus
address, battery, board dump) and then follows the board: every field
update is applied to its own copy of the board, and a board dump is asked
for after each one, which must agree with that copy. With --dump-after,
the dump is asked for SECONDS after the last field update instead, as
drivers that read moves from the board do once it has been still a while
(PicoChess waits 0.25 s).

It prints one JSON object a line on standard output:
  {"ready": {...identity...}, "board": FEN}   after the introduction
  {"board": FEN, "via": "update"}            after each field update
  {"dump_ok": FEN}                           a dump that agrees
  {"error": "..."}                           anything wrong (then it exits 1)
  {"garbage": [bytes]}                       bytes it skipped
  {"ack": cmd, ...}                          a clock acknowledgement
  {"survived": "garbage", "version": "x.y"}  the board still answers
and reads commands, one a line, on standard input:
  clock version | clock text TEXT | clock beep UNITS | clock end |
  clock setnrun LH LM LS RH RM RS FLAGS | garbage | reconnect | quit
"""

import json
import os
import select
import sys
import termios
import time

# Commands (dgtbrd.h, "COMMAND CODES FROM PC TO BOARD").
SEND_RESET = 0x40
SEND_BRD = 0x42
SEND_UPDATE_NICE = 0x4B
RETURN_SERIALNR = 0x45
RETURN_BUSADRES = 0x46
SEND_TRADEMARK = 0x47
SEND_BATTERY_STATUS = 0x4C
SEND_VERSION = 0x4D
RETURN_LONG_SERIALNR = 0x55
CLOCK_MESSAGE = 0x2B
CLOCK_START = 0x03
CLOCK_END_MESSAGE = 0x00
CLOCK_CMD = {"end": 0x03, "version": 0x09, "setnrun": 0x0A, "beep": 0x0B, "text": 0x0C}

# Messages ("DEFINITION OF THE BOARD-TO-PC MESSAGE ID CODES"), with MESSAGE_BIT.
BOARD_DUMP = 0x86
BWTIME = 0x8D
FIELD_UPDATE = 0x8E
BUSADRES = 0x90
SERIALNR = 0x91
TRADEMARK = 0x92
VERSION = 0x93
BATTERY_STATUS = 0xA0
LONG_SERIALNR = 0xA2
EE_MOVES = 0x8F
KNOWN = {BOARD_DUMP, BWTIME, FIELD_UPDATE, BUSADRES, SERIALNR, TRADEMARK, VERSION, BATTERY_STATUS,
         LONG_SERIALNR, EE_MOVES}
FIXED_SIZE = {BOARD_DUMP: 67, BWTIME: 10, FIELD_UPDATE: 5, BUSADRES: 5, SERIALNR: 8, VERSION: 5,
              LONG_SERIALNR: 13}

PIECES = ".PRNBKQprnbkq"  # EMPTY, WPAWN, WROOK, WKNIGHT, WBISHOP, WKING, WQUEEN, BPAWN…


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def fail(why):
    say({"error": why})
    sys.exit(1)


def fen(board):
    """Fields 0..63 are a8, b8, … h1 (the board's own reading order)."""
    rows = []
    for r in range(8):
        row, empty = "", 0
        for code in board[r * 8:r * 8 + 8]:
            if code == 0:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            row += PIECES[code]
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


class Client:
    def __init__(self, path, dump_after=None):
        self.path = path
        # None: a dump after each update; else this many seconds after the last.
        self.dump_after = dump_after
        self.dump_due = None
        self.fd = None
        self.buf = bytearray()
        self.board = [0] * 64
        self.waiting = []  # expected answers, in order: ("dump"|"version"|"ack", detail)

    def open(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY)
        attrs = termios.tcgetattr(self.fd)
        attrs[0] = 0  # iflag: no translation, no flow control
        attrs[1] = 0  # oflag
        attrs[2] = termios.CS8 | termios.CREAD | termios.CLOCAL  # 8N1
        attrs[3] = 0  # lflag: raw
        attrs[4] = attrs[5] = termios.B9600
        attrs[6][termios.VMIN] = 0
        attrs[6][termios.VTIME] = 0
        termios.tcsetattr(self.fd, termios.TCSANOW, attrs)
        # Whatever the line held from before is stale.
        termios.tcflush(self.fd, termios.TCIFLUSH)
        self.buf.clear()

    def close(self):
        os.close(self.fd)
        self.fd = None

    def send(self, data):
        os.write(self.fd, bytes(data))

    def introduce(self):
        """What chess software sends on connecting; returns the identity."""
        self.send([SEND_RESET, SEND_UPDATE_NICE, SEND_VERSION, RETURN_SERIALNR, RETURN_LONG_SERIALNR,
                   SEND_TRADEMARK, RETURN_BUSADRES, SEND_BATTERY_STATUS, SEND_BRD])
        want = {VERSION, SERIALNR, LONG_SERIALNR, TRADEMARK, BUSADRES, BATTERY_STATUS, BOARD_DUMP}
        info = {}
        while want:
            for mid, data in self.read_messages(timeout=10):
                want.discard(mid)
                if mid == VERSION:
                    info["version"] = "%d.%d" % (data[0], data[1])
                elif mid == SERIALNR:
                    info["serial"] = bytes(data).decode("ascii")
                elif mid == LONG_SERIALNR:
                    info["long_serial"] = bytes(data).decode("ascii")
                elif mid == TRADEMARK:
                    info["trademark"] = bytes(data).decode("ascii")
                elif mid == BUSADRES:
                    info["bus_address"] = (data[0] << 7) | data[1]
                elif mid == BATTERY_STATUS:
                    info["battery"] = data[0]
                elif mid == BOARD_DUMP:
                    self.board = list(data)
                elif mid == FIELD_UPDATE:
                    self.board[data[0]] = data[1]
        say({"ready": info, "board": fen(self.board)})

    def read_messages(self, timeout):
        """Complete messages read within `timeout` s: (id, data) pairs.
        A message starts with a byte whose top bit is set; its length is
        two 7-bit bytes; a top bit set inside it means it was cut short."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready and timeout:
            fail("the board said nothing for %d s" % timeout)
        if not ready:
            return []
        chunk = os.read(self.fd, 4096)
        if not chunk:
            fail("the line closed")
        self.buf += chunk
        out, skipped = [], bytearray()
        while self.buf:
            head = self.buf[0]
            if head not in KNOWN:
                skipped.append(self.buf.pop(0))
                continue
            if len(self.buf) < 3:
                break
            if self.buf[1] & 0x80 or self.buf[2] & 0x80:
                skipped.append(self.buf.pop(0))
                continue
            size = (self.buf[1] << 7) | self.buf[2]
            if size < 3 or FIXED_SIZE.get(head, size) != size:
                skipped.append(self.buf.pop(0))
                continue
            body = self.buf[3:size]
            cut = next((i for i, b in enumerate(body) if b & 0x80), None)
            if cut is not None:
                skipped += self.buf[:3 + cut]
                del self.buf[:3 + cut]
                continue
            if len(self.buf) < size:
                break
            out.append((head, list(body)))
            del self.buf[:size]
        if skipped:
            say({"garbage": list(skipped)})
        return out

    def handle(self, mid, data):
        if mid == FIELD_UPDATE:
            field, code = data
            if field > 63 or code > 15:
                fail("bad field update %r" % data)
            self.board[field] = code
            say({"board": fen(self.board), "via": "update"})
            if self.dump_after is None:
                # As clients do, ask for the whole board to check.
                self.ask_dump()
            else:
                self.dump_due = time.monotonic() + self.dump_after
        elif mid == BOARD_DUMP:
            if self.waiting and self.waiting[0][0] == "dump":
                self.waiting.pop(0)
            if list(data) != self.board:
                fail("dump %s disagrees with the updates %s" % (fen(data), fen(self.board)))
            say({"dump_ok": fen(self.board)})
        elif mid == BWTIME:
            if (data[0] & 0x0F) == 0x0A or (data[3] & 0x0F) == 0x0A:
                ack = [(data[1] & 0x7F) | ((data[3] << 3) & 0x80), (data[2] & 0x7F) | ((data[3] << 2) & 0x80),
                       (data[4] & 0x7F) | ((data[0] << 3) & 0x80), (data[5] & 0x7F) | ((data[0] << 2) & 0x80)]
                if ack[0] != 0x10:
                    fail("clock ack error %r" % ack)
                said = {"ack": ack[1]}
                if ack[1] == CLOCK_CMD["version"]:
                    said["version"] = "%d.%d" % (ack[2] >> 4, ack[2] & 0x0F)
                if self.waiting and self.waiting[0] == ("ack", ack[1]):
                    self.waiting.pop(0)
                say(said)
            else:
                say({"clock": {"right": [data[0] & 0x0F, data[1], data[2]], "left": [data[3] & 0x0F, data[4], data[5]],
                               "status": data[6]}})
        elif mid == VERSION:
            if self.waiting and self.waiting[0][0] == "version":
                self.waiting.pop(0)
                say({"survived": "garbage", "version": "%d.%d" % (data[0], data[1])})

    def ask_dump(self):
        self.send([SEND_BRD])
        self.waiting.append(("dump", None))

    def clock(self, words):
        cmd = CLOCK_CMD[words[0]]
        if words[0] == "text":
            text = " ".join(words[1:]).encode("ascii")[:8].ljust(8)
            payload = list(text) + [0]
        elif words[0] in ("beep", "setnrun"):
            payload = [int(w) for w in words[1:]]
        else:
            payload = []
        # Size counts the bytes after it: start, command, data, end.
        self.send([CLOCK_MESSAGE, len(payload) + 3, CLOCK_START, cmd] + payload + [CLOCK_END_MESSAGE])
        self.waiting.append(("ack", cmd))

    def command(self, line):
        words = line.split()
        if not words:
            return True
        if words[0] == "quit":
            return False
        if words[0] == "clock":
            self.clock(words[1:])
        elif words[0] == "garbage":
            # Nothing a board understands: no command byte, a clock message
            # of an impossible size, a bare message id.
            self.send([0x00, 0xFF, 0x13, CLOCK_MESSAGE, 0x7F, 0x99, 0x37])
            self.send([SEND_VERSION])
            self.waiting.append(("version", None))
        elif words[0] == "reconnect":
            self.close()
            self.open()
            self.introduce()
        else:
            fail("unknown command %r" % line)
        return True

    def run(self):
        self.open()
        self.introduce()
        stdin, pending = sys.stdin.fileno(), b""
        while True:
            wait = 30 if self.dump_due is None else max(0, self.dump_due - time.monotonic())
            ready, _, _ = select.select([self.fd, stdin], [], [], wait)
            if self.dump_due is not None and time.monotonic() >= self.dump_due:
                self.dump_due = None
                self.ask_dump()
            elif not ready:
                fail("nothing happened for 30 s")
            if stdin in ready:
                chunk = os.read(stdin, 4096)
                if not chunk:
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    if not self.command(line.decode()):
                        return
                continue  # the line may have been reopened: select again
            if self.fd in ready:
                for mid, data in self.read_messages(timeout=0):
                    self.handle(mid, data)


if __name__ == "__main__":
    if len(sys.argv) == 2:
        Client(sys.argv[1]).run()
    elif len(sys.argv) == 4 and sys.argv[2] == "--dump-after":
        Client(sys.argv[1], dump_after=float(sys.argv[3])).run()
    else:
        sys.exit(__doc__)
