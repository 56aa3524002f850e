import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One parsed answer-section record of dig's output. */
export interface DigRecord {
  name: string;
  ttl: number;
  type: string;
  data: string;
}

/** What the tests read from a dig run. */
export interface DigResult {
  status: string;
  flags: string[];
  answers: DigRecord[];
  raw: string;
}

/**
 * Runs `dig @127.0.0.1 -p <port> +tries=1 +time=2 <args…>` asynchronously (the resolver under test
 * lives in this process, so a synchronous child would deadlock it) and parses status, header
 * flags and the answer section.
 */
export async function dig(port: number, ...args: string[]): Promise<DigResult> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+tries=1', '+time=2', ...args], {
    timeout: 10_000,
  });
  const status = /status: ([A-Z0-9_]+)/.exec(stdout)?.[1] ?? 'NONE';
  const flags = (/;; flags: ([a-z ]+);/.exec(stdout)?.[1] ?? '').trim().split(/\s+/);
  const answers: DigRecord[] = [];
  const section = stdout.split(';; ANSWER SECTION:\n')[1];
  if (section) {
    for (const line of section.split('\n')) {
      if (line.trim() === '' || line.startsWith(';')) break;
      const [name, ttl, , type, ...data] = line.split(/\s+/);
      answers.push({ name: name ?? '', ttl: Number(ttl), type: type ?? '', data: data.join(' ') });
    }
  }
  return { status, flags, answers, raw: stdout };
}
