"""Minimal client for an arbiter reward server (Python standard library only).

Used by the verl and TRL integrations in this folder. It posts batches to POST /v1/score, retries
on 429 (honouring Retry-After), 502/503/504 and connection errors, and raises ArbiterError when
the server cannot be reached or refuses the request, so a trainer never silently trains on
made-up rewards.

Environment: ARBITER_URL (default http://127.0.0.1:8000), ARBITER_TOKEN, ARBITER_TIMEOUT
(seconds per request, default 120), ARBITER_RETRIES (default 8), ARBITER_MAX_BATCH (samples per
request, default 1024; larger batches are sent in chunks).
"""
import json
import os
import time
import urllib.error
import urllib.request

RETRY_STATUS = (429, 502, 503, 504)


class ArbiterError(RuntimeError):
    """The server could not be reached, or it refused the request (bad grader name, bad body)."""


class ArbiterClient:
    def __init__(self, url=None, token=None, timeout=None, retries=None, max_batch=None):
        self.url = (url or os.environ.get("ARBITER_URL") or "http://127.0.0.1:8000").rstrip("/")
        self.token = token if token is not None else os.environ.get("ARBITER_TOKEN") or None
        self.timeout = float(timeout if timeout is not None else os.environ.get("ARBITER_TIMEOUT", "120"))
        self.retries = int(retries if retries is not None else os.environ.get("ARBITER_RETRIES", "8"))
        self.max_batch = max(1, int(max_batch if max_batch is not None else os.environ.get("ARBITER_MAX_BATCH", "1024")))

    def post(self, path, body):
        data = json.dumps(body, default=str).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        delay = 0.5
        last = None
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(self.url + path, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                detail = e.read().decode("utf-8", "replace")[:500]
                if e.code not in RETRY_STATUS:
                    raise ArbiterError("arbiter %s%s: HTTP %d: %s" % (self.url, path, e.code, detail)) from None
                last = "HTTP %d: %s" % (e.code, detail)
                retry_after = e.headers.get("Retry-After")
                wait = float(retry_after) if retry_after and retry_after.replace(".", "", 1).isdigit() else delay
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
                last = repr(e)
                wait = delay
            if attempt < self.retries:
                time.sleep(min(wait, 30.0))
                delay = min(delay * 2, 10.0)
        raise ArbiterError("arbiter %s%s failed after %d attempts: %s" % (self.url, path, self.retries + 1, last))

    def score(self, grader, samples):
        """Grades [{"id", "item", "sample"}] with the named grader (None = server default).

        Returns the results in order: dicts with score, valid, error, components, metadata.
        """
        results = []
        for start in range(0, len(samples), self.max_batch):
            chunk = samples[start:start + self.max_batch]
            body = {"samples": chunk}
            if grader:
                body["grader"] = grader
            got = self.post("/v1/score", body).get("results")
            if not isinstance(got, list) or len(got) != len(chunk):
                raise ArbiterError("arbiter returned %r results for %d samples" % (None if got is None else len(got), len(chunk)))
            results.extend(got)
        return results


def reward_of(result, fallback):
    """The reward for one result: its score when valid, else the fallback."""
    if result.get("valid") and isinstance(result.get("score"), (int, float)):
        return float(result["score"])
    return fallback


def fallback_from_env(default=0.0):
    """ARBITER_FALLBACK_REWARD: a number, or "none" (TRL then treats the sample as unscored)."""
    raw = os.environ.get("ARBITER_FALLBACK_REWARD")
    if raw is None or raw == "":
        return default
    if raw.lower() == "none":
        return None
    return float(raw)
