"""Clients for an arbiter reward server (Python standard library only).

Used by the trainer integrations in this folder:

- ArbiterClient: blocking, urllib; for trainers that call reward functions from threads (verl's
  legacy managers, TRL, OpenRLHF's reward-function file).
- AsyncArbiterClient: asyncio, HTTP/1.1 with keep-alive connections reused per event loop; for
  trainers that await reward functions (verl's reward loop, verifiers, OpenRLHF agents).
- MicroBatcher: collects concurrent per-sample calls made within a few milliseconds into one
  POST /v1/score request per grader.

Both clients post to the server, retry on 429 (waiting Retry-After), 502/503/504, connection errors
and timeouts, and raise ArbiterError when the server cannot be reached or refuses the request (an
unknown grader is 404, a wrong token 401), so a trainer never trains on made-up rewards.
Values are converted to JSON first (to_json_value): numpy scalars and arrays, pydantic models,
dataclasses, tuples and sets become JSON values, non-finite floats become null.

Environment: ARBITER_URL (default http://127.0.0.1:8000), ARBITER_TOKEN, ARBITER_TIMEOUT (seconds
per request, default 120), ARBITER_RETRIES (default 8), ARBITER_MAX_BATCH (samples per request,
default 1024; larger batches go in chunks), ARBITER_MAX_CONNECTIONS (async, per event loop,
default 64), ARBITER_BATCH_WAIT_MS (MicroBatcher wait, default 5).
"""
import asyncio
import dataclasses
import json
import math
import os
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping

RETRY_STATUS = (429, 502, 503, 504)
_DEFAULT = object()  # "not given": the server's default advantage config


class ArbiterError(RuntimeError):
    """The server could not be reached, or it refused the request (bad grader name, bad body)."""


