"""Parses HTTP response bodies with Python's json, as every Python trainer does, and reports the
Python type of the values at the given paths ("rewards.*", "extra_logs.*.*"; * = every list item
or dict value). Input on stdin: {"docs": [{"text": body, "paths": [...]}, ...]}."""
import json
import sys


def walk(value, parts):
    if not parts:
        yield value
        return
    head, rest = parts[0], parts[1:]
    if head == "*":
        items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
        for v in items:
            yield from walk(v, rest)
    elif isinstance(value, dict) and head in value:
        yield from walk(value[head], rest)
    elif isinstance(value, list) and head.isdigit() and int(head) < len(value):
        yield from walk(value[int(head)], rest)


def main():
    cmd = json.load(sys.stdin)
    out = []
    for doc in cmd["docs"]:
        parsed = json.loads(doc["text"])
        out.append({p: [type(v).__name__ for v in walk(parsed, p.split(".") if p else [])] for p in doc["paths"]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
