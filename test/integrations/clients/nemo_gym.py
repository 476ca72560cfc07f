"""NeMo-Gym's calls to a resources server, reproduced from its source (NVIDIA-NeMo/Gym commit
07d6b0d: responses_api_agents/simple_agent/app.py SimpleAgent.run, nemo_gym/server_utils.py,
nemo_gym/base_resources_server.py), and NeMo-RL's check of multi-reward results (NVIDIA-NeMo/RL
commit 7ea279a, nemo_rl/environments/nemo_gym.py), standard library only.

SimpleAgent.run posts the run request row (responses_create_params + the task's fields) to
/seed_session and raise_for_status()es, gets the model's Responses-API object, then posts
row | {"response": <that object>} to /verify, raise_for_status(), orjson.loads the body and
validates it as SimpleAgentVerifyResponse (a BaseVerifyResponse: responses_create_params,
response, reward: float; extra fields kept). With observability on, resources-server paths get a
/ng-rollout/<rollout id> prefix. Rollout collection then posts {"verify_responses": [...]} to
/aggregate_metrics. 4xx/5xx replies are not retried (raise_for_status is outside request()'s
retry loop).

Input (stdin): {"url", "rows": [row], "responses": [Responses-API object], "prefix": "" or
"/ng-rollout/<id>", "query": optional "?grader=NAME"}.
"""
import json
import math
import sys
import urllib.error
import urllib.request


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=600) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:  # raise_for_status
        return e.code, json.loads(e.read() or b"null")


def validate_verify_response(v):
    """What pydantic checks for BaseVerifyResponse, strictly: reward must arrive as a float."""
    problems = []
    for k in ("responses_create_params", "response"):
        if not isinstance(v.get(k), dict):
            problems.append("%s missing" % k)
    if type(v.get("reward")) is not float:
        problems.append("reward is %s, not float" % type(v.get("reward")).__name__)
    if "reward_components" in v:
        comp = v["reward_components"]
        if not all(type(x) is float for x in comp.values()):
            problems.append("reward_components not all floats")
        # NeMo-RL (nemo_rl/environments/nemo_gym.py validate_reward_components_match_scalar)
        elif not math.isclose(float(v["reward"]), sum(comp.values()), rel_tol=1e-5, abs_tol=1e-6):
            problems.append("reward is not the sum of reward_components (NeMo-RL raises ValueError)")
    return problems


def main():
    cmd = json.load(sys.stdin)
    base = cmd["url"] + cmd.get("prefix", "")
    q = cmd.get("query", "")  # not something NeMo-Gym sends: lets a test pick a grader
    out = []
    verified = []
    for row, response in zip(cmd["rows"], cmd["responses"]):
        status, seed = post(base + "/seed_session" + q, row)
        if status != 200:
            out.append({"seed_status": status, "seed": seed})
            continue
        status, v = post(base + "/verify" + q, {**row, "response": response})
        out.append({"seed": seed, "status": status, "verify": v, "problems": validate_verify_response(v) if status == 200 else None})
        if status == 200:
            verified.append(v)
    status, metrics = post(base + "/aggregate_metrics" + q, {"verify_responses": verified})
    json.dump({"rollouts": out, "aggregate_status": status, "aggregate": metrics}, sys.stdout)


if __name__ == "__main__":
    main()
