#!/usr/bin/env python3
"""Exports BFCL's long-context extension constants to JSON for arbiter's bfcl_multi_turn grader.

BFCL's long_context multi-turn entries load extra data (padding text, files, stocks, cards...)
from bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py. arbiter does not
ship that data; export it from your own BFCL checkout and point ARBITER_BFCL_LONG_CONTEXT at the file:

    python3 dist/envs/bfcl_multi_turn/apis/long-context-export.py /path/to/gorilla > bfcl-long-context.json
    export ARBITER_BFCL_LONG_CONTEXT=$PWD/bfcl-long-context.json

The argument is the gorilla checkout, the berkeley-function-call-leaderboard folder, or the
long_context.py file itself. Standard library only; the module is loaded without importing bfcl_eval.
"""
import importlib.util
import json
import os
import sys

KEYS = [
    "AUTOMOBILE_EXTENSION", "BOOKING_RECORD_EXTENSION", "CAR_STATUS_METADATA_EXTENSION",
    "CREDIT_CARD_EXTENSION", "FILES_TAIL_USED", "FILE_CONTENT_EXTENSION", "INTERMEDIARY_CITIES",
    "LONG_WEATHER_EXTENSION", "MA_20_EXTENSION", "MA_5_EXTENSION", "ORDER_DETAIL_EXTENSION",
    "PARKING_BRAKE_INSTRUCTION", "POPULATE_FILE_EXTENSION", "TECHNOLOGY_EXTENSION",
    "TRANSACTION_HISTORY_EXTENSION", "WATCH_LIST_EXTENSION",
]
SUFFIX = os.path.join("bfcl_eval", "eval_checker", "multi_turn_eval", "func_source_code", "long_context.py")


def find(path):
    if os.path.isfile(path):
        return path
    for base in (path, os.path.join(path, "berkeley-function-call-leaderboard")):
        candidate = os.path.join(base, SUFFIX)
        if os.path.isfile(candidate):
            return candidate
    sys.exit(f"no {SUFFIX} under {path}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    spec = importlib.util.spec_from_file_location("bfcl_long_context", find(sys.argv[1]))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = [k for k in KEYS if not hasattr(module, k)]
    if missing:
        sys.exit(f"long_context.py lacks {', '.join(missing)}")
    # WATCH_LIST_EXTENSION ends with Python's Ellipsis, which JSON cannot hold
    def default(o):
        if o is Ellipsis:
            return {"__ellipsis__": True}
        raise TypeError(f"cannot export {type(o).__name__}")

    json.dump({k: getattr(module, k) for k in KEYS}, sys.stdout, default=default)


if __name__ == "__main__":
    main()
