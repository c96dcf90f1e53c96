"""CPython's marshal as a test oracle for the FSWCU codec.

Reads one JSON request on stdin, {"op": ..., "items": [...]}, and writes one JSON list of results on stdout, so
a whole property's worth of values costs one python3 process. Values travel in the lossless JSON form of
libs/codecs/src/fswcu/fswcu-json.ts; what CPython reads back is described in that form too, with floats as
{"double": repr} (Python has one float type) and every int as a plain int or {"long": ...} by size.
"""
import json
import marshal
import struct
import sys


def from_json(j):
    if j is None or isinstance(j, bool) or isinstance(j, int):
        return j
    if isinstance(j, str):
        return j.encode("utf-8")
    if isinstance(j, list):
        return [from_json(x) for x in j]
    (tag, body), = j.items()
    if tag == "u":
        return body
    if tag == "hex":
        return bytes.fromhex(body)
    if tag in ("long", "int64"):
        return int(body)
    if tag in ("float", "double"):
        return float(body)
    if tag == "double_bits":
        return struct.unpack(">d", bytes.fromhex(body))[0]
    if tag == "tuple":
        return tuple(from_json(x) for x in body)
    if tag == "dict":
        return {from_json(k): from_json(v) for k, v in body}
    raise ValueError("unknown tag " + tag)


def to_json(v):
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v if -(2 ** 31) <= v < 2 ** 31 else {"long": str(v)}
    if isinstance(v, float):
        return {"double": repr(v)}
    if isinstance(v, bytes):
        return {"hex": v.hex()}
    if isinstance(v, str):
        return {"u": v}
    if isinstance(v, tuple):
        return {"tuple": [to_json(x) for x in v]}
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, dict):
        return {"dict": [[to_json(k), to_json(x)] for k, x in v.items()]}
    raise TypeError(type(v).__name__)


def frame(d, priority):
    body = marshal.dumps((d, priority), 0)
    return len(body).to_bytes(4, "big") + body


def read_frames(data):
    out, pos = [], 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        body = data[pos + 4:pos + 4 + n]
        if len(body) != n:
            return out + [{"error": "truncated frame"}]
        d, priority = marshal.loads(body)
        if not isinstance(d, dict) or priority not in (0, 1):
            return out + [{"error": "not a (dict, priority) frame"}]
        out.append({"dict": to_json(d)["dict"], "priority": priority})
        pos += 4 + n
    return out


def run(op, item):
    try:
        if op == "dumps":
            return marshal.dumps(from_json(item), 0).hex()
        if op == "loads":
            return to_json(marshal.loads(bytes.fromhex(item)))
        if op == "frame_dumps":
            return frame(from_json({"dict": item["dict"]}), item["priority"]).hex()
        if op == "frame_loads":
            return read_frames(bytes.fromhex(item))
    except Exception as e:  # the caller decides whether an error is expected
        return {"error": "%s: %s" % (type(e).__name__, e)}
    raise ValueError("unknown op " + op)


request = json.load(sys.stdin)
json.dump([run(request["op"], item) for item in request["items"]], sys.stdout)
