"""OpenRLHF reward-function file backed by an arbiter server (Python standard library only).

    python3 -m openrlhf.cli.train_ppo_ray ... \
        --reward.remote_url /path/to/arbiter/integrations/openrlhf_reward.py

OpenRLHF (openrlhf/utils/agent.py, SingleTurnAgentExecutor) loads a --reward.remote_url ending in
.py with importlib and calls reward_func(queries, prompts, labels) in a thread, once per sample.
This file forwards the call to the server's POST /get_reward, so the server does exactly what it
does for OpenRLHF's HTTP mode (prompt prefix and EOS/padding tokens removed, label -> item.label),
and returns {"rewards", "scores", "extra_logs"} as float32 tensors (plain lists of floats when
torch is not installed). Unlike OpenRLHF's HTTP mode, the client honours Retry-After and raises
ArbiterError when the server refuses the request.

Environment (set it for Ray workers too, e.g. --runtime-env-json='{"env_vars": {...}}'):
ARBITER_URL, ARBITER_TOKEN (this mode can send one), ARBITER_GRADER (server grader name; default:
the server's default grader), and the client settings in arbiter_client.py.
"""
import os
import sys
import urllib.parse

try:
    from arbiter_client import ArbiterClient, to_json_value
except ImportError:  # OpenRLHF loads this file by path; its folder is not on sys.path then
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from arbiter_client import ArbiterClient, to_json_value

_client = None


def _get_client():
    global _client
    if _client is None:
        _client = ArbiterClient()
    return _client


def get_reward_path():
    grader = os.environ.get("ARBITER_GRADER")
    return "/get_reward" + ("?grader=" + urllib.parse.quote(grader, safe="") if grader else "")


def as_tensor(values):
    """float32 tensor when torch is importable (OpenRLHF's environment), else a list of floats."""
    floats = [float(x) for x in values]
    try:
        import torch
    except ImportError:
        return floats
    return torch.tensor(floats, dtype=torch.float32)


def reward_func(queries, prompts, labels, **kwargs):
    body = {"query": list(queries), "prompts": list(prompts), "labels": to_json_value(list(labels))}
    res = _get_client().post(get_reward_path(), body)
    rewards = res["rewards"]
    if len(rewards) != len(body["query"]):
        raise RuntimeError("arbiter returned %d rewards for %d queries" % (len(rewards), len(body["query"])))
    return {
        "rewards": as_tensor(rewards),
        "scores": as_tensor(res.get("scores", rewards)),
        "extra_logs": {k: as_tensor(v) for k, v in (res.get("extra_logs") or {}).items()},
    }
