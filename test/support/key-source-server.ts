/**
 * A key source for tests: a real HTTP server on 127.0.0.1 whose answers the test sets per path
 * (a JWKS, a Web Bot Auth key directory, a failure), fetched with `allowLocalHttp` as the local
 * gateway does. Nothing connects anywhere but loopback.
 *
 * @example
 * const source = await startKeySourceServer();
 * source.serve('/jwks', { keys: [jwk] }, { 'cache-control': 'max-age=600' });
 * await registry.create({ jwksUri: source.url('/jwks') });
 * await source.stop();
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeySource } from '../../lambda/core/key-source-url';
import { jwkThumbprint } from '../../lambda/core/jwk-thumbprint';
import type { JsonWebKey } from '../../lambda/core/keys';
import { fingerprintOf } from '../../lambda/core/keys';
import { type KeySourceFetch, fetchKeySource } from '../../lambda/key-sources/fetch-key-source';

/** What a path answers: a status, headers and a body (JSON values are serialised). */
export interface Answer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** Never answer (the fetch's timeout). */
  readonly hang?: boolean;
}

export interface KeySourceServer {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** The agent origin whose directory is served at DIRECTORY_PATH. */
  readonly origin: string;
  /** Sets what `path` answers (replacing what it answered before). */
  serve(path: string, body: unknown, headers?: Record<string, string>, status?: number): void;
  answer(path: string, answer: Answer | ((req: IncomingMessage) => Answer)): void;
  /** How many requests each path got. */
  readonly hits: Map<string, number>;
  /** A fetcher for this server, as the local gateway's registry builds it (short timeout for the hanging path). */
  fetch(source: KeySource, heldThumbprints?: ReadonlySet<string>): Promise<KeySourceFetch>;
  stop(): Promise<void>;
}

export const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';

/** The fetch deadline the test fetcher uses: a hanging source costs this much test time. */
export const TEST_FETCH_TIMEOUT_MS = 300;

export async function startKeySourceServer(nowS: () => number = () => Math.floor(Date.now() / 1000)): Promise<KeySourceServer> {
  const answers = new Map<string, Answer | ((req: IncomingMessage) => Answer)>();
  const hits = new Map<string, number>();
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const given = answers.get(path);
    const answer = typeof given === 'function' ? given(req) : (given ?? { status: 404, body: 'not found' });
    if (answer.hang) return void held.push(res);
    const body = typeof answer.body === 'string' || Buffer.isBuffer(answer.body) ? answer.body : JSON.stringify(answer.body ?? '');
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.headers ?? {}) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    origin: `http://127.0.0.1:${port}`,
    serve: (path, body, headers = {}, status = 200) => void answers.set(path, { status, headers, body }),
    answer: (path, answer) => void answers.set(path, answer),
    hits,
    fetch: (source, heldThumbprints) => fetchKeySource(source, { allowLocalHttp: true, nowS, timeoutMs: TEST_FETCH_TIMEOUT_MS, heldThumbprints }),
    async stop() {
      for (const res of held) res.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A published Ed25519 key: its public JWK (kid = thumbprint), and what the registry will call it. */
export interface PublishedTestKey {
  readonly jwk: JsonWebKey & { kid: string };
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly thumbprint: string;
  readonly fingerprint: string;
}

/** A fresh Ed25519 key as a Web Bot Auth directory or a JWKS publishes it. */
export function publishedKey(extra: Record<string, unknown> = {}): PublishedTestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const bare = publicKey.export({ format: 'jwk' }) as JsonWebKey;
  const thumbprint = jwkThumbprint(bare);
  return { jwk: { ...bare, kid: thumbprint, ...extra } as JsonWebKey & { kid: string }, privateKey, publicKey, thumbprint, fingerprint: fingerprintOf(publicKey) };
}

/** A key set document of these keys. */
export function keySet(...keys: PublishedTestKey[]): { keys: JsonWebKey[] } {
  return { keys: keys.map((k) => k.jwk) };
}
