#!/usr/bin/env python3
"""Polls a nats-server's VARPULIS_ROUTING consumers every 0.5 s and prints one line per poll:
    <unix time> <durable> delivered=<stream seq> ack_floor=<stream seq> pending=<n> ack_pending=<n> | ...
Usage: scripts/poll-consumers.py PORT [SECONDS]   (a server on 127.0.0.1:PORT without authentication; default 600 s)
For the main job's timeline in BENCHMARKS.md: start a nats-server -js on PORT, run this, then
`java -jar target/varpulis-cluster-*.jar demo --nats-url nats://127.0.0.1:PORT ...`. Plain NATS protocol, stdlib only.
"""
import json
import socket
import sys
import time

port = int(sys.argv[1])
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 600
sock = socket.create_connection(("127.0.0.1", port))
stream = sock.makefile("rb")
stream.readline()  # INFO
sock.sendall(b'CONNECT {"verbose":false,"pedantic":false}\r\nSUB _INBOX.poll 1\r\n')
started = time.time()
while time.time() - started < seconds:
    sock.sendall(b"PUB $JS.API.CONSUMER.LIST.VARPULIS_ROUTING _INBOX.poll 0\r\n\r\n")
    while True:
        line = stream.readline()
        if not line:
            sys.exit(0)
        if line.startswith(b"PING"):
            sock.sendall(b"PONG\r\n")
        elif line.startswith(b"MSG"):
            data = stream.read(int(line.split()[-1]) + 2)[:-2]
            break
    reply = json.loads(data)
    rows = [f"{c['name']} delivered={c['delivered']['stream_seq']} ack_floor={c['ack_floor']['stream_seq']} "
            f"pending={c['num_pending']} ack_pending={c['num_ack_pending']}" for c in reply.get("consumers", [])]
    print(f"{time.time():.2f} " + " | ".join(rows), flush=True)
    time.sleep(0.2)
