/**
 * Replay rejection (SIGNET_REPLAY_PROTECTION=true): the first use of a signature is recorded with
 * a DynamoDB conditional write (TTL = the freshness window), the same signed request again is
 * refused with `replayed_request`, also with an ECDSA signature's s flipped to n − s, and also
 * stripped of one of its several signatures (every signature of an accepted request is claimed,
 * all or none). Against DynamoDB Local, through both handlers.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { authorize } from '../../lambda/authorizer/authorize';
import { ClientDirectory } from '../../lambda/authorizer/client-directory';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { ENV } from '../../lambda/config-env';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS, DEFAULT_MAX_AGE_S, DEFAULT_MAX_SKEW_S } from '../../lambda/core/defaults';
import { SignetError } from '../../lambda/core/errors';
import { type PrivateKeyInfo, generateKeyPair } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createVerifier, defaultVerifyPolicy } from '../../lambda/core/verify';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { DynamoReplayGuard } from '../../lambda/store/replay-store';
import { PARTITION_KEY, REPLAY_PREFIX, SORT_KEY, TTL_ATTRIBUTE } from '../../lambda/store/table-schema';
import { dynamoDbLocalClientConfig, findFreePort } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  HTTP_API_HOST,
  REST_API_HOST,
  ROLE_CATALOGUE,
  type Call,
  Signer,
  authorizerEnv,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  nowS,
  outcomeOf,
  registerClient,
  restAuthorizerEvent,
  sign,
} from './support';

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;
let guarded: AuthorizerModule;
let unguarded: AuthorizerModule;
let partner: Signer;
let office: Signer;
/** SIGNET_PROFILE=rfc9421 (any label, several signatures) with replay protection. */
let guardedAnyLabel: AuthorizerModule;
/** A client whose key is ECDSA P-256 (a proxy, in the tests with several signatures). */
let ecdsa: Signer;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  partner = await registerClient(store, { name: 'Partner' });
  office = await registerClient(store, { name: 'Office', networkWhitelist: ['10.0.0.0/8'] });
  guarded = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.replayProtection]: 'true' }));
  unguarded = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint));
  guardedAnyLabel = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.replayProtection]: 'true', [ENV.profile]: 'rfc9421' }));
  ecdsa = await registerWithAlgorithm('ECDSA proxy', generateKeyPair('ecdsa-p256'), 'ecdsa-p256-sha256');
});

/** Registers a client holding `key`, registered for `algorithm`. */
async function registerWithAlgorithm(name: string, key: PrivateKeyInfo, algorithm: 'ecdsa-p256-sha256'): Promise<Signer> {
  const spkiPem = key.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const { record } = await store.createClient({ name, networkWhitelist: ['0.0.0.0'], roles: ['partner'], key: { fingerprint: key.fingerprint, spkiPem, algorithm } }, 'test-setup');
  return { clientId: record.clientId, key };
}

/** The order of the P-256 group. */
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** `signature` (a Signature field) with the P-256 signature of `label` changed from (r, s) to (r, n − s): just as valid. */
function flipS(signature: string, label = 'sig'): string {
  return signature.replace(new RegExp(`(^|, )${label}=:([^:]*):`), (_, lead: string, b64: string) => {
    const bytes = Buffer.from(b64, 'base64');
    const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
    const flipped = Buffer.concat([bytes.subarray(0, 32), Buffer.from((P256_N - s).toString(16).padStart(64, '0'), 'hex')]);
    return `${lead}${label}=:${flipped.toString('base64')}:`;
  });
}

/** Whether the P-256 signature of `label` in a Signature field has s in the upper half. */
function isHighS(signature: string, label = 'sig'): boolean {
  const b64 = new RegExp(`(?:^|, )${label}=:([^:]*):`).exec(signature)![1];
  return BigInt(`0x${Buffer.from(b64, 'base64').subarray(32).toString('hex')}`) > P256_N / 2n;
}

