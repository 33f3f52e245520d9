#!/usr/bin/env python3
"""Hostile clients for benchmarks/hostile-clients.sh: idle connections and clients that never read.

  hostile_clients.py --port P --idle N --stuck M --duration S [--token T]

Opens N connections that send nothing (as a slow-loris or a leaked pool would), and M that send
searches whose answers are large (k 100, stored fields and snippets) as fast as the root takes them
and never read a byte back, so the root's answers pile up in its send buffers. Holds them for S
seconds, then prints one JSON line: how many of each the root closed or refused, and how many
requests the stuck clients got out before the root stopped reading them.
"""
import argparse
import json
import selectors
import socket
import time

REQUEST = (b"GET /search?q=european%20parliament%20commission&k=100&snippets=true&stored_fields=true "
           b"HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")


def connect(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        return None
    sock.setblocking(False)
    return sock


def closed_by_peer(sock):
    """True when the root closed (or reset) the connection; reads nothing that a client would keep."""
    try:
        data = sock.recv(1, socket.MSG_PEEK)
        return data == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--stuck", type=int, default=100)
    parser.add_argument("--duration", type=float, default=30)
    args = parser.parse_args()

    idle = [connect(args.port) for _ in range(args.idle)]
    stuck = [connect(args.port) for _ in range(args.stuck)]
    refused = sum(1 for s in idle + stuck if s is None)
    idle = [s for s in idle if s is not None]
    stuck = [s for s in stuck if s is not None]
    sent_bytes = {s: 0 for s in stuck}
    selector = selectors.DefaultSelector()
    for s in stuck:
        selector.register(s, selectors.EVENT_WRITE)
    end = time.monotonic() + args.duration
    while time.monotonic() < end and selector.get_map():
        for key, _ in selector.select(timeout=0.5):
            sock = key.fileobj
            try:
                sent_bytes[sock] += sock.send(REQUEST)
            except BlockingIOError:
                pass
            except OSError:
                selector.unregister(sock)  # the root closed it
    idle_closed = sum(1 for s in idle if closed_by_peer(s))
    stuck_closed = sum(1 for s in stuck if closed_by_peer(s))
    requests = sum(sent_bytes.values()) // len(REQUEST)
    print(json.dumps({"idle_opened": len(idle), "idle_closed_by_root": idle_closed,
                      "stuck_opened": len(stuck), "stuck_closed_by_root": stuck_closed,
                      "refused_at_connect": refused, "stuck_requests_written": requests}))
    for s in idle + stuck:
        s.close()


if __name__ == "__main__":
    main()
