"""slime's remote reward model call, reproduced from its source (slime/rollout/rm_hub/__init__.py
remote_rm and slime/utils/types.py Sample.get_reward_value, THUDM/slime commit 624b824), standard
library only.

remote_rm posts {"prompt": sample.prompt, "response": sample.response, "label": sample.label} to
--rm-url as JSON through one shared session (at most 64 connections, total timeout 120 s);
resp.raise_for_status(), then `await resp.json()` (aiohttp's json() raises ContentTypeError
unless the reply's content type is application/json) is the reward. On any exception it retries
with a backoff of min(2**attempt, 30) + random() seconds, 10 attempts in all, then raises. All the
samples of a rollout are scored concurrently (asyncio.gather). The reward used for training is
sample.reward, or sample.reward[--reward-key] when --reward-key is set.

Input (stdin): {"url", "samples": [{"prompt", "response", "label"}], "reward_key": null|"reward",
"backoff_scale": factor on the backoff (slime: 1)}.
"""
import asyncio
import json
import random
import sys
import urllib.error
import urllib.request

MAX_RETRIES = 10
TIMEOUT = 120
LIMIT = 64


class ContentTypeError(Exception):
    pass


def post_once(url, payload):
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
        mimetype = (resp.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if mimetype != "application/json":
            raise ContentTypeError("Attempt to decode JSON with unexpected mimetype: %s" % mimetype)
        return json.loads(resp.read().decode()), dict(resp.headers)


async def remote_rm(url, sample, sem, scale, log):
    payload = {"prompt": sample["prompt"], "response": sample["response"], "label": sample["label"]}
    for attempt in range(MAX_RETRIES):
        try:
            async with sem:
                return await asyncio.to_thread(post_once, url, payload)
        except Exception as e:
            log.append(e.code if isinstance(e, urllib.error.HTTPError) else repr(e))
            if attempt + 1 >= MAX_RETRIES:
                raise
            await asyncio.sleep((min(2**attempt, 30) + random.random()) * scale)


async def main_async(cmd):
    sem = asyncio.Semaphore(LIMIT)
    logs = [[] for _ in cmd["samples"]]

    async def one(i, s):
        try:
            reward, headers = await remote_rm(cmd["url"], s, sem, cmd.get("backoff_scale", 1.0), logs[i])
        except Exception as e:
            return {"raised": repr(e), "attempts": len(logs[i])}
        key = cmd.get("reward_key")
        value = reward if not key else reward[key]
        return {"reward": reward, "value": value, "value_type": type(value).__name__, "valid_header": headers.get("x-arbiter-valid"), "attempts": len(logs[i]) + 1}

    return await asyncio.gather(*[one(i, s) for i, s in enumerate(cmd["samples"])])


if __name__ == "__main__":
    json.dump(asyncio.run(main_async(json.load(sys.stdin))), sys.stdout)
