import { createHash, randomBytes } from 'node:crypto';

/** A client of a running Cordon's `/restapi`, logged in as one admin (the spec's PKCE login, spec-notes §7 Auth). */
export interface ApiSession {
  /** Sends a JSON request; resolves to the status and the parsed body. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** The session's access token, for requests whose answer is not JSON (a file download). */
  readonly token: string;
}

/**
 * Logs in at `http://127.0.0.1:{httpPort}` with Basic credentials and a fresh S256 PKCE pair.
 * @throws Error with the answer's text when the login is refused
 */
export async function apiLogin(httpPort: number, email: string, password: string): Promise<ApiSession> {
  const base = `http://127.0.0.1:${httpPort}/restapi`;
  const verifier = randomBytes(64).toString('hex');
  const query = new URLSearchParams({
    client_id: '2',
    response_type: 'code',
    redirect_uri: `http://127.0.0.1:${httpPort}/`,
    state: randomBytes(20).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    code_verifier: verifier,
  });
  const res = await fetch(`${base}/oauth/authorize?${query}`, {
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  });
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { access_token: string }).access_token;
  return {
    token,
    async call(method, path, body) {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? JSON.parse(text) : null };
    },
  };
}
