/**
 * The authorizer with keys named by JWK thumbprint and keys published by a client's source, over
 * the real store on DynamoDB Local: a thumbprint keyid resolves through the thumbprint index (and
 * then warm, with no DynamoDB call), verifies with that one key only, under the web-bot-auth
 * profile a covered Signature-Agent must name the client's own agent, published keys stop at their
 * nbf/exp and at the keep bound after the last successful fetch, and a sha-512-only body passes the
 * authorizer and the backend's body check end to end. The thumbprint index items and the client
 * records' key-source fields are written here with the test's own DynamoDB client, in the layout
 * lambda/store/table-schema.ts describes (the registry writes them in a deployment).
 * DynamoDB calls are counted by a middleware on the real SDK client.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { KeyObject, createHash, generateKeyPairSync } from 'node:crypto';
import { createAuthorizer } from '../../lambda/authorizer/create-authorizer';
import { checkSignedBody } from '../../lambda/backend/signed-body';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { createSignature } from '../../lambda/core/algorithms';
import { thumbprintOfKey } from '../../lambda/core/jwk-thumbprint';
import { formatHttpDate } from '../../lambda/core/http-date';
import { type PrivateKeyInfo, importPublicKey } from '../../lambda/core/keys';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { readSignatureInput } from '../../lambda/core/signature-params';
import type { ClientRecord, KeySource } from '../../lambda/domain/client-record';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { ITEM, PARTITION_KEY, SORT_KEY } from '../../lambda/store/table-schema';
import { countingClient, startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { HTTP_API_HOST, authorizerEnv, fixture, httpApiAuthorizerEvent, registerClient } from './support';
import { nextTestKey } from '../support/test-keys';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const T0_MS = Date.parse('2026-03-01T12:00:00Z');
const T0 = T0_MS / 1000;
const DAY_S = 86_400;
const AGENT_A = 'https://agent-a.example';
const AGENT_B = 'https://agent-b.example';
const URL_GET = `https://${HTTP_API_HOST}/api/orders`;

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;

interface Ed25519Signer {
  readonly privateKey: KeyObject;
  readonly fingerprint: string;
  readonly spkiPem: string;
  readonly thumbprint: string;
}

function ed25519(): Ed25519Signer {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const spkiPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  return { privateKey, fingerprint: importPublicKey(spkiPem).fingerprint, spkiPem, thumbprint: thumbprintOfKey(publicKey) };
}

/** A published key as the client record holds it. */
interface PublishedKey {
  readonly key: Ed25519Signer;
  readonly notBefore?: string;
  readonly expires?: string;
}

/**
 * A client whose keys come from `source`: created through the store (with a placeholder key the
 * test never signs with), then given the published keys and the source fields, and a thumbprint
 * index item per published key.
 */
async function publishedClient(source: KeySource, keys: readonly PublishedKey[], options: { keysFetchedAt?: string | null; profile?: ClientRecord['profile'] } = {}): Promise<string> {
  const placeholder = ed25519();
  const { record } = await store.createClient(
    { name: 'Agent', networkWhitelist: ['0.0.0.0'], roles: ['partner'], key: { fingerprint: placeholder.fingerprint, spkiPem: placeholder.spkiPem }, profile: options.profile ?? 'web-bot-auth' },
    'test-setup',
  );
  const stored = keys.map(({ key, notBefore, expires }) => ({
    fingerprint: key.fingerprint,
    spkiPem: key.spkiPem,
    algorithm: 'ed25519',
    addedAt: new Date(T0_MS - 30 * DAY_S * 1000).toISOString(),
    thumbprint: key.thumbprint,
    published: true,
    kid: key.thumbprint,
    ...(notBefore === undefined ? {} : { notBefore }),
    ...(expires === undefined ? {} : { expires }),
  }));
  await ddb.doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { [PARTITION_KEY]: ITEM.clientPk(record.clientId), [SORT_KEY]: ITEM.clientSk },
      UpdateExpression: options.keysFetchedAt === null ? 'SET #keys = :keys, keySource = :source' : 'SET #keys = :keys, keySource = :source, keysFetchedAt = :fetched',
      ExpressionAttributeNames: { '#keys': 'keys' },
      ExpressionAttributeValues: {
        ':keys': stored,
        ':source': source,
        ...(options.keysFetchedAt === null ? {} : { ':fetched': options.keysFetchedAt ?? new Date(T0_MS - 3_600_000).toISOString() }),
      },
    }),
  );
  for (const { key } of keys) await putThumbprint(key.thumbprint, record.clientId, key.fingerprint);
  return record.clientId;
}

