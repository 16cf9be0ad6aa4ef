# perf script -s test/perfdump.py: each tracepoint record as perf decodes
# it, a line per record: event, time (ns), tid, cpu, then every field but
# the common_ ones as name=KIND:value (i: integer, s: string, l: list of
# integers, b: bytes in hex). test/pcmp.py compares it with tracer -p.
import sys

def enc(v):
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, str):
        return "s:" + "".join(c if " " <= c <= "~" else "." for c in v)
    if isinstance(v, (bytes, bytearray)):
        return "b:" + bytes(v).hex()
    if isinstance(v, list):
        return "l:" + ",".join("%d" % x for x in v)
    return "?:" + repr(v)

def trace_unhandled(event_name, context, fields, sample):
    s = sample["sample"]
    out = [event_name.replace("__", ":", 1), str(s["time"]), str(s["tid"]), str(s["cpu"])]
    for k, v in fields.items():
        if not k.startswith("common_"):
            out.append("%s=%s" % (k, enc(v)))
    sys.stdout.write("\t".join(out) + "\n")
