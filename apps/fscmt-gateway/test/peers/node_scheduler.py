"""A minimal MS-FSCMT node scheduler with nothing but socket and marshal (version 0), as a 2010 peer would be.

usage: node_scheduler.py HOST PORT NODE_ID [READ_DELAY_S | wait]

With "wait", it reads nothing from the socket until a line arrives on stdin (a slow reader the test releases).

Connects, sends CMD_UM_INIT, then prints one JSON line per frame received (command, priority, frame hex) and
answers CMD_UM_KEEPALIVE with CMD_UM_KEEPALIVE_ACK (priority 1) and CMD_UM_ASK_ROUTE with CMD_UM_LAST_ROUTE. Prints the hex of every frame it sends too.
"""
import json
import marshal
import socket
import struct
import sys
import time

CMD_UM_ASK_ROUTE, CMD_UM_LAST_ROUTE, CMD_UM_KEEPALIVE, CMD_UM_KEEPALIVE_ACK, CMD_UM_INIT = 8, 9, 10, 11, 24


def frame(d, priority):
    body = marshal.dumps((d, priority), 0)
    return struct.pack('>I', len(body)) + body


def read_exact(sock, n):
    buf = b''
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError('closed')
        buf += chunk
    return buf


def say(**kw):
    sys.stdout.write(json.dumps(kw) + '\n')
    sys.stdout.flush()


def main():
    host, port, node_id = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    wait = len(sys.argv) > 4 and sys.argv[4] == 'wait'
    delay = float(sys.argv[4]) if len(sys.argv) > 4 and not wait else 0.0
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if delay or wait:
        # a slow reader with a small window, so that what waits for it waits in the sender's queue
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    sock.connect((host, port))
    init = frame({b'xp': (b'127.0.0.1', 10000), b'mi': node_id.encode(), b'cm': CMD_UM_INIT}, 0)
    sock.sendall(init)
    say(event='sent', cmd=CMD_UM_INIT, hex=init.hex())
    if delay:
        time.sleep(delay)
    if wait:
        sys.stdin.readline()
    n = 0
    while True:
        try:
            header = read_exact(sock, 4)
            body = read_exact(sock, struct.unpack('>I', header)[0])
        except EOFError:
            say(event='closed')
            return
        d, priority = marshal.loads(body)
        n += 1
        cmd = d[b'cm']
        say(event='recv', n=n, cmd=cmd, priority=priority, hex=(header + body).hex() if len(body) < 4096 else '')
        if cmd == CMD_UM_ASK_ROUTE:
            # this node has made no routes of its own: all of them told
            last = frame({b'cm': CMD_UM_LAST_ROUTE, b'dn': d[b'dn']}, 0)
            sock.sendall(last)
            say(event='sent', cmd=CMD_UM_LAST_ROUTE, hex=last.hex())
        if cmd == CMD_UM_KEEPALIVE:
            ack = frame({b'cm': CMD_UM_KEEPALIVE_ACK}, 1)
            sock.sendall(ack)
            say(event='sent', cmd=CMD_UM_KEEPALIVE_ACK, hex=ack.hex())


main()
