"""TRL reward functions backed by an arbiter server (Python standard library only).

    from trl import GRPOTrainer
    from trl_reward import make_reward_func      # integrations/ on PYTHONPATH
    trainer = GRPOTrainer(..., reward_funcs=[make_reward_func(grader="gsm8k", label_key="answer")])

make_reward_func returns an ArbiterReward: a module-level class instance, so it pickles (TRL's
AsyncGRPOTrainer sends reward functions to a spawned rollout process; closures cannot go there).
TRL calls reward_func(prompts=..., completions=..., completion_ids=..., **columns, trainer_state,
log_extra, log_metric, environments): every dataset column arrives as a keyword list with one
entry per completion. The grader sees item = all those columns (plus "prompt", and "label" taken
from label_key, default the first of label/answer/solution/ground_truth present); TRL's own
objects (trainer_state, log_extra, log_metric, environments) are not item fields. The sample is
the completion text, or for conversational completions the last assistant message's content
(a string or a list of content parts, whose text parts are joined), its tool calls as
output_tools and the messages as sample.messages. A sample the server cannot grade gets None by
default, which TRL skips (NaN) for that reward function; fallback=... or ARBITER_FALLBACK_REWARD
sets a number instead.
"""
import os
import sys

try:
    from arbiter_client import ArbiterClient, completion_sample, fallback_from_env, reward_of, to_json_value
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from arbiter_client import ArbiterClient, completion_sample, fallback_from_env, reward_of, to_json_value

LABEL_KEYS = ("label", "answer", "solution", "ground_truth")
# keyword arguments TRL passes that are not dataset columns
NOT_COLUMNS = ("prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments")
_UNSET = object()


class ArbiterReward:
    """A TRL reward function grading completions with the server grader `grader` (picklable)."""

    def __init__(self, grader=None, url=None, token=None, label_key=None, fallback=_UNSET, name=None):
        self.grader = grader
        self.url = url
        self.token = token
        self.label_key = label_key
        self.fallback = fallback_from_env(None) if fallback is _UNSET else fallback
        # TRL names the reward's log columns after __name__ (rewards/<name>)
        self.__name__ = name or ("arbiter_" + (grader or "default")).replace("/", "_")
        self._client = None

    def __getstate__(self):
        d = self.__dict__.copy()
        d["_client"] = None  # rebuilt in the process that calls it
        return d

    def _get_client(self):
        if self._client is None:
            self._client = ArbiterClient(url=self.url, token=self.token)
        return self._client

    def __call__(self, prompts=None, completions=None, **kwargs):
        completions = list(completions or [])
        n = len(completions)
        columns = {k: v for k, v in kwargs.items() if k not in NOT_COLUMNS and isinstance(v, (list, tuple)) and len(v) == n}
        key = self.label_key or next((k for k in LABEL_KEYS if k in columns), None)
        samples = []
        for i, completion in enumerate(completions):
            item = {k: to_json_value(v[i]) for k, v in columns.items()}
            if prompts is not None and i < len(prompts):
                item["prompt"] = to_json_value(prompts[i])
            if key is not None and key in columns:
                item["label"] = to_json_value(columns[key][i])
            samples.append({"id": i, "item": item, "sample": completion_sample(completion)})
        return [reward_of(r, self.fallback) for r in self._get_client().score(self.grader, samples)]


def make_reward_func(grader=None, url=None, token=None, label_key=None, fallback=_UNSET, name=None):
    """Returns a TRL reward function that grades completions with the server grader `grader`."""
    return ArbiterReward(grader=grader, url=url, token=token, label_key=label_key, fallback=fallback, name=name)


def arbiter_reward(prompts=None, completions=None, **kwargs):
    """A ready-made reward function using ARBITER_GRADER (default: the server's default grader)."""
    return make_reward_func(grader=os.environ.get("ARBITER_GRADER") or None)(prompts=prompts, completions=completions, **kwargs)
