"""LLaMA-Factory's PPO reward-server call, reproduced from its source (hiyouga/LLaMA-Factory commit
ff6d4d1: src/llamafactory/train/ppo/ppo_utils.py get_rewards_from_server, and
src/llamafactory/train/ppo/trainer.py get_rewards with reward_model_type "api"), standard library
only.

For each mini-batch, get_rewards decodes every query + response pair together with
tokenizer.batch_decode(..., skip_special_tokens=False) and calls get_rewards_from_server(url,
messages): requests.post(url, json={"model": "model", "messages": messages}, headers={"Content-Type":
"application/json"}) (no timeout, no retry, the status is not checked), then
json.loads(response.text)["scores"] made into torch.Tensor(rewards) (float32). The trainer extends
its reward list with the tensor's elements and logs torch.stack(rewards).mean().item().

Input (stdin): {"url", "batches": [[text, ...], ...]}. Output: {"rewards": [float32 values as
floats], "types": [Python type names of the parsed scores], "mean": float} or {"error": "KeyError:
'scores'", "status": HTTP status, "body": the reply text} where LLaMA-Factory would raise.
"""
import array
import json
import sys
import urllib.error
import urllib.request


def post(url, payload, headers):
    """requests.post(url, json=payload, headers=headers): the JSON body, whatever the status."""
    data = json.dumps(payload, allow_nan=False).encode("utf-8")
    req = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, resp.read().decode("utf-8")
    except urllib.error.HTTPError as e:  # requests does not raise on an error status
        return e.code, e.read().decode("utf-8")


def get_rewards_from_server(server_url, messages, seen):
    headers = {"Content-Type": "application/json"}
    payload = {"model": "model", "messages": messages}
    seen["status"], seen["body"] = post(server_url, payload, headers)
    return json.loads(seen["body"])["scores"]


def main():
    cmd = json.load(sys.stdin)
    rewards, types = [], []
    for messages in cmd["batches"]:
        seen = {}
        try:
            scores = get_rewards_from_server(cmd["url"], messages, seen)
        except KeyError as e:
            print(json.dumps({"error": "KeyError: " + repr(e.args[0]), "status": seen["status"], "body": seen["body"]}))
            return
        types.extend(type(s).__name__ for s in scores)
        tensor = array.array("f", scores)  # torch.Tensor(rewards): float32, raises on None
        rewards.extend(tensor)
    mean = array.array("f", [sum(rewards) / len(rewards)])[0] if rewards else None
    print(json.dumps({"rewards": list(rewards), "types": types, "mean": mean}))


if __name__ == "__main__":
    main()
