"""OpenRLHF's reward calls, reproduced from its source (openrlhf/utils/agent.py and
openrlhf/trainer/ppo_utils/samples_generator.py, OpenRLHF commit 3c3be62), standard library only.

HTTP mode (--reward.remote_url http://...): SingleTurnAgentExecutor posts one request per
generated sample, {"query": [q], "prompts": [p], "labels": [l]}, a new client session per attempt,
total timeout 180 s; raise_for_status, response.json(); on any error it logs, sleeps 1 s and tries
again, 5 tries in all (Retry-After is not read), then raises, which execute() catches: the sample
then has reward None. All the samples of a rollout are in flight at once (asyncio.gather).
Reward-function mode (--reward.remote_url file.py): the file is loaded with
importlib.util.spec_from_file_location("reward_func", path) and reward_func([q], [p], [l]) runs in
asyncio.to_thread. Agent mode (--train.agent_func_path file.py): the file's AgentExecutor (a
MultiTurnAgentExecutor) is instantiated; each episode builds AgentInstance(), awaits reset() and
step(), and reads step_result["rewards"].item().
Then _process_response_into_experience builds torch.tensor([reward]); here, the dtype torch would
infer is reported instead ("float32" for Python floats, "int64" for ints, as torch does).

Input (stdin): {"mode": "http"|"func"|"agent", "url", "samples": [{"query", "prompt", "label"}],
"retry_sleep": seconds between tries (OpenRLHF: 1), "file": path for func/agent mode}.
"""
import asyncio
import concurrent.futures
import importlib.util
import json
import os
import sys
import time
import types
import urllib.error
import urllib.request

TRY_MAX_TIMES = 5
TIMEOUT = 180


def dtype_of(values):
    flat = []

    def rec(v):
        if isinstance(v, (list, tuple)):
            for x in v:
                rec(x)
        else:
            flat.append(v)

    rec(values)
    if any(isinstance(v, bool) for v in flat):
        return "bool"
    if all(isinstance(v, int) for v in flat):
        return "int64"
    if all(isinstance(v, (int, float)) for v in flat):
        return "float32"
    return "invalid:" + ",".join(sorted({type(v).__name__ for v in flat}))


def post_once(url, data):
    req = urllib.request.Request(url, data=json.dumps(data).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:  # raise_for_status: HTTPError on >= 400
        return json.loads(resp.read().decode())


async def post_request(url, data, retry_sleep, log):
    for _ in range(TRY_MAX_TIMES):
        try:
            return await asyncio.to_thread(post_once, url, data)
        except urllib.error.HTTPError as e:
            log.append({"status": e.code, "retry_after": e.headers.get("Retry-After")})
        except Exception as e:  # ClientError and "unexpected" errors alike
            log.append({"error": repr(e)})
        await asyncio.sleep(retry_sleep)
    raise RuntimeError("Request error for %d times, returning None. Please check the API server." % TRY_MAX_TIMES)


# --- stand-ins for the modules OpenRLHF's files import (torch, openrlhf.utils.agent) ---

class Tensor:
    """Enough of torch.Tensor for these files: a flat list with a dtype, .item(), .tolist()."""

    def __init__(self, data, dtype=None):
        self.data = [float(x) if dtype == "float32" else x for x in data]
        self.dtype = dtype or dtype_of(self.data)

    def item(self):
        assert len(self.data) == 1, "only one element tensors can be converted to Python scalars"
        return self.data[0]

    def tolist(self):
        return list(self.data)


def install_stubs():
    torch = types.ModuleType("torch")
    torch.float32 = "float32"
    torch.tensor = lambda data, dtype=None: Tensor(data, dtype)
    torch.Tensor = Tensor
    sys.modules["torch"] = torch
    agent = types.ModuleType("openrlhf.utils.agent")

    class AgentInstanceBase:
        def __init__(self, *args, **kwargs):
            pass

        async def reset(self, states, **kwargs):
            return states

    class MultiTurnAgentExecutor:
        def __init__(self, agent_instance_cls):
            assert issubclass(agent_instance_cls, AgentInstanceBase), "AgentInstance must inherit from AgentInstanceBase"
            self.agent_instance_cls = agent_instance_cls

    agent.AgentInstanceBase = AgentInstanceBase
    agent.MultiTurnAgentExecutor = MultiTurnAgentExecutor
    for name in ("openrlhf", "openrlhf.utils"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["openrlhf.utils.agent"] = agent
    return agent


def tensor_info(v):
    if isinstance(v, Tensor):
        return {"dtype": v.dtype, "values": v.data}
    return {"dtype": "list:" + dtype_of(v), "values": v}


async def run_sample(cmd, s, log, func, executor):
    if cmd["mode"] == "http":
        try:
            info = await post_request(cmd["url"], {"query": [s["query"]], "prompts": [s["prompt"]], "labels": [s["label"]]}, cmd.get("retry_sleep", 1.0), log)
        except RuntimeError as e:
            return {"reward": None, "failed": str(e)}  # execute() logs it; the sample's reward stays None
        score = info.get("scores")
        if score is None:
            score = info.get("rewards")
        return {"reward": info.get("rewards"), "reward_dtype": dtype_of([info.get("rewards")]), "score_dtype": dtype_of([score]),
                "extra_logs": {k: dtype_of([v]) for k, v in (info.get("extra_logs") or {}).items()}, "extra_values": info.get("extra_logs")}
    if cmd["mode"] == "func":
        info = (await asyncio.gather(asyncio.to_thread(func, [s["query"]], [s["prompt"]], [s["label"]])))[0]
        return {"rewards": tensor_info(info["rewards"]), "scores": tensor_info(info["scores"]),
                "extra_logs": {k: tensor_info(v) for k, v in info["extra_logs"].items()}}
    inst = executor.agent_instance_cls()
    reset = await inst.reset({"observation": s["prompt"], "label": s["label"]})
    step = await inst.step({"observation_text": reset["observation"], "action_text": s["query"][len(s["prompt"]):], "label": s["label"], "sampling_params": None})
    total = 0
    total += step["rewards"].item()
    return {"total_reward": total, "total_type": type(total).__name__, "done": step["done"], "feedback": step["environment_feedback"],
            "extra_logs": {k: tensor_info(v) for k, v in step["extra_logs"].items()}}


async def main_async(cmd):
    # aiohttp opens a connection per request, all at once; threads stand in for it here
    asyncio.get_running_loop().set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=max(32, len(cmd["samples"]))))
    func = executor = None
    if cmd["mode"] == "func":
        install_stubs()
        spec = importlib.util.spec_from_file_location("reward_func", cmd["file"])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        func = mod.reward_func
    elif cmd["mode"] == "agent":
        agent = install_stubs()
        spec = importlib.util.spec_from_file_location("agent_module", cmd["file"])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        assert hasattr(mod, "AgentExecutor"), "Agent module must contain AgentExecutor class"
        executor = mod.AgentExecutor()
        assert isinstance(executor, agent.MultiTurnAgentExecutor)
    logs = [[] for _ in cmd["samples"]]
    out = await asyncio.gather(*[run_sample(cmd, s, logs[i], func, executor) for i, s in enumerate(cmd["samples"])])
    return {"samples": out, "attempt_errors": logs}


if __name__ == "__main__":
    json.dump(asyncio.run(main_async(json.load(sys.stdin))), sys.stdout)