def to_json_value(o):
    """`o` as plain JSON values (numpy, pydantic, dataclasses, sets; NaN/inf -> None)."""
    if o is None or isinstance(o, (bool, str)):
        return o
    if isinstance(o, int):
        return int(o)
    if isinstance(o, float):
        return float(o) if math.isfinite(o) else None
    if isinstance(o, Mapping):
        return {k if isinstance(k, str) else str(to_json_value(k)): to_json_value(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [to_json_value(x) for x in o]
    if isinstance(o, (set, frozenset)):
        items = [to_json_value(x) for x in o]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(o, (bytes, bytearray)):
        return o.decode("utf-8", "replace")
    tolist = getattr(o, "tolist", None)  # numpy arrays and scalars: np.int64(7).tolist() == 7
    if callable(tolist):
        return to_json_value(tolist())
    dump = getattr(o, "model_dump", None)  # pydantic v2 models (verifiers messages)
    if callable(dump):
        return to_json_value(dump())
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return to_json_value(dataclasses.asdict(o))
    return str(o)


def encode(body):
    return json.dumps(to_json_value(body), allow_nan=False, separators=(",", ":")).encode("utf-8")


def _env_float(name, default):
    raw = os.environ.get(name)
    return float(raw) if raw not in (None, "") else float(default)


def _retry_after(value, default):
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
    return default


class _Config:
    def __init__(self, url, token, timeout, retries, max_batch):
        self.url = (url or os.environ.get("ARBITER_URL") or "http://127.0.0.1:8000").rstrip("/")
        self.token = token if token is not None else os.environ.get("ARBITER_TOKEN") or None
        self.timeout = float(timeout if timeout is not None else _env_float("ARBITER_TIMEOUT", 120))
        self.retries = int(retries if retries is not None else os.environ.get("ARBITER_RETRIES", "8"))
        self.max_batch = max(1, int(max_batch if max_batch is not None else os.environ.get("ARBITER_MAX_BATCH", "1024")))

    def headers(self, n):
        h = {"Content-Type": "application/json", "Content-Length": str(n)}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        return h

    @staticmethod
    def _listed(got, key, n, what):
        # the reply's list under `key`, which must hold exactly n entries (one per one sent)
        items = got.get(key) if isinstance(got, dict) else None
        if not isinstance(items, list) or len(items) != n:
            raise ArbiterError("arbiter returned %r %s for %d%s" % (None if items is None else len(items), key, n, what))
        return items

    def check_results(self, got, n):
        return self._listed(got, "results", n, " samples")

    def score_body(self, grader, chunk):
        body = {"samples": chunk}
        if grader:
            body["grader"] = grader
        return body

    def groups_body(self, grader, samples, advantages, global_step):
        # a group must arrive in one request (its advantages need all of its samples): no chunking
        body = self.score_body(grader, samples)
        if advantages is not _DEFAULT:
            body["advantages"] = advantages
        if global_step is not None:
            body["global_step"] = int(global_step)
        return body

    def check_groups(self, got, n):
        self.check_results(got, n)
        return got

    def check_advantages(self, got, n):
        self._listed(got, "records", n, "")
        return got


class ArbiterClient(_Config):
    """Blocking client (urllib): one request at a time per call, safe to share between threads."""

    def __init__(self, url=None, token=None, timeout=None, retries=None, max_batch=None):
        super().__init__(url, token, timeout, retries, max_batch)

    def post(self, path, body):
        data = encode(body)
        headers = self.headers(len(data))
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
                wait = _retry_after(e.headers.get("Retry-After"), delay)
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
            results.extend(self.check_results(self.post("/v1/score", self.score_body(grader, chunk)), len(chunk)))
        return results

    def groups(self, samples, grader=None, advantages=_DEFAULT, global_step=None):
        """Grades prompt groups in one POST /v1/groups: samples [{"id", "uid", "item", "sample"}].

        `advantages`: an advantage config ({"estimator": "grpo", ...}; None for scores only; left
        out, the server's default). Returns the response: {"grader", "estimator", "results" (in
        order, each with "advantage"), "summary"}.
        """
        return self.check_groups(self.post("/v1/groups", self.groups_body(grader, samples, advantages, global_step)), len(samples))

    def advantages(self, config, records):
        """Advantages for scored records [{"id", "uid", "score", ...}] (POST /v1/advantages).

        Returns {"estimator", "records" (in order, each with "advantage"), "summary"}.
        """
        return self.check_advantages(self.post("/v1/advantages", {"config": config, "records": records}), len(records))


class _Pool:
    def __init__(self, limit):
        self.idle = []
        self.sem = asyncio.Semaphore(limit)


class _Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body


class AsyncArbiterClient(_Config):
    """asyncio client: HTTP/1.1 keep-alive connections, pooled per event loop (at most
    ARBITER_MAX_CONNECTIONS each), so concurrent reward calls share a few warm connections."""

    def __init__(self, url=None, token=None, timeout=None, retries=None, max_batch=None, max_connections=None):
        super().__init__(url, token, timeout, retries, max_batch)
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("ARBITER_URL must be an http:// or https:// URL, got %r" % self.url)
        self._tls = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._tls else 80)
        self._base = parts.path.rstrip("/")
        self._host_header = parts.netloc
        self.max_connections = int(max_connections if max_connections is not None else os.environ.get("ARBITER_MAX_CONNECTIONS", "64"))
        self._pools = {}
        self.connections_opened = 0  # for tests and logs: how many TCP connections were made

    def __getstate__(self):  # picklable: connections stay with the process that opened them
        d = self.__dict__.copy()
        d["_pools"] = {}
        return d

    def _pool(self):
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            for old in [lp for lp in self._pools if lp.is_closed()]:
                del self._pools[old]
            pool = self._pools[loop] = _Pool(self.max_connections)
        return pool

    async def _connect(self):
        ctx = ssl.create_default_context() if self._tls else None
        reader, writer = await asyncio.open_connection(self._host, self._port, ssl=ctx, limit=2**24)
        self.connections_opened += 1
        return reader, writer

    async def _roundtrip(self, conn, path, data):
        reader, writer = conn
        head = "POST %s HTTP/1.1\r\nHost: %s\r\n" % (self._base + path, self._host_header)
        for k, v in self.headers(len(data)).items():
            head += "%s: %s\r\n" % (k, v)
        writer.write(head.encode("latin-1") + b"\r\n" + data)
        await writer.drain()
        line = await reader.readline()
        if not line:
            raise ConnectionResetError("the server closed the connection")
        parts = line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            raise ConnectionError("malformed HTTP status line %r" % line[:80])
        status = int(parts[1])
        headers = {}
        while True:
            h = await reader.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            k, _, v = h.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()
        keep = headers.get("connection", "").lower() != "close" and parts[0] != "HTTP/1.0"
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(await reader.readexactly(size))
                await reader.readexactly(2)
            body = b"".join(chunks)
        elif "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        else:
            body = await reader.read()
            keep = False
        return _Reply(status, headers, body), keep

    async def _request(self, path, data):
        pool = self._pool()
        async with pool.sem:
            for fresh in (False, True):
                conn = None if fresh or not pool.idle else pool.idle.pop()
                reused = conn is not None
                if conn is None:
                    conn = await asyncio.wait_for(self._connect(), self.timeout)
                try:
                    reply, keep = await asyncio.wait_for(self._roundtrip(conn, path, data), self.timeout)
                except (ConnectionError, asyncio.IncompleteReadError, OSError):
                    conn[1].close()
                    if reused:
                        continue  # a kept-alive connection the server had closed: retry once on a new one
                    raise
                except BaseException:
                    conn[1].close()
                    raise
                if keep:
                    pool.idle.append(conn)
                else:
                    conn[1].close()
                return reply
        raise ConnectionError("unreachable")

    async def post(self, path, body):
        data = encode(body)
        delay = 0.5
        last = None
        for attempt in range(self.retries + 1):
            try:
                reply = await self._request(path, data)
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError, OSError) as e:
                last = repr(e)
                wait = delay
            else:
                if 200 <= reply.status < 300:
                    return json.loads(reply.body.decode("utf-8"))
                detail = reply.body.decode("utf-8", "replace")[:500]
                if reply.status not in RETRY_STATUS:
                    raise ArbiterError("arbiter %s%s: HTTP %d: %s" % (self.url, path, reply.status, detail))
                last = "HTTP %d: %s" % (reply.status, detail)
                wait = _retry_after(reply.headers.get("retry-after"), delay)
            if attempt < self.retries:
                await asyncio.sleep(min(wait, 30.0))
                delay = min(delay * 2, 10.0)
        raise ArbiterError("arbiter %s%s failed after %d attempts: %s" % (self.url, path, self.retries + 1, last))

    async def score(self, grader, samples):
        """Grades [{"id", "item", "sample"}] with the named grader (None = server default), in order."""
        chunks = [samples[i:i + self.max_batch] for i in range(0, len(samples), self.max_batch)]
        replies = await asyncio.gather(*[self.post("/v1/score", self.score_body(grader, c)) for c in chunks])
        results = []
        for c, got in zip(chunks, replies):
            results.extend(self.check_results(got, len(c)))
        return results

    async def groups(self, samples, grader=None, advantages=_DEFAULT, global_step=None):
        """As ArbiterClient.groups (one POST /v1/groups)."""
        return self.check_groups(await self.post("/v1/groups", self.groups_body(grader, samples, advantages, global_step)), len(samples))

    async def advantages(self, config, records):
        """As ArbiterClient.advantages (POST /v1/advantages)."""
        return self.check_advantages(await self.post("/v1/advantages", {"config": config, "records": records}), len(records))

    async def aclose(self):
        """Closes this event loop's idle connections."""
        pool = self._pools.pop(asyncio.get_running_loop(), None)
        for _, writer in pool.idle if pool else []:
            writer.close()


