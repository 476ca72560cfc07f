"""TRL reward function backed by an arbiter server (Python standard library only).

    from trl import GRPOTrainer
    from trl_reward import make_reward_func      # integrations/ on PYTHONPATH
    trainer = GRPOTrainer(..., reward_funcs=[make_reward_func(grader="gsm8k", label_key="answer")])

TRL calls reward_func(prompts, completions, **columns): every dataset column arrives as a keyword
list with one entry per completion. The grader sees item = all those columns (plus "prompt", and
"label" taken from label_key, default the first of label/answer/solution/ground_truth present)
and sample.output_text = the completion (for conversational completions: the last assistant
message's content; the messages go in sample.messages). Ungradable samples get the fallback
(ARBITER_FALLBACK_REWARD, default 0.0; "none" returns None, which TRL ignores for that sample).
"""
import os
import sys

try:
    from arbiter_client import ArbiterClient, fallback_from_env, reward_of
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from arbiter_client import ArbiterClient, fallback_from_env, reward_of

LABEL_KEYS = ("label", "answer", "solution", "ground_truth")
NOT_COLUMNS = ("prompts", "completions", "completion_ids", "trainer_state")
_UNSET = object()


def _text_of(completion):
    if isinstance(completion, str):
        return completion, None
    if isinstance(completion, list):
        for msg in reversed(completion):
            if isinstance(msg, dict) and msg.get("role") == "assistant":
                content = msg.get("content")
                return (content if isinstance(content, str) else "", completion)
        return "", completion
    return str(completion), None


def make_reward_func(grader=None, url=None, token=None, label_key=None, fallback=_UNSET, name=None):
    """Returns a TRL reward function that grades completions with the server grader `grader`."""
    client = ArbiterClient(url=url, token=token)
    fb = fallback_from_env(0.0) if fallback is _UNSET else fallback

    def reward_func(prompts, completions, **kwargs):
        n = len(completions)
        columns = {k: v for k, v in kwargs.items() if k not in NOT_COLUMNS and isinstance(v, list) and len(v) == n}
        key = label_key or next((k for k in LABEL_KEYS if k in columns), None)
        samples = []
        for i, completion in enumerate(completions):
            item = {k: v[i] for k, v in columns.items()}
            if prompts is not None and i < len(prompts):
                item["prompt"] = prompts[i]
            if key is not None and key in columns:
                item["label"] = columns[key][i]
            text, messages = _text_of(completion)
            sample = {"output_text": text}
            if messages is not None:
                sample["messages"] = messages
            samples.append({"id": i, "item": item, "sample": sample})
        return [reward_of(r, fb) for r in client.score(grader, samples)]

    reward_func.__name__ = name or ("arbiter_" + (grader or "default")).replace("/", "_")
    return reward_func


def arbiter_reward(prompts, completions, **kwargs):
    """A ready-made reward function using ARBITER_GRADER (default: the server's default grader)."""
    return make_reward_func(grader=os.environ.get("ARBITER_GRADER") or None)(prompts, completions, **kwargs)