/** The HTTP API answer's reason code, or 'allowed'. */
async function outcome(authorizer: AuthorizerModule, call: Call, headers: Record<string, string>): Promise<string> {
  const answer = await authorizer.httpApiHandler(httpApiAuthorizerEvent(call, { headers }));
  return answer.isAuthorized ? 'allowed' : String((answer.context as { signetError?: string }).signetError);
}

/**
 * The headers of `call` signed by `first` (label sig) and by `second` (label proxy), at the same
 * `created`: one Signature-Input and one Signature field with two members each. (The label is not
 * part of the signature base, so `second`'s signature holds under its new label.)
 */
function signedByBoth(call: Call & { created: number }, first: Signer, second: Signer): Record<string, string> {
  const one = signRequest({ method: call.method, url: call.url, body: call.body, keyId: first.clientId, privateKey: first.key.key, created: call.created }).headers;
  const two = signRequest({ method: call.method, url: call.url, body: call.body, keyId: second.clientId, privateKey: second.key.key, created: call.created }).headers;
  return {
    ...one,
    'signature-input': `${one['signature-input']}, ${two['signature-input'].replace(/^sig=/, 'proxy=')}`,
    signature: `${one.signature}, ${two.signature.replace(/^sig=/, 'proxy=')}`,
  };
}

/** `headers` without the member `label` of Signature-Input and Signature. */
function strip(headers: Record<string, string>, label: string): Record<string, string> {
  const without = (field: string): string =>
    field
      .split(', ')
      .filter((member) => !member.startsWith(`${label}=`))
      .join(', ');
  return { ...headers, 'signature-input': without(headers['signature-input']), signature: without(headers.signature) };
}

afterAll(async () => {
  await ddb?.stop();
});

/** The replay item's key for a `Signature: sig=:<b64>:` header. */
function replayKey(signatureHeader: string): Record<string, string> {
  const bytes = Buffer.from(/^sig=:([^:]*):$/.exec(signatureHeader)![1], 'base64');
  return { [PARTITION_KEY]: `${REPLAY_PREFIX}${createHash('sha256').update(bytes).digest('base64url')}`, [SORT_KEY]: 'REPLAY' };
}

async function replayItem(signatureHeader: string): Promise<Record<string, unknown> | undefined> {
  return (await ddb.doc.send(new GetCommand({ TableName: tableName, Key: replayKey(signatureHeader), ConsistentRead: true }))).Item;
}

test('HTTP API: the same signed request twice → the second is refused (replayed_request); the record expires with the window', async () => {
  const created = nowS();
  const call = { method: 'POST', url: `https://${HTTP_API_HOST}/api/echo?x=1`, body: '{"pay":10}', created };
  const { headers } = sign(call, partner);
  const event = httpApiAuthorizerEvent(call, { headers });

  expect(await guarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: true });
  expect(await guarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: false, context: { signetError: 'replayed_request' } });
  expect((await store.listAuthFailures(partner.clientId))[0]).toMatchObject({ reason: 'replayed_request' });
  expect(await replayItem(headers.signature)).toMatchObject({ [TTL_ATTRIBUTE]: created + DEFAULT_MAX_AGE_S + DEFAULT_MAX_SKEW_S });

  // Signed anew (another created, so another signature): accepted.
  const again = { ...call, created: created - 1 };
  const fresh = sign(again, partner);
  expect(await guarded.httpApiHandler(httpApiAuthorizerEvent(again, { headers: fresh.headers }))).toMatchObject({ isAuthorized: true });
});

test('without SIGNET_REPLAY_PROTECTION the same request passes twice and nothing is written', async () => {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?unguarded=1` };
  const { headers } = sign(call, partner);
  const event = httpApiAuthorizerEvent(call, { headers });
  expect(await unguarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: true });
  expect(await unguarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: true });
  expect(await replayItem(headers.signature)).toBeUndefined();
});

test('REST: the second use throws Unauthorized (401)', async () => {
  const call = { method: 'GET', url: `https://${REST_API_HOST}/prod/api/echo?a=1&a=2` };
  const { headers } = sign(call, partner);
  const event = restAuthorizerEvent(call, { headers });
  const first = await outcomeOf(guarded.restApiHandler(structuredClone(event)));
  expect(first.ok && first.value.policyDocument.Statement[0].Effect).toBe('Allow');
  const second = await outcomeOf(guarded.restApiHandler(structuredClone(event)));
  expect(second.ok ? 'answered' : second.error.message).toBe('Unauthorized');
  expect((await store.listAuthFailures(partner.clientId))[0]).toMatchObject({ reason: 'replayed_request' });
});

