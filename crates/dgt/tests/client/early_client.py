#!/usr/bin/env python3
"""Chess software that opened the line before the board did, written from
DGT's protocol description (dgtbrd.h) for tactus's tests: it shares no code
with tactus, only the document.

    early_client.py

Over a USB gadget port or a Bluetooth serial link the software on the PC
or phone holds its end of the line before tactus opens the Pi's end, and
may send its first requests at once. Some send them only once: PicoChess's
driver sends DGT_SEND_UPDATE_NICE and DGT_SEND_VERSION when it connects and
waits for the version; it does not ask again.

Here the line is a pseudo-terminal this program makes: it keeps the master
end (the software's side) and the client end open in raw mode, as the
gadget's or rfcomm's tty holds what arrives before anyone reads it. It
writes DGT_SEND_UPDATE_NICE and DGT_SEND_VERSION once, says where the
board's end of the line is, and then only reads.

It prints one JSON object a line on standard output:
  {"line": PATH, "sent": [bytes]}   the board's end, and what waits on it
  {"version": "x.y"}                the board answered DGT_SEND_VERSION
  {"field": N, "piece": CODE}       a DGT_MSG_FIELD_UPDATE: update mode is on
  {"error": "..."}                  anything wrong (then it exits 1)
and ends when its standard input closes.
"""

import json
import os
import select
import sys
import tty

# Commands (dgtbrd.h, "COMMAND CODES FROM PC TO BOARD").
SEND_UPDATE_NICE = 0x4B
SEND_VERSION = 0x4D
# Messages ("DEFINITION OF THE BOARD-TO-PC MESSAGE ID CODES"), with MESSAGE_BIT,
# and their sizes, the 3-byte header included.
VERSION = 0x93
FIELD_UPDATE = 0x8E
SIZE = {VERSION: 5, FIELD_UPDATE: 5}


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    master, client = os.openpty()
    tty.setraw(client)
    sent = [SEND_UPDATE_NICE, SEND_VERSION]
    os.write(master, bytes(sent))
    say({"line": os.ttyname(client), "sent": sent})
    buf = bytearray()
    while True:
        ready, _, _ = select.select([master, sys.stdin], [], [])
        if sys.stdin in ready and not sys.stdin.readline():
            return
        if master not in ready:
            continue
        buf += os.read(master, 4096)
        while buf:
            head = buf[0]
            if head not in SIZE:
                # Not a message this client waits for: skipped, as drivers do.
                buf.pop(0)
                continue
            if len(buf) < SIZE[head]:
                break
            size = (buf[1] << 7) | buf[2]
            if size != SIZE[head]:
                say({"error": "message 0x%02x says it has %d bytes" % (head, size)})
                sys.exit(1)
            data = buf[3:size]
            del buf[:size]
            if head == VERSION:
                say({"version": "%d.%d" % (data[0], data[1])})
            else:
                say({"field": data[0], "piece": data[1]})


if __name__ == "__main__":
    main()