/** The thumbprint index item: the layout the registry writes (`THUMB#<thumbprint>`, `THUMB`). */
async function putThumbprint(thumbprint: string, clientId: string, fingerprint: string): Promise<void> {
  await ddb.doc.send(new PutCommand({ TableName: tableName, Item: { [PARTITION_KEY]: ITEM.thumbprintPk(thumbprint), [SORT_KEY]: ITEM.thumbprintSk, clientId, fingerprint } }));
}

/** A Web Bot Auth request: `@authority` and its Signature-Agent member (or what `components` says), tagged, valid an hour. */
function agentRequest(
  key: Ed25519Signer,
  options: { agent?: string; createdS?: number; components?: readonly string[]; keyId?: string; method?: string; url?: string } = {},
): { method: string; url: string; headers: Record<string, string> } {
  const { agent, createdS = T0, method = 'GET', url = URL_GET, keyId = key.thumbprint } = options;
  const components = options.components ?? (agent === undefined ? ['"@authority"'] : ['"@authority"', '"signature-agent";key="sig1"']);
  const headers: Record<string, string> = agent === undefined ? {} : { 'signature-agent': `sig1="${agent}"` };
  const field = `sig1=(${components.join(' ')});created=${createdS};expires=${createdS + 3600};keyid="${keyId}";tag="web-bot-auth"`;
  const input = readSignatureInput(field, 'sig1');
  const base = buildSignatureBase({ method, targetUri: url, headers }, input.covered, input.signatureParams);
  const signature = createSignature('ed25519', Buffer.from(base), key.privateKey).toString('base64');
  return { method, url, headers: { ...headers, 'signature-input': field, signature: `sig1=:${signature}:` } };
}


/** An authorizer built as the Lambda entry builds it, on its own counting client, at the test's clock. */
function authorizerAt(clock: { ms: number }, extra: Record<string, string> = {}) {
  const { client, commands } = countingClient(ddb.endpoint);
  const config = loadConfig(authorizerEnv(tableName, ddb.endpoint, { [ENV.lastUsedRecordIntervalMs]: '0', ...extra }));
  const authorizer = createAuthorizer(config, { logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }), doc: toDocumentClient(client), nowMs: () => clock.ms });
  const decide = async (request: { method: string; url: string; headers: Record<string, string>; body?: string }) =>
    authorizer.httpApiHandler(httpApiAuthorizerEvent({ method: request.method, url: request.url, body: request.body }, { headers: request.headers }));
  return { decide, commands, destroy: () => client.destroy() };
}

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
});

afterAll(async () => {
  await ddb?.stop();
});