test('a refused request does not use up its signature (the claim comes last)', async () => {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?office=1` };
  const { headers } = sign(call, office);
  const outside = httpApiAuthorizerEvent(call, { headers, sourceIp: '192.0.2.10' });
  expect(await guarded.httpApiHandler(outside)).toMatchObject({ isAuthorized: false, context: { signetError: 'ip_not_allowed' } });
  expect(await replayItem(headers.signature)).toBeUndefined();
  const inside = httpApiAuthorizerEvent(call, { headers, sourceIp: '10.1.2.3' });
  expect(await guarded.httpApiHandler(inside)).toMatchObject({ isAuthorized: true });
});

test('concurrent uses of one signature: exactly one is allowed', async () => {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?race=1` };
  const { headers } = sign(call, partner);
  const event = httpApiAuthorizerEvent(call, { headers });
  const answers = await Promise.all(Array.from({ length: 10 }, () => guarded.httpApiHandler(structuredClone(event))));
  expect(answers.filter((a) => a.isAuthorized)).toHaveLength(1);
  expect(answers.filter((a) => !a.isAuthorized && (a.context as { signetError?: string }).signetError === 'replayed_request')).toHaveLength(9);
});

describe('ECDSA: a signature with s flipped to n − s is the same signature', () => {
  test.each([['high-S', 'low-S'], ['low-S', 'high-S']])('a %s signature is allowed, its exact replay refused, and the %s twin refused too', async (firstForm) => {
    const call = { method: 'POST', url: `https://${HTTP_API_HOST}/api/echo?ecdsa=${firstForm}`, body: '{"pay":10}', created: nowS() };
    const { headers } = sign(call, ecdsa);
    const twin = { ...headers, signature: flipS(headers.signature) };
    const [high, low] = isHighS(headers.signature) ? [headers, twin] : [twin, headers];
    const [first, second] = firstForm === 'high-S' ? [high, low] : [low, high];
    expect(await outcome(guarded, call, first)).toBe('allowed'); // high-S is not refused
    expect(await outcome(guarded, call, first)).toBe('replayed_request');
    expect(await outcome(guarded, call, second)).toBe('replayed_request');
  });

  test('without replay protection both forms verify (the flip is a valid signature, so the refusal above is the replay rule)', async () => {
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?ecdsa=unguarded` };
    const { headers } = sign(call, ecdsa);
    expect(await outcome(unguarded, call, headers)).toBe('allowed');
    expect(await outcome(unguarded, call, { ...headers, signature: flipS(headers.signature) })).toBe('allowed');
  });
});

describe('several signatures (rfc9421): replay protection is per request', () => {
  test('a request signed by a client and a proxy passes once; stripped of either signature (or with the proxy\'s s flipped) it is refused', async () => {
    const call = { method: 'POST', url: `https://${HTTP_API_HOST}/api/echo?both=1`, body: '{"pay":10}', created: nowS() };
    const both = signedByBoth(call, partner, ecdsa);
    expect(await outcome(guardedAnyLabel, call, both)).toBe('allowed');
    expect(await outcome(guardedAnyLabel, call, both)).toBe('replayed_request');
    const proxyOnly = strip(both, 'sig');
    expect(proxyOnly['signature-input']).toMatch(/^proxy=/);
    expect(await outcome(guardedAnyLabel, call, proxyOnly)).toBe('replayed_request');
    expect(await outcome(guardedAnyLabel, call, { ...proxyOnly, signature: flipS(proxyOnly.signature, 'proxy') })).toBe('replayed_request');
    expect(await outcome(guardedAnyLabel, call, strip(both, 'proxy'))).toBe('replayed_request');
    // The proxy's signature alone is valid: without replay protection it would pass.
    const open = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.profile]: 'rfc9421' }));
    expect(await outcome(open, call, proxyOnly)).toBe('allowed');
  });

  test("concurrent uses of a request with two signatures, whole, with the proxy's s flipped, or stripped to the proxy's: exactly one is allowed", async () => {
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?both=race`, created: nowS() };
    const both = signedByBoth(call, partner, ecdsa);
    // Every variant carries the proxy's signature (in one of its two forms).
    const variants = [both, { ...both, signature: flipS(both.signature, 'proxy') }, strip(both, 'sig')];
    const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => outcome(guardedAnyLabel, call, variants[i % 3])));
    expect(answers.filter((a) => a === 'allowed')).toHaveLength(1);
    expect(answers.filter((a) => a === 'replayed_request')).toHaveLength(8);
  });

  test('more than 4 signatures cannot all be claimed: refused (invalid_signature_input) under replay protection only', async () => {
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?five=1`, created: nowS() };
    const { headers } = sign(call, partner);
    const extra = ['b', 'c', 'd', 'e'];
    const five = {
      ...headers,
      'signature-input': [headers['signature-input'], ...extra.map((l) => headers['signature-input'].replace(/^sig=/, `${l}=`))].join(', '),
      signature: [headers.signature, ...extra.map((l) => headers.signature.replace(/^sig=/, `${l}=`))].join(', '),
    };
    expect(await outcome(guarded, call, five)).toBe('invalid_signature_input');
    expect(await outcome(unguarded, call, five)).toBe('allowed');
  });

  test('all or none: a request refused because one of its signatures was used claims none of the others', async () => {
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?both=2`, created: nowS() - 1 };
    const both = signedByBoth(call, partner, ecdsa);
    expect(await outcome(guardedAnyLabel, call, strip(both, 'sig'))).toBe('allowed'); // the proxy's signature is used
    expect(await outcome(guardedAnyLabel, call, both)).toBe('replayed_request');
    expect(await outcome(guardedAnyLabel, call, strip(both, 'proxy'))).toBe('allowed'); // the client's was not claimed by the refused request
  });
});

describe('DynamoReplayGuard', () => {
  test('a record past its TTL (DynamoDB deletes lazily) counts as free', async () => {
    const clock = { s: 1_000 };
    const guard = new DynamoReplayGuard(ddb.doc, tableName, () => clock.s);
    expect(await guard.claim([{ signatureId: 'lazy-ttl-test', expiresAtS: 1_100 }])).toBe(true);
    clock.s = 1_050;
    expect(await guard.claim([{ signatureId: 'lazy-ttl-test', expiresAtS: 1_380 }])).toBe(false);
    clock.s = 1_101;
    expect(await guard.claim([{ signatureId: 'lazy-ttl-test', expiresAtS: 1_431 }])).toBe(true);
  });

  test('DynamoDB unreachable: the claim fails closed, and the decision is dependency_unavailable (never allowed)', async () => {
    const dead = new DynamoDBClient({ ...dynamoDbLocalClientConfig(`http://127.0.0.1:${await findFreePort()}`), maxAttempts: 1 });
    const guard = new DynamoReplayGuard(toDocumentClient(dead), tableName);
    await expect(guard.claim([{ signatureId: 'unreachable', expiresAtS: nowS() + 60 }])).rejects.toMatchObject({ code: 'dependency_unavailable' });

    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?dead=1` };
    const { headers } = sign(call, partner);
    const adapted = adaptHttpApiEvent(httpApiAuthorizerEvent(call, { headers }));
    const decision = await authorize(
      { request: adapted.request, targetUriCandidates: adapted.targetUriCandidates, operationPath: adapted.apiPath },
      { verifier: createVerifier({ policy: defaultVerifyPolicy(), replay: guard }), directory: new ClientDirectory(store), roles: compileRoleCatalogue(ROLE_CATALOGUE) },
    );
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? undefined : (decision.error as SignetError).code).toBe('dependency_unavailable');
    dead.destroy();
  });
});
