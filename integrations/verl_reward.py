"""verl custom reward function backed by an arbiter server (Python standard library only).

In a verl config:
    custom_reward_function:
      path: /path/to/arbiter/integrations/verl_reward.py
      name: compute_score            # or compute_score_batch with reward_model.reward_manager=batch

Each sample is graded by the server grader named after its data_source (start the server with
--grader openai/gsm8k=gsm8k.json ...), unless ARBITER_GRADER forces one grader for all, or
ARBITER_GRADER_MAP='{"openai/gsm8k": "gsm8k"}' maps data sources to grader names. The item the
grader sees is {"label": ground_truth, "data_source": ..., "extra_info": ...}; the model output is
sample.output_text. Returns {"score": reward, "arbiter_invalid": 0 or 1}; an ungradable sample
gets ARBITER_FALLBACK_REWARD (default 0.0). Set ARBITER_RETURN=float to return bare floats.
"""
import json
import os
import sys

try:
    from arbiter_client import ArbiterClient, fallback_from_env, reward_of
except ImportError:  # verl loads this file by path; its folder is not on sys.path then
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from arbiter_client import ArbiterClient, fallback_from_env, reward_of

_client = None


def _get_client():
    global _client
    if _client is None:
        _client = ArbiterClient()
    return _client


def grader_for(data_source):
    forced = os.environ.get("ARBITER_GRADER")
    if forced:
        return forced
    mapping = os.environ.get("ARBITER_GRADER_MAP")
    if mapping:
        table = json.loads(mapping)
        if data_source in table:
            return table[data_source]
    return data_source


def _item(data_source, ground_truth, extra_info):
    item = {"label": ground_truth, "data_source": data_source}
    if extra_info is not None:
        item["extra_info"] = extra_info
    return item


def _shape(result, fallback):
    reward = reward_of(result, fallback)
    if os.environ.get("ARBITER_RETURN", "dict") == "float":
        return reward
    return {"score": reward, "arbiter_invalid": 0 if result.get("valid") else 1}


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's per-sample reward function."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):
    """verl's batch reward function: one /v1/score request per grader involved, results in order."""
    n = len(solution_strs)
    if extra_infos is None:
        extra_infos = [None] * n
    fallback = fallback_from_env(0.0)
    if fallback is None:
        fallback = 0.0  # verl needs a number for every sample
    groups = {}
    for i in range(n):
        groups.setdefault(grader_for(data_sources[i]), []).append(i)
    out = [None] * n
    client = _get_client()
    for grader, idx in groups.items():
        samples = [
            {"id": i, "item": _item(data_sources[i], ground_truths[i], extra_infos[i]), "sample": {"output_text": solution_strs[i]}}
            for i in idx
        ]
        for i, result in zip(idx, client.score(grader, samples)):
            out[i] = _shape(result, fallback)
    return out