describe('a keyid that is a JWK thumbprint', () => {
  test("resolves through the thumbprint index to its client: allowed under the client's web-bot-auth profile in a signet deployment, then served warm with no DynamoDB call", async () => {
    const key = ed25519();
    const clientId = await publishedClient({ signatureAgent: AGENT_A }, [{ key }]);
    const clock = { ms: T0_MS };
    const { decide, commands, destroy } = authorizerAt(clock);
    const first = await decide(agentRequest(key, { agent: AGENT_A }));
    expect(first).toMatchObject({ isAuthorized: true, context: { clientId, signetProfile: 'web-bot-auth', signetRequestBound: 'false', keyFingerprint: key.fingerprint } });
    // The index item, then the client record.
    expect(commands).toEqual(['GetItemCommand', 'GetItemCommand']);
    for (let i = 1; i <= 20; i++) {
      clock.ms = T0_MS + i * 1000;
      expect(await decide(agentRequest(key, { agent: AGENT_A, createdS: T0 + i }))).toMatchObject({ isAuthorized: true });
    }
    expect(commands).toHaveLength(2);
    destroy();
  });

  test('says the exact request was signed when the agent covers the method and the path', async () => {
    const key = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key }]);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    const bound = agentRequest(key, { agent: AGENT_A, components: ['"@method"', '"@authority"', '"@path"', '"signature-agent";key="sig1"'] });
    expect(await decide(bound)).toMatchObject({ isAuthorized: true, context: { signetProfile: 'web-bot-auth', signetRequestBound: 'true' } });
    destroy();
  });

  test("verifies with that one key only: a thumbprint of one of the client's keys does not let its other key sign", async () => {
    const named = ed25519();
    const other = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key: named }, { key: other }]);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    expect(await decide(agentRequest(other, { agent: AGENT_A, keyId: named.thumbprint }))).toMatchObject({ isAuthorized: false, context: { signetError: 'signature_mismatch' } });
    expect(await decide(agentRequest(other, { agent: AGENT_A }))).toMatchObject({ isAuthorized: true });
    destroy();
  });

  test('an index item whose key the client no longer holds names no client (unknown_client)', async () => {
    const kept = ed25519();
    const gone = ed25519();
    const clientId = await publishedClient({ signatureAgent: AGENT_A }, [{ key: kept }]);
    await putThumbprint(gone.thumbprint, clientId, gone.fingerprint);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    expect(await decide(agentRequest(gone, { agent: AGENT_A }))).toMatchObject({ isAuthorized: false, context: { signetError: 'unknown_client' } });
    destroy();
  });

  test('finds a registered key by its thumbprint too, for a client under the rfc9421 profile (any label)', async () => {
    const key = ed25519();
    const { record } = await store.createClient(
      { name: 'Registered Ed25519', networkWhitelist: ['0.0.0.0'], roles: ['partner'], key: { fingerprint: key.fingerprint, spkiPem: key.spkiPem, algorithm: 'ed25519' }, profile: 'rfc9421' },
      'test-setup',
    );
    await putThumbprint(key.thumbprint, record.clientId, key.fingerprint);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    const request = agentRequest(key, { components: ['"@method"', '"@authority"', '"@path"'] });
    expect(await decide(request)).toMatchObject({ isAuthorized: true, context: { clientId: record.clientId, signetProfile: 'rfc9421', signetRequestBound: 'true' } });
    destroy();
  });

  test('junk with a thumbprint-shaped keyid that no profile accepts costs no DynamoDB call', async () => {
    const key = ed25519();
    const { decide, commands, destroy } = authorizerAt({ ms: T0_MS });
    // No tag, no @method: no profile's key-independent rules pass.
    const field = `sig1=("@authority");created=${T0};keyid="${key.thumbprint}"`;
    expect(await decide({ method: 'GET', url: URL_GET, headers: { 'signature-input': field, signature: 'sig1=:AAAA:' } })).toMatchObject({ isAuthorized: false });
    expect(commands).toEqual([]);
    destroy();
  });
});

