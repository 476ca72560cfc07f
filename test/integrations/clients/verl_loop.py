"""verl's calls to a custom reward function, reproduced from its source (volcengine/verl commit
b178a3c), standard library only.

Loading: verl/utils/import_utils.py load_module imports custom_reward_function.path with
importlib.util.spec_from_file_location under a generated name (not importable otherwise);
verl/trainer/ppo/reward.py get_custom_reward_fn wraps the function in
functools.partial(_call_with_kwargs[_async], raw_fn, reward_kwargs).
Reward loop (reward_model.use_reward_loop=True, the default): RewardLoopWorker.compute_score_batch
creates one asyncio task per sample; NaiveRewardManager.run_single takes data_source,
ground_truth (from reward_model), extra_info (dict, plus num_turns and rollout_reward_scores) and
awaits compute_score(...) when inspect.iscoroutinefunction says it is a coroutine function, else
runs it in the loop's default executor. A dict result gives score = result["score"] and every key
into reward_extra_info; a number is the score and reward_extra_info["acc"].
Legacy batch manager (use_reward_loop=False, reward_manager=batch): one call
compute_score(data_sources=, solution_strs=, ground_truths=, extra_infos=, **reward_kwargs).
Reward loop `remote` manager (reward_model.reward_manager=remote): RemoteRewardManager passes the
wrapped function to a Ray actor (RewardComputeWorker.remote(self.compute_score)), so it is
cloudpickled (the file's module is not in sys.modules: pickled by value) and called in another
Python process whose sys.path does not hold this folder; reproduced with cloudpickle and a fresh
interpreter started in another directory with PYTHONPATH removed ("remote" mode).

Input (stdin): {"mode": "loop"|"batch"|"remote", "name": function name, "samples": [{data_source,
solution_str, ground_truth, extra_info}] (numpy markers as in numpy_like.convert)}.
"""
import asyncio
import inspect
import json
import os
import sys
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_like import convert  # noqa: E402

INTEGRATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "integrations")


def _call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
    return raw_fn(*args, **{**kwargs, **extra_kwargs})


async def _call_with_kwargs_async(raw_fn, extra_kwargs, *args, **kwargs):
    return await raw_fn(*args, **{**kwargs, **extra_kwargs})


def load(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location("custom_module_%d" % hash(os.path.abspath(path)), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    raw_fn = getattr(module, name)
    wrapped = partial(_call_with_kwargs_async if inspect.iscoroutinefunction(raw_fn) else _call_with_kwargs, raw_fn, {})
    return module, wrapped


async def run_single(compute_score, s):
    extra_info = s.get("extra_info") or {}
    extra_info["num_turns"] = None
    extra_info["rollout_reward_scores"] = {}
    if inspect.iscoroutinefunction(compute_score):
        result = await compute_score(data_source=s["data_source"], solution_str=s["solution_str"], ground_truth=s["ground_truth"], extra_info=extra_info)
    else:
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(None, lambda: compute_score(data_source=s["data_source"], solution_str=s["solution_str"], ground_truth=s["ground_truth"], extra_info=extra_info))
    if isinstance(result, dict):
        return {"reward_score": result["score"], "reward_extra_info": dict(result)}
    return {"reward_score": result, "reward_extra_info": {"acc": result}}


async def loop_mode(compute_score, samples):
    tasks = [asyncio.create_task(run_single(compute_score, s)) for s in samples]
    return await asyncio.gather(*tasks)


WORKER = """
import json, sys
import cloudpickle
fn = cloudpickle.loads(sys.stdin.buffer.read())
out = []
for s in json.loads(sys.argv[1]):
    extra_info = dict(s.get("extra_info") or {}, num_turns=None, rollout_reward_scores={})
    out.append(fn(data_source=s["data_source"], solution_str=s["solution_str"], ground_truth=s["ground_truth"], extra_info=extra_info))
json.dump(out, sys.stdout)
"""


def remote_mode(fn, samples):
    import subprocess
    import tempfile

    try:
        import cloudpickle
    except ImportError:
        return None, "cloudpickle is not installed"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory() as cwd:
        p = subprocess.run([sys.executable, "-c", WORKER, json.dumps(samples)], input=cloudpickle.dumps(fn),
                           capture_output=True, cwd=cwd, env=env)
    if p.returncode != 0:
        return None, p.stderr.decode()[-2000:]
    scores = json.loads(p.stdout)
    return [{"reward_score": r["score"] if isinstance(r, dict) else r, "reward_extra_info": r} for r in scores], None


def main():
    cmd = json.load(sys.stdin)
    samples = convert(cmd["samples"])
    module, fn = load(os.path.join(INTEGRATIONS, "verl_reward.py"), cmd["name"])
    info = {"is_coroutine_function": inspect.iscoroutinefunction(fn)}
    if cmd["mode"] == "remote":
        out, error = remote_mode(fn, cmd["samples"])  # plain JSON values: the worker has no numpy_like
        if error is not None:
            json.dump({"error": error}, sys.stdout)
            return
    elif cmd["mode"] == "loop":
        out = asyncio.run(loop_mode(fn, samples))
        batcher = getattr(module, "_batcher", None)
        if batcher is not None:
            info["requests_sent"] = batcher.requests_sent
            info["connections_opened"] = batcher.client.connections_opened
    else:
        scores = fn(data_sources=[s["data_source"] for s in samples], solution_strs=[s["solution_str"] for s in samples],
                    ground_truths=[s["ground_truth"] for s in samples], extra_infos=[s.get("extra_info") for s in samples])
        out = [{"reward_score": r["score"] if isinstance(r, dict) else r, "reward_extra_info": r} for r in scores]
    json.dump({"results": out, "info": info}, sys.stdout)


if __name__ == "__main__":
    main()
