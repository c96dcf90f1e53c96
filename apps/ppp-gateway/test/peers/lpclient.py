"""Lazy Pirate client (ZeroMQ Guide, chapter 4, lpclient.py), for the gateway tests.

usage: lpclient.py <endpoint> <count> [--timeout-ms 2500] [--retries 3]

Sends "<n>" for n in 1..count and expects a reply whose text ends with ":<n>"; prints "reply <text>" for each.
Exits 0 when every request was answered, 1 when the server seems offline.
"""
import argparse
import sys

import zmq

parser = argparse.ArgumentParser()
parser.add_argument("endpoint")
parser.add_argument("count", type=int)
parser.add_argument("--timeout-ms", type=int, default=2500)
parser.add_argument("--retries", type=int, default=3)
args = parser.parse_args()

context = zmq.Context()


def connect():
    client = context.socket(zmq.REQ)
    client.connect(args.endpoint)
    return client


client = connect()
for sequence in range(1, args.count + 1):
    request = str(sequence).encode()
    client.send(request)
    retries_left = args.retries
    while True:
        if (client.poll(args.timeout_ms) & zmq.POLLIN) != 0:
            reply = client.recv()
            if reply.endswith(b":" + request):
                print("reply", reply.decode(), flush=True)
                break
            print("malformed reply", reply, flush=True)
            continue
        retries_left -= 1
        # the socket is confused: close and reopen it, then resend
        client.setsockopt(zmq.LINGER, 0)
        client.close()
        if retries_left == 0:
            print("server seems to be offline, abandoning", flush=True)
            sys.exit(1)
        print("no response, retrying", flush=True)
        client = connect()
        client.send(request)
sys.exit(0)