describe('Signature-Agent under the web-bot-auth profile', () => {
  test("a thumbprint of client B's key with a Signature-Agent naming client A's source is refused (signature_agent_mismatch); naming B's own source it is allowed", async () => {
    const keyA = ed25519();
    const keyB = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key: keyA }]);
    const clientB = await publishedClient({ signatureAgent: AGENT_B }, [{ key: keyB }]);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    const refused = await decide(agentRequest(keyB, { agent: AGENT_A }));
    expect(refused).toMatchObject({ isAuthorized: false, context: { signetError: 'signature_agent_mismatch' } });
    expect(String((refused.context as Record<string, unknown>).signetMessage)).toContain(AGENT_B);
    expect(await decide(agentRequest(keyB, { agent: `${AGENT_B}/` }))).toMatchObject({ isAuthorized: true, context: { clientId: clientB } });
    // Without the field the keyid alone names the key.
    expect(await decide(agentRequest(keyB))).toMatchObject({ isAuthorized: true, context: { clientId: clientB } });
    destroy();
  });

  test('a request that sends Signature-Agent without covering its member is refused before any DynamoDB call', async () => {
    const key = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key }]);
    const { decide, commands, destroy } = authorizerAt({ ms: T0_MS });
    const uncovered = agentRequest(key);
    expect(await decide({ ...uncovered, headers: { ...uncovered.headers, 'signature-agent': `sig1="${AGENT_A}"` } })).toMatchObject({
      isAuthorized: false,
      context: { signetError: 'signature_agent_mismatch' },
    });
    expect(commands).toEqual([]);
    destroy();
  });

  test('a web-bot-auth client whose keys are registered, not published, has no agent: a covered Signature-Agent is refused', async () => {
    const key = ed25519();
    const { record } = await store.createClient(
      { name: 'Registered agent', networkWhitelist: ['0.0.0.0'], roles: ['partner'], key: { fingerprint: key.fingerprint, spkiPem: key.spkiPem, algorithm: 'ed25519' }, profile: 'web-bot-auth' },
      'test-setup',
    );
    await putThumbprint(key.thumbprint, record.clientId, key.fingerprint);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    expect(await decide(agentRequest(key, { agent: AGENT_A }))).toMatchObject({ isAuthorized: false, context: { signetError: 'signature_agent_mismatch' } });
    expect(await decide(agentRequest(key))).toMatchObject({ isAuthorized: true, context: { clientId: record.clientId } });
    destroy();
  });
});

describe("a published key's validity", () => {
  test('before its nbf it does not verify (key_expired, saying when it starts); from then on it does', async () => {
    const key = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key, notBefore: new Date(T0_MS + 3_600_000).toISOString() }]);
    const clock = { ms: T0_MS };
    const { decide, destroy } = authorizerAt(clock);
    const early = await decide(agentRequest(key, { agent: AGENT_A }));
    expect(early).toMatchObject({ isAuthorized: false, context: { signetError: 'key_expired' } });
    expect(String((early.context as Record<string, unknown>).signetMessage)).toContain('not valid before');
    clock.ms = T0_MS + 3_600_000;
    expect(await decide(agentRequest(key, { agent: AGENT_A, createdS: T0 + 3600 }))).toMatchObject({ isAuthorized: true });
    destroy();
  });

  test('from its exp on it does not verify (key_expired)', async () => {
    const key = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key, expires: new Date(T0_MS - 1000).toISOString() }]);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    expect(await decide(agentRequest(key, { agent: AGENT_A }))).toMatchObject({ isAuthorized: false, context: { signetError: 'key_expired' } });
    destroy();
  });

  test('past the keep bound after the last successful fetch it does not verify, and the refusal says since when the source has not been fetched', async () => {
    const key = ed25519();
    const fetchedAt = new Date(T0_MS - 8 * DAY_S * 1000).toISOString();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key }], { keysFetchedAt: fetchedAt });
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    const refused = await decide(agentRequest(key, { agent: AGENT_A }));
    expect(refused).toMatchObject({ isAuthorized: false, context: { signetError: 'key_expired' } });
    expect(String((refused.context as Record<string, unknown>).signetMessage)).toContain(`not been fetched successfully since ${fetchedAt}`);
    // A deployment that keeps published keys longer still verifies it.
    const keeping = authorizerAt({ ms: T0_MS }, { [ENV.keySourceKeepDays]: '9' });
    expect(await keeping.decide(agentRequest(key, { agent: AGENT_A }))).toMatchObject({ isAuthorized: true });
    keeping.destroy();
    destroy();
  });

  test('without a recorded fetch time, a published key is bounded by the fetch that added it (30 days ago here: refused)', async () => {
    const key = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key }], { keysFetchedAt: null });
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    expect(await decide(agentRequest(key, { agent: AGENT_A }))).toMatchObject({ isAuthorized: false, context: { signetError: 'key_expired' } });
    const keeping = authorizerAt({ ms: T0_MS }, { [ENV.keySourceKeepDays]: '31' });
    expect(await keeping.decide(agentRequest(key, { agent: AGENT_A }))).toMatchObject({ isAuthorized: true });
    keeping.destroy();
    destroy();
  });

  test('a signature valid longer than the deployment allows is refused before any DynamoDB call (SIGNET_WEB_BOT_AUTH_MAX_VALIDITY_S)', async () => {
    const key = ed25519();
    await publishedClient({ signatureAgent: AGENT_A }, [{ key }]);
    const { decide, commands, destroy } = authorizerAt({ ms: T0_MS }, { [ENV.webBotAuthMaxValidityS]: '600' });
    expect(await decide(agentRequest(key, { agent: AGENT_A }))).toMatchObject({ isAuthorized: false, context: { signetError: 'invalid_signature_input' } });
    expect(commands).toEqual([]);
    destroy();
  });
});

