"""Test driver: loads the integrations the way trainers do and runs one scenario read from stdin.

verl loads its custom reward function by file path (importlib), so verl_reward.py is loaded that
way here, without integrations/ on sys.path. Prints the scenario's result as JSON on stdout.
"""
import asyncio
import importlib.util
import json
import os
import sys
import threading

INTEGRATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integrations")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(INTEGRATIONS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    cmd = json.load(sys.stdin)
    kind = cmd["kind"]
    if kind == "verl_single":
        verl = load("verl_reward")
        out = [verl.compute_score(s["data_source"], s["solution_str"], s["ground_truth"], s.get("extra_info")) for s in cmd["samples"]]
    elif kind == "verl_batch":
        verl = load("verl_reward")
        s = cmd["samples"]
        out = verl.compute_score_batch([x["data_source"] for x in s], [x["solution_str"] for x in s], [x["ground_truth"] for x in s], [x.get("extra_info") for x in s])
    elif kind == "trl":
        trl = load("trl_reward")
        kwargs = dict(cmd["columns"])
        kwargs["trainer_state"] = object()  # TRL passes non-column objects too; they must be ignored
        fn = trl.make_reward_func(**cmd.get("make", {}))
        out = {"name": fn.__name__, "rewards": fn(cmd["prompts"], cmd["completions"], **kwargs)}
    elif kind == "verl_parallel":
        verl = load("verl_reward")
        results = [None] * cmd["threads"]

        def work(i):
            results[i] = verl.compute_score(cmd["data_source"], "A: %d" % i, str(i))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(cmd["threads"])]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out = results
    elif kind in ("groups", "advantages"):
        client = load("arbiter_client")
        args = cmd["args"]
        sync = client.ArbiterClient()
        if kind == "groups":
            blocking = sync.groups(**args)
        else:
            blocking = sync.advantages(**args)

        async def run_async():
            c = client.AsyncArbiterClient()
            try:
                return await (c.groups(**args) if kind == "groups" else c.advantages(**args))
            finally:
                await c.aclose()

        out = {"sync": blocking, "async": asyncio.run(run_async())}
    else:
        raise SystemExit("unknown scenario " + kind)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
