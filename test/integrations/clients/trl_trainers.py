"""TRL's calls to reward functions, reproduced from its source (huggingface/trl commit f2cd577),
standard library only.

GRPOTrainer._calculate_rewards (trl/trainer/grpo_trainer.py): reward_kwargs = every dataset column
but prompt/completion/completion_ids (one entry per completion), plus trainer_state, log_extra,
log_metric and, with environments, `environments` (one env instance per completion); a sync
function is called reward_func(prompts=, completions=, completion_ids=, **reward_kwargs); None
becomes NaN. AsyncGRPOTrainer (trl/experimental/async_grpo/async_rollout_worker.py) pickles the
reward functions (pickle.dumps of its loop kwargs) and runs them in a process started with the
"spawn" context; _score_group calls reward_func(completions=, prompts=, completion_ids=,
**row columns repeated num_generations) through asyncio.to_thread unless it is a coroutine
function, converts None to NaN, and a row where every function gave NaN is unscorable (advantage 0).
Reward names come from get_callable_name: __name__, else the class name.

Input (stdin): {"mode": "grpo"|"async_grpo", "make": kwargs for trl_reward.make_reward_func,
"prompts", "completions", "columns": {name: list}, "environments": bool}.
"""
import asyncio
import inspect
import json
import math
import multiprocessing as mp
import os
import pickle
import sys

INTEGRATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "integrations")
sys.path.insert(0, os.path.abspath(INTEGRATIONS))  # how users import it: integrations/ on sys.path


class TrainerState:  # stands for transformers' TrainerState: not JSON, not a column
    global_step = 3


class Env:
    def reset(self, **kwargs):
        return None


def nan_to_str(rewards):
    return ["nan" if (r is None or (isinstance(r, float) and math.isnan(r))) else r for r in rewards]


def name_of(func):
    return getattr(func, "__name__", type(func).__name__)


def grpo(cmd, fn):
    n = len(cmd["completions"])
    reward_kwargs = dict(cmd["columns"])
    reward_kwargs["trainer_state"] = TrainerState()
    reward_kwargs["log_extra"] = lambda *a, **k: None
    reward_kwargs["log_metric"] = lambda *a, **k: None
    if cmd.get("environments"):
        reward_kwargs["environments"] = [Env() for _ in range(n)]
    out = fn(prompts=cmd["prompts"], completions=cmd["completions"], completion_ids=[[1, 2]] * n, **reward_kwargs)
    out = [r if r is not None else float("nan") for r in out]
    return {"name": name_of(fn), "rewards": nan_to_str(out), "types": sorted({type(r).__name__ for r in out})}


def child(payload, queue):
    fn, kwargs = pickle.loads(payload)

    async def score():
        if inspect.iscoroutinefunction(fn):
            return await fn(**kwargs)
        return await asyncio.to_thread(fn, **kwargs)

    try:
        queue.put({"rewards": asyncio.run(score())})
    except Exception as e:
        queue.put({"error": repr(e)})


def async_grpo(cmd, fn):
    n = len(cmd["completions"])
    kwargs = dict(completions=cmd["completions"], prompts=cmd["prompts"], completion_ids=[[1, 2]] * n, **cmd["columns"])
    payload = pickle.dumps((fn, kwargs))  # AsyncRolloutWorker.start: pickle.dumps(self._loop_kwargs)
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=child, args=(payload, queue))
    proc.start()
    got = queue.get(timeout=120)
    proc.join()
    if "error" in got:
        return {"error": got["error"]}
    rewards = [r if r is not None else float("nan") for r in got["rewards"]]
    return {"name": name_of(fn), "rewards": nan_to_str(rewards), "types": sorted({type(r).__name__ for r in rewards}), "unscorable": [math.isnan(r) for r in rewards]}


def main():
    cmd = json.load(sys.stdin)
    import trl_reward

    fn = trl_reward.make_reward_func(**cmd.get("make", {}))
    out = grpo(cmd, fn) if cmd["mode"] == "grpo" else async_grpo(cmd, fn)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