describe('a sha-512-only Content-Digest, end to end', () => {
  let signer: { clientId: string; key: PrivateKeyInfo };
  beforeAll(async () => {
    signer = await registerClient(store, { name: 'sha-512 partner', key: nextTestKey() });
  });

  /** A POST signed under the signet profile whose Content-Digest carries sha-512 only. */
  function sha512Post(body: string): { method: string; url: string; body: string; headers: Record<string, string> } {
    const url = `https://${HTTP_API_HOST}/api/echo`;
    const headers: Record<string, string> = {
      date: formatHttpDate(T0),
      'content-type': 'application/json',
      'content-digest': `sha-512=:${createHash('sha512').update(body).digest('base64')}:`,
    };
    const field = `sig=("@method" "@target-uri" "content-digest" "date");created=${T0};keyid="${signer.clientId}";alg="rsa-v1_5-sha256"`;
    const input = readSignatureInput(field, 'sig');
    const base = buildSignatureBase({ method: 'POST', targetUri: url, headers }, input.covered, input.signatureParams);
    const signature = createSignature('rsa-v1_5-sha256', Buffer.from(base), signer.key.key).toString('base64');
    return { method: 'POST', url, body, headers: { ...headers, 'signature-input': field, signature: `sig=:${signature}:` } };
  }

  /** The backend's proxy event for `body`, carrying the authorizer's Allow context. */
  function backendEvent(context: Record<string, unknown>, body: string): APIGatewayProxyEventV2 {
    const event = fixture('http-api-proxy-v2-lambda-authorizer-context.json');
    event.requestContext.authorizer = { lambda: context };
    event.body = body;
    event.isBase64Encoded = false;
    return event as APIGatewayProxyEventV2;
  }

  test('the authorizer admits it and passes the digest on; the backend accepts the body it hashes and refuses another (digest_mismatch)', async () => {
    const body = '{"order":42}';
    const request = sha512Post(body);
    const { decide, destroy } = authorizerAt({ ms: T0_MS });
    const allowed = await decide(request);
    destroy();
    expect(allowed).toMatchObject({ isAuthorized: true, context: { clientId: signer.clientId, contentDigest: request.headers['content-digest'], signetRequestBound: 'true' } });
    const context = allowed.context as Record<string, unknown>;
    expect(() => checkSignedBody(backendEvent(context, body))).not.toThrow();
    expect(() => checkSignedBody(backendEvent(context, '{"order":43}'))).toThrow(expect.objectContaining({ code: 'digest_mismatch' }));
  });
});
