"""NeMo-Gym resources server that is an `arbiter serve` (Python standard library only).

NeMo-Gym starts each server of its config with `python app.py` in the server's folder, giving it
its config in NEMO_GYM_CONFIG_DICT (YAML) and its name in NEMO_GYM_CONFIG_PATH. This launcher
reads its own entry -- host, port, `graders` (arbiter --grader specs) and optional `arbiter_args`
(more `arbiter serve` flags) -- and replaces itself with `arbiter serve` on that host and port
(ARBITER_BIN overrides the command, e.g. "node /path/to/arbiter/dist/cli/main.js"). Agents then
call the server's /seed_session, /verify and /aggregate_metrics as for any resources server.

Install: copy or link this folder to resources_servers/arbiter/ in your NeMo-Gym tree, and add
configs/arbiter.yaml to the config paths (see integrations/README.md).
"""
import json
import os
import shlex
import sys


def load_config(text):
    try:  # NeMo-Gym's environment has omegaconf; JSON (a subset of YAML) is read without it
        from omegaconf import OmegaConf

        return OmegaConf.to_container(OmegaConf.create(text), resolve=True)
    except ImportError:
        return json.loads(text)


def serve_command(config, name):
    entry = config[name]["resources_servers"]
    inner = entry[next(iter(entry))]
    graders = inner.get("graders") or []
    if isinstance(graders, str):
        graders = [graders]
    if not graders:
        raise SystemExit("arbiter resources server %r: set `graders` (a list of [name=]path.json specs)" % name)
    cmd = shlex.split(os.environ.get("ARBITER_BIN", "arbiter")) + ["serve", "--host", str(inner["host"]), "--port", str(inner["port"])]
    for g in graders:
        cmd += ["--grader", str(g)]
    cmd += [str(a) for a in inner.get("arbiter_args") or []]
    return cmd


def main():
    config = load_config(os.environ["NEMO_GYM_CONFIG_DICT"])
    cmd = serve_command(config, os.environ["NEMO_GYM_CONFIG_PATH"])
    sys.stderr.write("arbiter resources server: %s\n" % " ".join(shlex.quote(c) for c in cmd))
    sys.stderr.flush()
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    main()
