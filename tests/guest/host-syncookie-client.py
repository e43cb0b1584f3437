# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/host-syncookie-client.py - the two ends of
# tests/guest/host-syncookie.sh's connections
#
#   python3 host-syncookie-client.py --listen PORT
#       accept on 0.0.0.0:PORT, send each connection "cg-ok\n", close it
#   python3 host-syncookie-client.py ADDR PORT T0NS LIMIT_S
#       connect to ADDR:PORT and read the banner, again every 20 ms until
#       one does or LIMIT_S seconds after T0NS (realtime, ns; 0: now) have
#       passed; prints "ok MS TRIES" (exit 0) or "fail MS TRIES why" (exit
#       1), MS since T0NS. A connect() alone would be the responder's
#       SYN-ACK: the banner says the handshake reached the listener.

import socket
import sys
import time

BANNER = b"cg-ok\n"


def listen(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(64)
    while True:
        c, _ = s.accept()
        try:
            c.sendall(BANNER)
        except OSError:
            pass
        c.close()


def once(addr, port):
    try:
        s = socket.create_connection((addr, port), timeout=0.3)
        s.settimeout(0.5)
        got = s.recv(len(BANNER))
        s.close()
    except OSError as e:
        return str(e) or type(e).__name__
    return None if got == BANNER else "banner %r" % got


def main():
    if sys.argv[1] == "--listen":
        listen(int(sys.argv[2]))
        return 0
    addr, port = sys.argv[1], int(sys.argv[2])
    t0 = int(sys.argv[3]) or time.time_ns()
    end = t0 + int(float(sys.argv[4]) * 1e9)
    tries = 0
    while True:
        tries += 1
        why = once(addr, port)
        ms = (time.time_ns() - t0) // 1000000
        if why is None:
            print("ok %d %d" % (ms, tries))
            return 0
        if time.time_ns() >= end:
            print("fail %d %d %s" % (ms, tries, why))
            return 1
        time.sleep(0.02)


sys.exit(main())