class _Pending:
    def __init__(self):
        self.groups = {}
        self.timer = None
        self.tasks = set()


class MicroBatcher:
    """Turns concurrent one-sample calls into batched /v1/score requests.

    `await batcher.grade(grader, item, sample)` queues the sample; the queue of each event loop is
    sent `wait_ms` after its first sample arrived (or as soon as a grader has max_batch samples),
    one request per grader. Each caller gets its own result, or the request's ArbiterError.
    """

    def __init__(self, client=None, wait_ms=None, max_batch=None):
        self.client = client or AsyncArbiterClient()
        self.wait_s = (wait_ms if wait_ms is not None else _env_float("ARBITER_BATCH_WAIT_MS", 5)) / 1000.0
        self.max_batch = max_batch or self.client.max_batch
        self._pending = {}
        self.requests_sent = 0

    def __getstate__(self):
        d = self.__dict__.copy()
        d["_pending"] = {}
        return d

    async def grade(self, grader, item, sample):
        loop = asyncio.get_running_loop()
        state = self._pending.get(loop)
        if state is None:
            for old in [lp for lp in self._pending if lp.is_closed()]:
                del self._pending[old]
            state = self._pending[loop] = _Pending()
        fut = loop.create_future()
        group = state.groups.setdefault(grader, [])
        group.append(({"id": len(group), "item": item, "sample": sample}, fut))
        if len(group) >= self.max_batch:
            self._send(state, grader, state.groups.pop(grader))
        elif state.timer is None:
            state.timer = loop.call_later(self.wait_s, self._flush, state)
        return await fut

    def _flush(self, state):
        state.timer = None
        groups, state.groups = state.groups, {}
        for grader, group in groups.items():
            self._send(state, grader, group)

    def _send(self, state, grader, group):
        self.requests_sent += 1
        task = asyncio.ensure_future(self._run(grader, group))
        state.tasks.add(task)
        task.add_done_callback(state.tasks.discard)

    async def _run(self, grader, group):
        try:
            results = await self.client.score(grader, [s for s, _ in group])
        except BaseException as e:  # every waiting caller sees the failure
            for _, fut in group:
                if not fut.done():
                    fut.set_exception(e if isinstance(e, Exception) else ArbiterError(repr(e)))
            return
        for (_, fut), r in zip(group, results):
            if not fut.done():
                fut.set_result(r)


