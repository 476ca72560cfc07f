"""verifiers' Rubric calling its reward functions, reproduced from its source
(PrimeIntellect-ai/verifiers commit a60a606, verifiers/legacy/rubrics/rubric.py and
verifiers/legacy/types.py), standard library only.

score_group runs each function in order: a function is a group function when a parameter is one
of states/prompts/completions/answers/tasks/infos or it is annotated to return a list; it is then
called once with the plural objects, else once per state (asyncio.gather). Arguments: every
object when it takes **kwargs, else those it names; the result is awaited if awaitable
(maybe_await) and an individual result goes through float(); an exception becomes 0.0 (logged).
State objects: prompt, completion, answer, info, task, the row's other fields; chat messages are
pydantic models with dict-style access (CustomBaseModel: .get, [], extra fields), not dicts.

Input (stdin): {"func": "rubric"|"group"|"score_one" (with "message", "item"), "make": kwargs, "states": [{prompt, completion, answer,
info, ...row fields}], "as_models": bool (messages as dict-like objects)}.
"""
import asyncio
import inspect
import json
import os
import sys
from typing import get_origin

INTEGRATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "integrations")
sys.path.insert(0, os.path.abspath(INTEGRATIONS))


class Model:
    """Like verifiers' CustomBaseModel: attribute access plus .get/[]/in, and model_dump()."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __getitem__(self, key):
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key, default)

    def __contains__(self, key):
        return hasattr(self, key)

    def model_dump(self):
        return {k: (v.model_dump() if isinstance(v, Model) else [x.model_dump() if isinstance(x, Model) else x for x in v] if isinstance(v, list) else v) for k, v in self.__dict__.items()}


def as_model(x):
    if isinstance(x, dict):
        return Model(**{k: as_model(v) for k, v in x.items()})
    if isinstance(x, list):
        return [as_model(v) for v in x]
    return x


GROUP = {"states", "prompts", "completions", "answers", "tasks", "infos"}


def is_group_func(func):
    sig = inspect.signature(func)
    ret = sig.return_annotation
    return bool(set(sig.parameters) & GROUP) or ret is list or get_origin(ret) is list


async def maybe_await(func, **kwargs):
    result = func(**kwargs)
    if inspect.isawaitable(result):
        return await result
    return result


def objects(state, parser):
    row = {k: v for k, v in state.items() if k not in ("prompt", "completion", "answer", "info", "task")}
    return {**row, "prompt": state["prompt"], "completion": state["completion"], "answer": state.get("answer", ""), "state": state, "info": state.get("info", {}), "parser": parser, "task": None}


async def call_individual(func, state, parser, errors):
    sig = inspect.signature(func)
    merged = objects(state, parser)
    if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        merged = {k: v for k, v in merged.items() if k in sig.parameters}
    try:
        return float(await maybe_await(func, **merged))
    except Exception as e:
        errors.append(repr(e))
        return 0.0


async def call_group(func, states, parser, errors):
    sig = inspect.signature(func)
    per = [objects(s, parser) for s in states]
    merged = dict(prompts=[s["prompt"] for s in states], completions=[s["completion"] for s in states], answers=[s.get("answer", "") for s in states],
                  states=states, tasks=[None for _ in states], infos=[o["info"] for o in per], parser=parser)
    if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        merged = {k: v for k, v in merged.items() if k in sig.parameters}
    try:
        return await maybe_await(func, **merged)
    except Exception as e:
        errors.append(repr(e))
        return [0.0] * len(states)


async def score_group(func, states, parser):
    errors = []
    if is_group_func(func):
        scores = await call_group(func, states, parser, errors)
    else:
        scores = await asyncio.gather(*[call_individual(func, s, parser, errors) for s in states])
    return {"name": func.__name__, "is_group": is_group_func(func), "scores": list(scores), "types": sorted({type(x).__name__ for x in scores}), "errors": errors}


def main():
    cmd = json.load(sys.stdin)
    import verifiers_reward

    if cmd["func"] == "score_one":  # a v1 `@vf.reward async def ...(self, trace)` awaiting arbiter_score
        msg = as_model(cmd["message"])
        out = asyncio.run(verifiers_reward.arbiter_score(msg, cmd["item"], grader=cmd["make"]["grader"]))
        json.dump({"reward": out, "type": type(out).__name__}, sys.stdout)
        return
    states = cmd["states"]
    if cmd.get("as_models"):
        states = [{**s, "prompt": as_model(s["prompt"]), "completion": as_model(s["completion"])} for s in states]
    make = verifiers_reward.make_rubric_func if cmd["func"] == "rubric" else verifiers_reward.make_group_func
    func = make(**cmd.get("make", {}))
    out = asyncio.run(score_group(func, states, parser=object()))
    b = verifiers_reward._batcher
    out["requests_sent"] = b.requests_sent if b else None
    out["connections_opened"] = b.client.connections_opened if b else None
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
