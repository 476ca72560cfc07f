// Runs a Python script (standard library only) with a JSON command on stdin and parses the JSON it
// prints: how the trainer-faithful clients in clients/ and the integrations are driven.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLIENTS = fileURLToPath(new URL('./clients/', import.meta.url));
export const INTEGRATIONS = fileURLToPath(new URL('../../integrations/', import.meta.url));

export interface PyResult {
  code: number | null;
  out: any;
  stdout: string;
  stderr: string;
}

export function runPython(script: string, cmd: unknown, env: Record<string, string> = {}): Promise<PyResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      let out: unknown;
      try {
        out = JSON.parse(stdout);
      } catch {
        out = undefined;
      }
      resolve({ code, out, stdout, stderr });
    });
    child.stdin.end(JSON.stringify(cmd));
  });
}

/** Python's type names for the values at each path of each body (json.loads, as trainers parse). */
export async function pythonTypes(docs: { text: string; paths: string[] }[]): Promise<Record<string, string[]>[]> {
  const r = await runPython(`${CLIENTS}json_types.py`, { docs });
  if (r.code !== 0) throw new Error(`json_types.py failed: ${r.stderr}`);
  return r.out;
}
