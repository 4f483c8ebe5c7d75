/**
 * What an unauthenticated request can cost the authorizer: the CPU time of the worst requests a
 * stranger can construct, each decided the way the Lambda decides it (the HTTP API adapter, then
 * `authorize` with the client directory). No signature in them verifies; the figure is the work
 * done before (or instead of) the refusal.
 *
 * - `250 @query-param, made-up keyid`: a stranger's costliest request. Signature-Input covers 250
 *   `"@query-param"` components (6.8 KB, under the 8 KB header guard), over a ~8 KB query that
 *   holds each named parameter once (so no component is refused early), on a path whose
 *   characters the four path encoders write differently (so the adapter offers 4 URLs).
 * - `13 @query-param (16 components: the cap), registered keyid, forged signature`: the most a
 *   request within the component cap can cost: the same query and path, `@method`,
 *   `@target-uri`, `date` and 13 `@query-param` (16, DEFAULT_MAX_COVERED_COMPONENTS), a keyid
 *   that names a registered client (so its key is tried against every candidate URL).
 *
 * CPU time is `process.cpuUsage()` (user + system) over a loop, divided by the requests; nothing
 * here is asserted (tests count work instead: test/authorizer/hostile-input.test.ts).
 *
 * Run alone: `npx tsx bench/hostile-input.ts`.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { adaptHttpApiEvent } from '../lambda/adapters/http-api-event';
import { authorize } from '../lambda/authorizer/authorize';
import { ClientDirectory } from '../lambda/authorizer/client-directory';
import { formatHttpDate } from '../lambda/core/http-date';
import { generateRsaKeyPair } from '../lambda/core/keys';
import { compileRoleCatalogue } from '../lambda/core/role-policy';
import { createVerifier, defaultVerifyPolicy } from '../lambda/core/verify';
import type { ClientRecord } from '../lambda/domain/client-record';
import { BENCH_HOST } from './signed-events';

export interface HostileCase {
  readonly name: string;
  /** CPU per request, ms (user + system). */
  readonly cpuMsPerRequest: number;
  readonly requests: number;
  /** The reason code the request was refused with. */
  readonly refusedWith: string;
}

export interface HostileInput {
  readonly cases: readonly HostileCase[];
}

/** Characters the path encoders disagree on (`^`, `$`, `'`): four distinct candidate URLs. */
const PATH = "/api/x^$'";
const KNOWN_CLIENT = 'c_BenchHostileInputAAAAA';
const MADE_UP_CLIENT = 'c_MadeUpKeyidNobodyHolds';

/** A query of about 8 KB: the 250 named parameters, once each, then padding parameters. */
function longQuery(): string {
  const pairs: string[] = [];
  for (let i = 0; i < 250; i++) pairs.push(`p${i}=v${i}`);
  for (let i = 0; pairs.join('&').length < 8_000; i++) pairs.push(`z${i}=1`);
  return pairs.join('&');
}

function hostileEvent(components: number, keyId: string, query: string, nowS: number): APIGatewayRequestAuthorizerEventV2 {
  const covered = ['"@method"', '"@target-uri"', '"date"', ...Array.from({ length: components }, (_, i) => `"@query-param";name="p${i}"`)];
  const headers = {
    host: BENCH_HOST,
    'x-forwarded-proto': 'https',
    date: formatHttpDate(nowS),
    'signature-input': `sig=(${covered.join(' ')});created=${nowS};keyid="${keyId}";alg="rsa-v1_5-sha256"`,
    signature: `sig=:${randomBytes(256).toString('base64')}:`,
  };
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn:aws:execute-api:eu-west-1:123456789012:bench/$default/GET/api/x',
    identitySource: [headers.signature],
    routeKey: '$default',
    rawPath: PATH,
    rawQueryString: query,
    cookies: [],
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'bench',
      domainName: BENCH_HOST,
      domainPrefix: 'api',
      http: { method: 'GET', path: PATH, protocol: 'HTTP/1.1', sourceIp: '203.0.113.10', userAgent: 'bench' },
      requestId: 'bench',
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: nowS * 1000,
    },
  } as APIGatewayRequestAuthorizerEventV2;
}

/** Measures the hostile cases; each runs until it has used about `budgetMs` of CPU (at least 3 requests). */
export async function measureHostileInput(budgetMs = 1_500): Promise<HostileInput> {
  const key = generateRsaKeyPair(2048);
  const record: ClientRecord = {
    clientId: KNOWN_CLIENT,
    accountId: 'acct_default',
    name: 'bench',
    status: 'active',
    networkWhitelist: ['0.0.0.0'],
    roles: ['demo'],
    keys: [{ fingerprint: key.fingerprint, spkiPem: key.publicKey.export({ type: 'spki', format: 'pem' }) as string, addedAt: new Date().toISOString() }],
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    version: 1,
  };
  const directory = new ClientDirectory({ getClient: async (id: string) => (id === KNOWN_CLIENT ? record : undefined), getClientByThumbprint: async () => undefined });
  const deps = { verifier: createVerifier({ policy: defaultVerifyPolicy() }), directory, roles: compileRoleCatalogue({ demo: ['* /api/*'] }) };
  const query = longQuery();
  const nowS = Math.floor(Date.now() / 1000);
  const decide = async (event: APIGatewayRequestAuthorizerEventV2): Promise<string> => {
    const adapted = adaptHttpApiEvent(event);
    const decision = await authorize({ request: adapted.request, targetUriCandidates: adapted.alternativeTargetUris, operationPath: adapted.apiPath }, deps);
    return decision.allowed ? 'allowed' : decision.error.code;
  };
  const cases: HostileCase[] = [];
  for (const [name, event] of [
    ['250 @query-param, made-up keyid', hostileEvent(250, MADE_UP_CLIENT, query, nowS)],
    ['13 @query-param (16 components: the cap), registered keyid, forged signature', hostileEvent(13, KNOWN_CLIENT, query, nowS)],
  ] as const) {
    const refusedWith = await decide(event); // warm-up, and the directory caches the client
    const start = process.cpuUsage();
    let requests = 0;
    let usedMs = 0;
    while (requests < 3 || usedMs < budgetMs) {
      await decide(event);
      requests++;
      const used = process.cpuUsage(start);
      usedMs = (used.user + used.system) / 1000;
    }
    cases.push({ name, cpuMsPerRequest: usedMs / requests, requests, refusedWith });
  }
  return { cases };
}

export function printHostileInput(result: HostileInput): string[] {
  return result.cases.map((c) => `${c.name}: ${c.cpuMsPerRequest.toFixed(3)} ms CPU per request (refused: ${c.refusedWith}; ${c.requests} requests)`);
}

if (require.main === module) {
  measureHostileInput()
    .then((result) => {
      for (const line of printHostileInput(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
