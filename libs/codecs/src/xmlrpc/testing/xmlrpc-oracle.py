"""Python's xmlrpc.client as a test oracle for the TypeScript XML-RPC codec.

Usage: python3 xmlrpc-oracle.py dumps|loads < cases.json > results.json

Values travel as tagged JSON so that int/double, dates and bytes stay distinct:
  ["int", 5]  ["double", "2.5"]  ["bool", true]  ["str", "x"]  ["date", "20240101T10:00:00"]
  ["bin", "<base64>"]  ["nil"]  ["array", [...]]  ["struct", [["key", value], ...]]

dumps: [{"type": "request", "method": m, "params": [...]} | {"type": "response", "value": v}
        | {"type": "fault", "code": n, "string": s}, optional "encoding"]
       -> [{"xml": str, "bytes": base64 of xml encoded in the declared encoding (default UTF-8)}]
loads: [xml string] -> [{"method": m or null, "params": [...]} | {"fault": [code, string]} | {"error": repr}]
"""
import base64
import datetime
import json
import sys
import xmlrpc.client

FORMAT = "%Y%m%dT%H:%M:%S"


def from_tagged(t):
    tag = t[0]
    if tag == "int":
        return int(t[1])
    if tag == "double":
        return float(t[1])
    if tag == "bool":
        return bool(t[1])
    if tag == "str":
        return t[1]
    if tag == "date":
        return datetime.datetime.strptime(t[1], FORMAT)
    if tag == "bin":
        return base64.b64decode(t[1])
    if tag == "nil":
        return None
    if tag == "array":
        return [from_tagged(x) for x in t[1]]
    if tag == "struct":
        return {k: from_tagged(v) for k, v in t[1]}
    raise ValueError("unknown tag %r" % (tag,))


def to_tagged(v):
    if v is None:
        return ["nil"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", v]
    if isinstance(v, float):
        return ["double", repr(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, datetime.datetime):
        return ["date", "%04d%02d%02dT%02d:%02d:%02d" % (v.year, v.month, v.day, v.hour, v.minute, v.second)]
    if isinstance(v, (bytes, bytearray)):
        return ["bin", base64.b64encode(bytes(v)).decode("ascii")]
    if isinstance(v, (list, tuple)):
        return ["array", [to_tagged(x) for x in v]]
    if isinstance(v, dict):
        return ["struct", [[k, to_tagged(x)] for k, x in v.items()]]
    raise TypeError("cannot tag %r" % (type(v),))


def dumps(case):
    encoding = case.get("encoding")
    if case["type"] == "request":
        xml = xmlrpc.client.dumps(tuple(from_tagged(p) for p in case["params"]), methodname=case["method"],
                                  encoding=encoding, allow_none=True)
    elif case["type"] == "response":
        xml = xmlrpc.client.dumps((from_tagged(case["value"]),), methodresponse=True, encoding=encoding,
                                  allow_none=True)
    else:
        xml = xmlrpc.client.dumps(xmlrpc.client.Fault(case["code"], case["string"]), methodresponse=True,
                                  encoding=encoding)
    raw = xml.encode(encoding or "utf-8")
    return {"xml": xml, "bytes": base64.b64encode(raw).decode("ascii")}


def loads(xml):
    try:
        params, method = xmlrpc.client.loads(xml, use_builtin_types=True)
    except xmlrpc.client.Fault as fault:
        return {"fault": [fault.faultCode, fault.faultString]}
    except Exception as e:  # noqa: BLE001 - reported to the test
        return {"error": repr(e)}
    return {"method": method, "params": [to_tagged(p) for p in params]}


def main():
    mode = sys.argv[1]
    cases = json.load(sys.stdin)
    handler = dumps if mode == "dumps" else loads
    json.dump([handler(c) for c in cases], sys.stdout)


if __name__ == "__main__":
    main()