def reward_of(result, fallback):
    """The reward for one result: its score when valid, else the fallback."""
    if result.get("valid") and isinstance(result.get("score"), (int, float)) and not isinstance(result.get("score"), bool):
        return float(result["score"])
    return fallback


def fallback_from_env(default=0.0):
    """ARBITER_FALLBACK_REWARD: a number, or "none" (the trainer then treats the sample as unscored)."""
    raw = os.environ.get("ARBITER_FALLBACK_REWARD")
    if raw is None or raw == "":
        return default
    if raw.lower() == "none":
        return None
    return float(raw)


def _field(obj, key, default=None):
    """obj[key] for dicts and for dict-like message objects (verifiers' pydantic messages)."""
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    getter = getattr(obj, "get", None)
    if callable(getter):
        try:
            return getter(key, default)
        except TypeError:
            pass
    return getattr(obj, key, default)


def content_text(content):
    """The text of a message content: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif _field(part, "type") in ("text", "output_text", "input_text"):
                text = _field(part, "text")
                if isinstance(text, str):
                    out.append(text)
        return "".join(out)
    return str(content)


def completion_sample(completion):
    """sample for a completion: a string, one chat message, or a list of chat messages (graded on
    the last assistant message; its tool calls become output_tools; the messages go in
    sample.messages)."""
    if isinstance(completion, str):
        return {"output_text": completion}
    if not isinstance(completion, (list, tuple)) and _field(completion, "role") is not None:
        completion = [completion]
    if isinstance(completion, (list, tuple)):
        sample = {"output_text": "", "messages": to_json_value(list(completion))}
        for msg in reversed(completion):
            if _field(msg, "role") == "assistant":
                sample["output_text"] = content_text(_field(msg, "content"))
                tools = _field(msg, "tool_calls")
                if tools:
                    sample["output_tools"] = to_json_value(list(tools))
                break
        return sample
    return {"output_text": content_text(completion)}
