"""Paranoid Pirate worker (ZeroMQ Guide, chapter 4, ppworker.py; RFC 6), for the gateway tests.

usage: ppworker.py <endpoint> <name> [--interval-ms 1000] [--liveness 3] [--hold]
       [--curve-server-key K --curve-public-key P --curve-secret-key S]

Answers each request with "<name>:<first content frame>". With --hold it takes the first request and then hangs
(no reply, no heartbeats), as a stuck worker would, until it is killed. Prints one line per event, flushed.
"""
import argparse
import random
import sys
import time

import zmq

PPP_READY = b"\x01"
PPP_HEARTBEAT = b"\x02"
INTERVAL_INIT = 1.0
INTERVAL_MAX = 32.0

parser = argparse.ArgumentParser()
parser.add_argument("endpoint")
parser.add_argument("name")
parser.add_argument("--interval-ms", type=int, default=1000)
parser.add_argument("--liveness", type=int, default=3)
parser.add_argument("--hold", action="store_true")
parser.add_argument("--curve-server-key", help="CURVE: the gateway's public key (Z85); with --curve-public-key and --curve-secret-key")
parser.add_argument("--curve-public-key")
parser.add_argument("--curve-secret-key")
args = parser.parse_args()
HEARTBEAT_INTERVAL = args.interval_ms / 1000.0
HEARTBEAT_LIVENESS = args.liveness


def say(*words):
    print(*words, flush=True)


def worker_socket(context, poller):
    worker = context.socket(zmq.DEALER)
    identity = b"%04X-%04X" % (random.randint(0, 0x10000), random.randint(0, 0x10000))
    worker.setsockopt(zmq.IDENTITY, identity)
    poller.register(worker, zmq.POLLIN)
    if args.curve_server_key:
        worker.curve_serverkey = args.curve_server_key.encode()
        worker.curve_publickey = args.curve_public_key.encode()
        worker.curve_secretkey = args.curve_secret_key.encode()
    worker.connect(args.endpoint)
    worker.send(PPP_READY)
    say("ready", identity.decode())
    return worker


context = zmq.Context(1)
poller = zmq.Poller()
liveness = HEARTBEAT_LIVENESS
interval = INTERVAL_INIT
heartbeat_at = time.time() + HEARTBEAT_INTERVAL
worker = worker_socket(context, poller)

while True:
    socks = dict(poller.poll(HEARTBEAT_INTERVAL * 1000))
    if socks.get(worker) == zmq.POLLIN:
        frames = worker.recv_multipart()
        if not frames:
            break
        if len(frames) == 1 and frames[0] == PPP_HEARTBEAT:
            liveness = HEARTBEAT_LIVENESS
        elif b"" in frames[:-1]:
            # REQUEST: address stack, empty delimiter, content
            split = frames.index(b"")
            envelope, content = frames[:split], frames[split + 1:]
            if args.hold:
                say("holding", content[0].decode(errors="replace"))
                while True:
                    time.sleep(3600)
            reply = [args.name.encode() + b":" + content[0]] + content[1:]
            worker.send_multipart(envelope + [b""] + reply)
            say("served", content[0].decode(errors="replace"))
            liveness = HEARTBEAT_LIVENESS
        else:
            say("invalid", repr(frames))
        interval = INTERVAL_INIT
    else:
        liveness -= 1
        if liveness == 0:
            say("queue silent, reconnecting in", interval)
            time.sleep(interval)
            interval = min(interval * 2, INTERVAL_MAX)
            poller.unregister(worker)
            worker.setsockopt(zmq.LINGER, 0)
            worker.close()
            worker = worker_socket(context, poller)
            liveness = HEARTBEAT_LIVENESS
    if time.time() > heartbeat_at:
        heartbeat_at = time.time() + HEARTBEAT_INTERVAL
        worker.send(PPP_HEARTBEAT)
