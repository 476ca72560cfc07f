"""verifiers reward functions backed by an arbiter server (Python standard library only).

    import verifiers as vf
    from verifiers_reward import make_rubric_func, make_group_func   # integrations/ on PYTHONPATH
    rubric = vf.Rubric(funcs=[make_rubric_func(grader="gsm8k")], weights=[1.0])
    # or score a whole group in one request:
    rubric = vf.Rubric(funcs=[make_group_func(grader="gsm8k")])

verifiers' Rubric (verifiers/legacy/rubrics/rubric.py) inspects each function's signature, passes
the objects it names (prompt, completion, answer, info, state, task and the task's row fields) and
awaits what it returns. make_rubric_func gives an async per-rollout function: the rollouts a
group scores concurrently are micro-batched into one POST /v1/score. make_group_func gives an
async group function (its plural parameters make verifiers call it once per group with
prompts/completions/answers/infos) that sends the group in one request. Both share one
AsyncArbiterClient (keep-alive connections per event loop).

For v1 tasks (`@vf.reward async def reward(self, trace)`), await arbiter_score(...) inside the
method with the trace's completion text and the task's fields.

The grader sees item = {answer, label (= answer), info, prompt, and the row's other plain-JSON
fields}, sample = the completion (a string, or messages: graded on the last assistant message).
The Rubric turns a raised exception into a 0.0 reward (and logs it), and cannot take None, so a
sample the server cannot grade gets the fallback (ARBITER_FALLBACK_REWARD, default 0.0).
"""
import os
import sys

try:
    from arbiter_client import AsyncArbiterClient, MicroBatcher, completion_sample, fallback_from_env, reward_of, to_json_value
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from arbiter_client import AsyncArbiterClient, MicroBatcher, completion_sample, fallback_from_env, reward_of, to_json_value

# objects verifiers passes that are not task data
NOT_FIELDS = ("prompt", "completion", "answer", "info", "state", "task", "parser", "prompts", "completions", "answers", "infos", "states", "tasks")

_batcher = None


def shared_batcher():
    """The module's one MicroBatcher over one AsyncArbiterClient (built on first use)."""
    global _batcher
    if _batcher is None:
        _batcher = MicroBatcher(AsyncArbiterClient())
    return _batcher


def _plain(v):
    if v is None or isinstance(v, (str, bool, int, float)):
        return True
    if isinstance(v, (list, tuple)):
        return all(_plain(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _plain(x) for k, x in v.items())
    return False


def _item(answer, info, prompt, extra):
    item = {k: v for k, v in extra.items() if k not in NOT_FIELDS and _plain(v)}
    item.update(answer=to_json_value(answer), label=to_json_value(answer), info=to_json_value(info if info is not None else {}))
    if prompt is not None:
        item["prompt"] = to_json_value(prompt)
    return item


def _fallback(fallback):
    fb = fallback_from_env(0.0) if fallback is None else fallback
    return 0.0 if fb is None else fb


async def arbiter_score(completion, item, grader=None, fallback=None, batcher=None):
    """The reward for one completion (string or messages) against `item`; awaitable anywhere."""
    result = await (batcher or shared_batcher()).grade(grader, item, completion_sample(completion))
    return reward_of(result, _fallback(fallback))


def make_rubric_func(grader=None, fallback=None, name=None, batcher=None):
    """An async verifiers reward function (one rollout per call, batched across a group)."""

    async def arbiter_reward(completion, answer="", info=None, prompt=None, **kwargs) -> float:
        return await arbiter_score(completion, _item(answer, info, prompt, kwargs), grader, fallback, batcher)

    arbiter_reward.__name__ = name or ("arbiter_" + (grader or "default")).replace("/", "_")
    return arbiter_reward


def make_group_func(grader=None, fallback=None, name=None, client=None):
    """An async verifiers group reward function: one /v1/score request per group."""

    async def arbiter_group_reward(completions, answers=None, infos=None, prompts=None, **kwargs) -> list:
        n = len(completions)
        answers = answers if answers is not None else [""] * n
        infos = infos if infos is not None else [{}] * n
        samples = [
            {"id": i, "item": _item(answers[i], infos[i], prompts[i] if prompts is not None else None, {}), "sample": completion_sample(completions[i])}
            for i in range(n)
        ]
        results = await (client or shared_batcher().client).score(grader, samples)
        fb = _fallback(fallback)
        return [reward_of(r, fb) for r in results]

    arbiter_group_reward.__name__ = name or ("arbiter_group_" + (grader or "default")).replace("/", "_")
    return arbiter_group_reward
