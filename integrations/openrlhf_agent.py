"""OpenRLHF agent file backed by an arbiter server: single-step episodes graded by the server.

    python3 -m openrlhf.cli.train_ppo_ray ... \
        --train.agent_func_path /path/to/arbiter/integrations/openrlhf_agent.py

OpenRLHF (openrlhf/trainer/ray/vllm_engine.py, _load_agent_executor) loads the file by path and
instantiates its AgentExecutor, a MultiTurnAgentExecutor over AgentInstance. Each step posts
{query: [observation + action], prompts: [observation], labels: [label]} to POST /get_reward (so
EOS/padding tokens are stripped as in HTTP mode) over one asyncio client with keep-alive
connections, and ends the episode (done=True) with the reward as a float tensor, which OpenRLHF
reads with .item(). Needs openrlhf and torch (present wherever OpenRLHF runs). Environment as for
openrlhf_reward.py (ARBITER_URL, ARBITER_TOKEN, ARBITER_GRADER).
"""
import os
import sys

import torch
from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

try:
    from arbiter_client import AsyncArbiterClient, to_json_value
    from openrlhf_reward import get_reward_path
except ImportError:  # loaded by path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from arbiter_client import AsyncArbiterClient, to_json_value
    from openrlhf_reward import get_reward_path

_client = None


def _get_client():
    global _client
    if _client is None:
        _client = AsyncArbiterClient()
    return _client


class AgentInstance(AgentInstanceBase):
    def __init__(self, *args, **kwargs):
        pass

    async def reset(self, states: dict, **kwargs):
        return {"observation": states["observation"]}

    async def step(self, states: dict, **kwargs):
        observation = states["observation_text"]
        action = states["action_text"]
        body = {"query": [observation + action], "prompts": [observation], "labels": [to_json_value(states.get("label"))]}
        res = await _get_client().post(get_reward_path(), body)
        reward = float(res["rewards"][0])
        return {
            "rewards": torch.tensor([reward], dtype=torch.float32),
            "scores": torch.tensor([float(res.get("scores", res["rewards"])[0])], dtype=torch.float32),
            "environment_feedback": "",
            "done": True,
            "sampling_params": states.get("sampling_params", None),
            "extra_logs": {k: torch.tensor([float(v[0])], dtype=torch.float32) for k, v in (res.get("extra_logs") or {}).items()},
        }


class AgentExecutor(MultiTurnAgentExecutor):
    def __init__(self):
        super().__init__(AgentInstance)
