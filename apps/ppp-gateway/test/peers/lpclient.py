"""Lazy Pirate client (ZeroMQ Guide, chapter 4, lpclient.py), for the gateway tests.

usage: lpclient.py <endpoint> <count> [--timeout-ms 2500] [--retries 3] [--curve-server-key K --curve-public-key P --curve-secret-key S]

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
parser.add_argument("--curve-server-key", help="CURVE: the gateway's public key (Z85); with --curve-public-key and --curve-secret-key")
parser.add_argument("--curve-public-key")
parser.add_argument("--curve-secret-key")
args = parser.parse_args()

context = zmq.Context()


def connect():
    client = context.socket(zmq.REQ)
    if args.curve_server_key:
        client.curve_serverkey = args.curve_server_key.encode()
        client.curve_publickey = args.curve_public_key.encode()
        client.curve_secretkey = args.curve_secret_key.encode()
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
