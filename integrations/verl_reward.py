"""verl custom reward functions backed by an arbiter server (Python standard library only).

verl loads `custom_reward_function.path` by file path and calls `custom_reward_function.name`:

    compute_score_async   (recommended) async, per sample: verl's reward loop (the default,
                          reward_model.use_reward_loop=True) awaits coroutine functions; concurrent
                          calls are micro-batched into one POST /v1/score per grader.
    compute_score         sync, per sample: verl runs it in a thread pool (reward loop), or the
                          legacy naive manager calls it in a loop; also the one to use with the
                          reward loop's `remote` manager, which refuses coroutine functions.
    compute_score_batch   the legacy `batch` manager: reward_model.use_reward_loop=False
                          reward_model.reward_manager=batch (the reward loop has no batch manager).

Each sample is graded by the server grader named after its data_source (start the server with
--grader openai/gsm8k=gsm8k.json ...), unless ARBITER_GRADER forces one grader for all, or
ARBITER_GRADER_MAP='{"openai/gsm8k": "gsm8k"}' maps data sources to grader names. The item the
grader sees is {"label": ground_truth, "data_source": ..., "extra_info": ...}, with numpy values
converted to JSON values; the model output is sample.output_text. Returns {"score": reward,
"arbiter_invalid": 0 or 1} (verl logs every key); an ungradable sample gets ARBITER_FALLBACK_REWARD
(default 0.0). Set ARBITER_RETURN=float to return bare floats.
"""
import importlib
import json
import os
import sys

# The folder of this file, as a constant: verl's `remote` reward manager (and any Ray worker) gets
# these functions pickled by value (verl loads this file by path, so it is no importable module),
# and a worker's Python cannot import arbiter_client from it. So nothing is imported from
# arbiter_client at module level: _lib() imports it on first use, in the process that calls, from
# the folder this file was loaded from (the same path on every node, as verl itself loads the file
# by path on each reward worker's node). No PYTHONPATH needed.
_HERE = os.path.dirname(os.path.abspath(__file__))
_client = None
_batcher = None


def _lib():
    """The arbiter_client module, imported on first use from this file's folder."""
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)
    return importlib.import_module("arbiter_client")


def _get_client():
    global _client
    if _client is None:
        _client = _lib().ArbiterClient()
    return _client


def _get_batcher():
    global _batcher
    if _batcher is None:
        _batcher = _lib().MicroBatcher()
    return _batcher


def grader_for(data_source):
    data_source = _lib().to_json_value(data_source)
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
    item = {"label": _lib().to_json_value(ground_truth), "data_source": _lib().to_json_value(data_source)}
    if extra_info is not None:
        item["extra_info"] = _lib().to_json_value(extra_info)
    return item


def _fallback():
    fallback = _lib().fallback_from_env(0.0)
    return 0.0 if fallback is None else fallback  # verl needs a number for every sample


def _shape(result, fallback):
    reward = _lib().reward_of(result, fallback)
    if os.environ.get("ARBITER_RETURN", "dict") == "float":
        return reward
    return {"score": reward, "arbiter_invalid": 0 if result.get("valid") else 1}


async def compute_score_async(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's reward loop, per sample (awaited): batched with the other samples in flight."""
    result = await _get_batcher().grade(grader_for(data_source), _item(data_source, ground_truth, extra_info), {"output_text": solution_str})
    return _shape(result, _fallback())


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's per-sample reward function (sync)."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):
    """verl's batch reward function: one /v1/score request per grader involved, results in order."""
    n = len(solution_strs)
    if extra_infos is None:
        extra_infos = [None] * n
    fallback = _fallback()
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
