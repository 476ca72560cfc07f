"""verl's SandboxFusion reward client, reproduced from its source (volcengine/verl commit b178a3c,
verl/utils/reward_score/sandbox_fusion/utils.py: call_sandbox_api, _process_single_case,
check_correctness), standard library only; written for these tests, not copied.

call_sandbox_api refuses a language outside verl's list before any request, then POSTs
{compile_timeout, run_timeout, code, stdin, memory_limit_MB, language, files: {}, fetch_files: []}
with Content-Type and Accept application/json and a timeout of compile + run + 10 seconds. Only a
504 is retried: 3 attempts in all, sleeping 1 s then 2 s (INITIAL_RETRY_DELAY * (attempt + 1)) in
between; any other non-2xx (raise_for_status), a connection error or a reply that is not JSON
ends the loop at once with an "API Call Failed" error. _process_single_case maps the reply:
an API error or SandboxError -> -1; Failed with a compile result that is Error/TLE or Finished
with a non-zero code -> -4; Failed with a run TLE -> -3, run Error or non-zero exit -> -2;
Success with a Finished run -> True when stdout.rstrip("\\n") equals the expected output's, else
False. check_correctness runs the cases concurrently (compile and run share `timeout`) and marks
every case after the first compile error -4 ("compile_error_skipped"). (verl's fn_name wrapper,
which only rewrites the code, is not reproduced.)

Input (stdin): {"url", "cases": [{"stdin", "expected"}], "code", "language", "timeout",
"memory_limit_mb", "retry_delay_scale": factor on verl's sleeps (1 in verl)}.
Output: {"results": [...], "metadata": [{"status", "attempts", "api_request_error", "exit_code",
"stdout", "run_status", "compile_status"}]}.
"""
import concurrent.futures
import json
import sys
import time
import urllib.error
import urllib.request

MAX_RETRIES = 3
INITIAL_RETRY_DELAY = 1
API_TIMEOUT = 10
SUPPORTED_LANGUAGES = [
    "python", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash", "typescript", "sql", "rust", "cuda",
    "lua", "R", "perl", "D_ut", "ruby", "scala", "julia", "pytest", "junit", "kotlin_script", "jest", "verilog",
    "python_gpu", "lean", "swift", "racket",
]


def call_sandbox_api(url, code, stdin, compile_timeout, run_timeout, memory_limit_mb, language, scale):
    """Returns (response, error, attempts) as verl's call_sandbox_api returns (response, error)."""
    if language not in SUPPORTED_LANGUAGES:
        return None, "Unsupported language: %s" % language, 0
    payload = json.dumps({
        "compile_timeout": compile_timeout, "run_timeout": run_timeout, "code": code, "stdin": stdin,
        "memory_limit_MB": memory_limit_mb, "language": language, "files": {}, "fetch_files": [],
    }).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    request_timeout = compile_timeout + run_timeout + API_TIMEOUT
    last_error = None
    attempts = 0
    for attempt in range(MAX_RETRIES):
        attempts += 1
        try:
            req = urllib.request.Request(url, data=payload, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=request_timeout) as resp:
                    body = resp.read().decode()
            except urllib.error.HTTPError as e:
                if e.code == 504:
                    last_error = "API Request Error: Gateway Timeout (504) on attempt %d/%d" % (attempt + 1, MAX_RETRIES)
                    if attempt < MAX_RETRIES - 1:
                        time.sleep(INITIAL_RETRY_DELAY * (attempt + 1) * scale)
                    continue
                # raise_for_status: any other 4xx/5xx ends the loop
                last_error = "API Request Error: %d Error for url: %s" % (e.code, url)
                break
            try:
                return json.loads(body), None, attempts
            except ValueError as e:
                last_error = "API Response JSON Decode Error: %s" % e
                break
        except (urllib.error.URLError, OSError) as e:
            last_error = "API Request Error: %s" % e
            break
    return None, ("API Call Failed: " + last_error) if last_error else "API Call Failed after retries", attempts


def process_single_case(i, case, cmd):
    stdin = None if case.get("stdin") is None else str(case["stdin"])
    timeout = cmd.get("timeout", 10)
    response, error, attempts = call_sandbox_api(
        cmd["url"], cmd["code"], stdin, timeout, timeout, cmd.get("memory_limit_mb", 1024), cmd.get("language", "python"),
        cmd.get("retry_delay_scale", 1.0))
    meta = {"case_index": i, "status": "unknown", "attempts": attempts, "api_request_error": error, "exit_code": None,
            "stdout": None, "run_status": None, "compile_status": None, "api_status": None}
    expected = case.get("expected")
    result = -1
    if error:
        meta["status"] = "api_error"
    elif response:
        meta["api_status"] = response.get("status")
        compile_result = response.get("compile_result")
        run_result = response.get("run_result")
        if compile_result:
            meta["compile_status"] = compile_result.get("status")
        if run_result:
            meta["run_status"] = run_result.get("status")
            meta["stdout"] = run_result.get("stdout")
            meta["exit_code"] = run_result.get("return_code")
        status = meta["api_status"]
        if status == "SandboxError":
            meta["status"] = "sandbox_error"
        elif status == "Failed":
            is_compile_error = compile_result and (
                meta["compile_status"] in ["Error", "TimeLimitExceeded"]
                or (meta["compile_status"] == "Finished" and compile_result.get("return_code") != 0))
            if is_compile_error:
                meta["status"] = "compile_timeout" if meta["compile_status"] == "TimeLimitExceeded" else "compile_error"
                result = -4
            elif run_result:
                if meta["run_status"] == "TimeLimitExceeded":
                    meta["status"] = "timeout"
                    result = -3
                elif meta["run_status"] == "Error" or (meta["run_status"] == "Finished" and run_result.get("return_code") != 0):
                    meta["status"] = "runtime_error"
                    result = -2
                else:
                    meta["status"] = "unknown_failure"
            else:
                meta["status"] = "unknown_failure_state"
        elif status == "Success":
            if run_result and meta["run_status"] == "Finished":
                actual = meta["stdout"] if meta["stdout"] is not None else ""
                if expected is None or str(actual).rstrip("\n") == str(expected).rstrip("\n"):
                    result, meta["status"] = True, "success"
                else:
                    result, meta["status"] = False, "wrong_answer"
            else:
                meta["status"] = "unexpected_success_state"
        else:
            meta["status"] = "unknown_api_status_%s" % status
    else:
        meta["status"] = "unknown_api_state"
    return result, meta


def check_correctness(cmd):
    cases = cmd["cases"]
    results = [None] * len(cases)
    metadata = [None] * len(cases)
    first_compile_error = -1
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as ex:
        futures = {ex.submit(process_single_case, i, c, cmd): i for i, c in enumerate(cases)}
        for f in concurrent.futures.as_completed(futures):
            i = futures[f]
            results[i], metadata[i] = f.result()
            if results[i] == -4 and (first_compile_error == -1 or i < first_compile_error):
                first_compile_error = i
    if first_compile_error != -1:
        for i in range(first_compile_error + 1, len(cases)):
            if results[i] != -4:
                results[i] = -4
                metadata[i]["status"] = "compile_error_skipped"
    return {"results": results, "metadata": metadata}


if __name__ == "__main__":
    json.dump(check_correctness(json.load(sys.stdin)), sys.stdout)
