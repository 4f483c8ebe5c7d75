/**
 * Hostile requests through both authorizer handlers (DynamoDB Local, a registered client, real
 * events): malformed Structured Fields, missing/duplicate/extra labels, several signatures, alg
 * confusion, keyid injection, bad Base64 and wrong signature lengths, a mutated byte in every
 * covered header, Dates in other formats, huge and non-ASCII headers, a body without a digest,
 * a covered digest without its header, and broken event shapes. Then a fast-check property:
 * random mutations of a valid request never verify.
 *
 * Expected for every case: refused (0 accepted), never a crash (HTTP API: a deny with a 4xx reason
 * code; REST: exactly `Unauthorized` or a Deny policy with a 4xx code; nothing else thrown).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { type Decision, authorize } from '../../lambda/authorizer/authorize';
import { ClientDirectory } from '../../lambda/authorizer/client-directory';
import type { CoverageProfile } from '../../lambda/core/profiles';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createVerifier, defaultVerifyPolicy } from '../../lambda/core/verify';
import { ERROR_CODES } from '../../lambda/core/errors';
import { formatHttpDate } from '../../lambda/core/http-date';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  Call,
  HTTP_API_HOST,
  REST_API_HOST,
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
import { nextTestKey } from '../support/test-keys';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
let authorizer: AuthorizerModule;
let partner: Signer;
let other: Signer;
let restricted: Signer;
let tableName: string;
const tableNameOf = (): string => tableName;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  partner = await registerClient(store, { name: 'Target' });
  other = await registerClient(store, { name: 'Other partner' });
  restricted = await registerClient(store, { name: 'Restricted', networkWhitelist: ['10.0.0.0/8'] });
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint));
});

afterAll(async () => {
  await ddb?.stop();
});

type Headers = Record<string, string>;

/** One hostile request: how its signed headers (and, for HTTP API, its event) are spoiled. */
interface Hostile {
  readonly name: string;
  /** The call that is signed. @default a GET, or a POST with a body when `post` */
  readonly post?: boolean;
  readonly created?: number;
  readonly signer?: () => Signer;
  /** Spoils the headers the client sends (`host`: the authority the call was made to). */
  readonly edit?: (headers: Headers, host: string) => void;
  /** HTTP API only: changes to the event itself. */
  readonly event?: (event: APIGatewayRequestAuthorizerEventV2) => void;
}

const GET_PATH = '/api/echo?q=1';
const BODY = '{"amount":10}';

function callFor(host: string, prefix: string, hostile: Hostile): Call {
  const url = `https://${host}${prefix}${GET_PATH}`;
  return hostile.post ? { method: 'POST', url, body: BODY, created: hostile.created } : { method: 'GET', url, created: hostile.created };
}

const setHeader = (name: string, value: string) => (h: Headers) => {
  h[name] = value;
};
const dropHeader = (name: string) => (h: Headers) => {
  delete h[name];
};
const b64 = (bytes: number, fill = 0x41) => Buffer.alloc(bytes, fill).toString('base64');

/** The valid Signature-Input's parameters, with `replace` applied to the whole member. */
const editInput = (replace: (input: string) => string) => (h: Headers) => {
  h['signature-input'] = replace(h['signature-input']);
};
const editSignature = (replace: (sig: string) => string) => (h: Headers) => {
  h.signature = replace(h.signature);
};

/** Replaces the character at `at` (negative: from the end) with another printable character. */
function mutateAt(text: string, at: number): string {
  const i = at < 0 ? text.length + at : at;
  const c = text[i];
  const replacement = c === 'x' ? 'y' : c === 'X' ? 'Y' : /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : /[a-z]/.test(c) ? 'x' : /[A-Z]/.test(c) ? 'X' : 'Q';
  return text.slice(0, i) + replacement + text.slice(i + 1);
}

function hostileCases(): Hostile[] {
  const cases: Hostile[] = [];
  const add = (name: string, hostile: Omit<Hostile, 'name'>) => cases.push({ name, ...hostile });

  // --- Malformed Structured Fields in Signature-Input
  const malformedInputs = [
    '', ' ', 'sig', 'sig=', 'sig=(', 'sig=)', 'sig=()', 'sig=(,)', 'sig=("@method"', 'sig=("@method" "@target-uri"',
    'sig=(@method @target-uri)', "sig=('@method')", 'sig=("@method""@target-uri")', 'sig=("@method",)', 'sig=("@method");created',
    'sig=("@method");created=', 'sig=("@method");created=abc', 'sig=("@method");created=1.5', 'sig=("@method");created=-1',
    'sig=("@method");created=9999999999999999', 'sig=("@method");=1', 'sig=("@method");;created=1', 'sig=("@method") ;created=1',
    'SIG=("@method")', 'Sig=("@method")', '1sig=("@method")', 'sig=("@method")x', 'sig=("@method"),', ',sig=("@method")',
    'sig=("@method"), ,sig2=()', 'sig=("@METHOD" "@target-uri")', 'sig=("@method" "@method" "@target-uri" "date")',
    'sig=("\\u0000")', 'sig=("@method\\")', 'sig="("@method")"', 'sig=?1', 'sig=:AAAA:', 'sig=42', 'sig=@1700000000',
    'sig=%"x"', 'sig=("@method");created=1;created=', 'sig=((("@method")))', 'sig=("@method");keyid=unquoted',
    'sig=("@method" "@target-uri" "date");created=1700000000;keyid="c_AAAAAAAAAAAAAAAAAAAAAA";alg="rsa-v1_5-sha256";expires=1',
    'sig=("@method" "@target-uri");created=NOW;keyid="x"', 'sig=("@query-param";name="q" "@query-param";name="q")',
    'sig=("@request-response")', 'sig=("@status")', 'sig=("@method";req)', 'sig=("date";bs;sf)', 'sig=("date";key="x")',
  ];
  malformedInputs.forEach((value, i) => add(`malformed Signature-Input #${i}: ${JSON.stringify(value).slice(0, 60)}`, { edit: setHeader('signature-input', value) }));

  // --- Signature header: bad Base64, wrong lengths, wrong shapes
  const malformedSignatures = [
    '', 'sig', 'sig=', 'sig=:', 'sig=::', 'sig=:!!!!:', 'sig=:AAAA', 'sig=AAAA:', 'sig="AAAA"', 'sig=AAAA', 'sig=:AA=A:', 'sig=:A:',
    'sig=:AAAA====:', 'sig=:AA AA:', `sig=:${b64(1)}:`, `sig=:${b64(255)}:`, `sig=:${b64(257)}:`, `sig=:${b64(512)}:`, `sig=:${b64(256, 0)}:`,
    `sig=:${b64(256, 0xff)}:`, `sig=:${b64(256)}:`, 'sig=?1', 'sig=1', 'sig=("x")', `sig=:${b64(256)}:;x=1;x=2`, `sig2=:${b64(256)}:`,
  ];
  malformedSignatures.forEach((value, i) => add(`malformed Signature #${i}: ${value.slice(0, 40)}`, { edit: setHeader('signature', value) }));
  add('Signature value: the base64url alphabet', { edit: editSignature((s) => s.replace(/\+/g, '-').replace(/\//g, '_')) });
  add('Signature value: truncated by one byte', { edit: editSignature((s) => `sig=:${Buffer.from(s.slice(5, -1), 'base64').subarray(1).toString('base64')}:`) });
  add('Signature value: one extra byte', { edit: editSignature((s) => `sig=:${Buffer.concat([Buffer.from(s.slice(5, -1), 'base64'), Buffer.from([0])]).toString('base64')}:`) });
  add('Signature value: reversed bytes', { edit: editSignature((s) => `sig=:${Buffer.from(s.slice(5, -1), 'base64').reverse().toString('base64')}:`) });

  // --- Labels and several signatures
  add('label renamed in both headers', { edit: (h) => { h['signature-input'] = h['signature-input'].replace(/^sig=/, 'other='); h.signature = h.signature.replace(/^sig=/, 'other='); } });
  add('label renamed in Signature only', { edit: editSignature((s) => s.replace(/^sig=/, 'sig1=')) });
  add('label renamed in Signature-Input only', { edit: editInput((s) => s.replace(/^sig=/, 'sig1=')) });
  add('valid signature moved to sig2, forged sig', {
    edit: (h) => {
      h['signature-input'] = `${h['signature-input'].replace(/^sig=/, 'sig2=')}, sig=("@method");created=${nowS()};keyid="${partner.clientId}";alg="rsa-v1_5-sha256"`;
      h.signature = `${h.signature.replace(/^sig=/, 'sig2=')}, sig=:${b64(256)}:`;
    },
  });
  add('duplicate sig member: the forged one last (RFC 8941: last wins)', { edit: (h) => { h['signature-input'] = `${h['signature-input']}, sig=("@method");created=${nowS()};keyid="${partner.clientId}";alg="rsa-v1_5-sha256"`; h.signature = `${h.signature}, sig=:${b64(256)}:`; } });
  add('duplicate sig in Signature only: forged last', { edit: editSignature((s) => `${s}, sig=:${b64(256)}:`) });
  add('two labels, Signature lists only the other', { edit: (h) => { h['signature-input'] = `${h['signature-input']}, b=("@method");created=1`; h.signature = h.signature.replace(/^sig=/, 'b='); } });
  add('Signature-Input missing, Signature present', { edit: dropHeader('signature-input') });
  add('Signature missing, Signature-Input present', { edit: dropHeader('signature') });
  add('both signature headers missing', { edit: (h) => { delete h.signature; delete h['signature-input']; } });
  add('signature headers sent under other names', { edit: (h) => { h['x-signature'] = h.signature; h['x-signature-input'] = h['signature-input']; delete h.signature; delete h['signature-input']; } });

  // --- alg confusion
  for (const alg of ['none', 'hmac-sha256', 'rsa-pss-sha512', 'ecdsa-p256-sha256', 'ecdsa-p384-sha384', 'ed25519', 'RSA-V1_5-SHA256', 'rsa-v1_5-sha256 ', 'rsa-v1_5-sha1', 'rsa-sha256', '']) {
    add(`alg="${alg}"`, { edit: editInput((s) => s.replace('alg="rsa-v1_5-sha256"', `alg="${alg}"`)) });
  }
  add('alg missing', { edit: editInput((s) => s.replace(';alg="rsa-v1_5-sha256"', '')) });
  add('alg as a token', { edit: editInput((s) => s.replace('alg="rsa-v1_5-sha256"', 'alg=rsa-v1_5-sha256')) });
  add('alg twice, hmac last', { edit: editInput((s) => `${s};alg="hmac-sha256"`) });

  // --- keyid injection
  // (built lazily: the clients are registered after the cases are collected)
  const keyids: (() => string)[] = [
    () => '', () => ' ', () => 'c_', () => '*', () => '../../registry', () => 'CLIENT#c_AAAAAAAAAAAAAAAAAAAAAA', () => `c_${'A'.repeat(300)}`,
    () => 'A'.repeat(257), () => "c_x' OR '1'='1", () => '${jndi:ldap://x}', () => '<script>', () => `${partner.clientId} `,
    () => ` ${partner.clientId}`, () => partner.clientId.toUpperCase(), () => `${partner.clientId}\\\\`, () => other.clientId,
  ];
  keyids.forEach((keyid, i) => add(`keyid injection #${i}`, { edit: editInput((s) => s.replace(/keyid="[^"]*"/, `keyid="${keyid()}"`)) }));
  add('keyid with a raw quote', { edit: editInput((s) => s.replace(/keyid="([^"]*)"/, 'keyid="$1"x"')) });
  add('keyid with an escaped quote', { edit: editInput((s) => s.replace(/keyid="([^"]*)"/, 'keyid="$1\\""')) });
  add('keyid with a control character', { edit: editInput((s) => s.replace(/keyid="([^"]*)"/, 'keyid="$1\u0007"')) });
  add('keyid with a newline', { edit: editInput((s) => s.replace(/keyid="([^"]*)"/, 'keyid="$1\n"')) });
  add('keyid as a byte sequence', { edit: editInput((s) => s.replace(/keyid="([^"]*)"/, (_, id: string) => `keyid=:${Buffer.from(id).toString('base64')}:`)) });
  add('keyid missing', { edit: editInput((s) => s.replace(/;keyid="[^"]*"/, '')) });
  add('keyid twice, other client last', { edit: editInput((s) => `${s};keyid="${other.clientId}"`) });
  add('signed by another client, keyid of the target', { signer: () => ({ clientId: partner.clientId, key: other.key }) });
  add('signed by an unregistered key, keyid of the target', { signer: () => ({ clientId: partner.clientId, key: nextTestKey() }) });

  // --- A mutated byte in every covered header (and in the covered parameters)
  for (const name of ['signature-input', 'signature', 'date', 'host']) {
    for (const at of [0, 1, 5, 12, 20, -2, -3, -6]) add(`mutated ${name} at ${at}`, { edit: (h, host) => { h[name] = mutateAt(h[name] ?? host, at); } });
  }
  add('Host with an explicit non-default port', { edit: (h, host) => { h.host = `${host}:8443`; } });
  for (const at of [0, 3, 10, 20, -3, -5]) add(`mutated content-digest at ${at}`, { post: true, edit: (h) => { h['content-digest'] = mutateAt(h['content-digest'], at); } });
  add('created changed by one second', { edit: editInput((s) => s.replace(/created=(\d+)/, (_, c: string) => `created=${Number(c) - 1}`)) });
  add('expires added', { edit: editInput((s) => `${s};expires=${nowS() + 60}`) });
  add('nonce added', { edit: editInput((s) => `${s};nonce="abc"`) });
  add('date dropped from the covered list', { edit: editInput((s) => s.replace(' "date"', '')) });
  add('@target-uri dropped from the covered list', { edit: editInput((s) => s.replace(' "@target-uri"', '')) });
  add('@method dropped from the covered list', { edit: editInput((s) => s.replace('"@method" ', '')) });
  add('covered list reordered', { edit: editInput((s) => s.replace('"@method" "@target-uri"', '"@target-uri" "@method"')) });
  add('an absent header added to the covered list', { edit: editInput((s) => s.replace('"date"', '"date" "x-absent"')) });
  add('@path instead of @target-uri', { edit: editInput((s) => s.replace('"@target-uri"', '"@path"')) });
  add('@authority instead of @target-uri', { edit: editInput((s) => s.replace('"@target-uri"', '"@authority"')) });

  // --- Date in other formats (and absent, and out of the window)
  const now = nowS();
  const d = new Date(now * 1000);
  const dates = [
    d.toISOString(), d.toString(), String(now), d.toUTCString().replace('GMT', 'UTC'), d.toUTCString().replace('GMT', '+0000'),
    formatHttpDate(now).toLowerCase(), formatHttpDate(now).toUpperCase(), formatHttpDate(now).replace(', ', ' '),
    formatHttpDate(now).replace(/^\w+, /, ''), `${formatHttpDate(now)} `.repeat(2), formatHttpDate(now).replace(/ (\d)(\d) /, ' $2 '),
    'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994', formatHttpDate(now - 3_600), formatHttpDate(now + 3_600), '',
  ];
  dates.forEach((value, i) => add(`Date #${i}: ${JSON.stringify(value).slice(0, 50)}`, { edit: setHeader('date', value) }));
  add('Date header dropped', { edit: dropHeader('date') });
  add('created an hour ago', { created: now - 3_600 });
  add('created an hour ahead', { created: now + 3_600 });
  add('created at 0', { created: 0 });

  // --- Huge headers
  add('huge Signature-Input (20 KB)', { edit: editInput((s) => `${s};nonce="${'n'.repeat(20_000)}"`) });
  add('huge Signature (16 KB of signature)', { edit: setHeader('signature', `sig=:${b64(12_000)}:`) });
  add('huge Signature-Input with 1,000 labels', { edit: editInput((s) => `${Array.from({ length: 1_000 }, (_, i) => `l${i}=()`).join(', ')}, ${s}`) });
  add('huge Date (64 KB)', { edit: setHeader('date', 'x'.repeat(65_536)) });
  add('huge Content-Digest (64 KB)', { post: true, edit: setHeader('content-digest', `sha-256=:${b64(48_000)}:`) });
  add('a covered list of 500 components', { edit: editInput((s) => s.replace('"date")', `"date" ${Array.from({ length: 500 }, (_, i) => `"x-h${i}"`).join(' ')})`)) });

  // --- Non-ASCII
  add('non-ASCII in Signature-Input', { edit: editInput((s) => s.replace('"@method"', '"@méthod"')) });
  add('non-ASCII keyid', { edit: editInput((s) => s.replace(/keyid="/, 'keyid="é')) });
  add('non-ASCII in Signature', { edit: editSignature((s) => s.replace(/.:$/, 'é:')) });
  add('non-ASCII Date (Cyrillic T in GMT)', { edit: setHeader('date', formatHttpDate(nowS()).replace('GMT', 'GM\u0422')) });
  add('non-ASCII Content-Digest', { post: true, edit: (h) => { h['content-digest'] = h['content-digest'].replace(/.:$/, 'ü:'); } });
  add('zero-width space in the label', { edit: editInput((s) => `\u200b${s}`) });
  add('full-width equals sign', { edit: editInput((s) => s.replace('sig=', 'sig\uff1d')) });
  add('RTL override in keyid', { edit: editInput((s) => s.replace(/keyid="/, 'keyid="\u202e')) });

  // --- Body without digest, digest without its header, malformed digests
  add('body (Content-Length) but no digest covered', { edit: setHeader('content-length', '13') });
  add('Transfer-Encoding chunked but no digest covered', { edit: setHeader('transfer-encoding', 'chunked') });
  add('Content-Length with spaces', { edit: setHeader('content-length', ' 13 ') });
  add('digest covered, Content-Digest header removed', { post: true, edit: dropHeader('content-digest') });
  add('digest covered, Content-Digest with only sha-512', { post: true, edit: setHeader('content-digest', `sha-512=:${b64(64)}:`) });
  add('digest covered, Content-Digest with a short sha-256', { post: true, edit: setHeader('content-digest', `sha-256=:${b64(16)}:`) });
  add('digest covered, Content-Digest not a dictionary', { post: true, edit: setHeader('content-digest', 'sha-256=abc') });
  add('digest covered, a body digest swapped for another', { post: true, edit: setHeader('content-digest', `sha-256=:${b64(32)}:`) });
  add('digest covered only as one member (;key="sha-512")', { post: true, edit: editInput((s) => s.replace('"content-digest"', '"content-digest";key="sha-512"')) });

  // --- Broken event shapes (HTTP API)
  add('event: no headers at all', { event: (e) => { (e as { headers?: unknown }).headers = null; } });
  add('event: header values that are not strings', { event: (e) => { (e.headers as Record<string, unknown>)['signature'] = 42; (e.headers as Record<string, unknown>)['date'] = ['x']; } });
  add('event: no Host and no domainName', { event: (e) => { delete e.headers!.host; delete (e.requestContext as { domainName?: string }).domainName; } });
  add('event: Host of another API', { event: (e) => { e.headers!.host = 'evil.example.com'; } });
  add('event: method lower-case', { event: (e) => { e.requestContext.http.method = 'get'; } });
  add('event: method not a token', { event: (e) => { e.requestContext.http.method = 'G ET'; } });
  add('event: no method', { event: (e) => { delete (e.requestContext.http as { method?: string }).method; } });
  add('event: no http block', { event: (e) => { delete (e.requestContext as { http?: unknown }).http; } });
  add('event: no requestContext', { event: (e) => { delete (e as { requestContext?: unknown }).requestContext; } });
  add('event: rawPath with a dot-dot segment', { event: (e) => { e.rawPath = '/api/../registry/clients'; } });
  add('event: rawPath changed', { event: (e) => { e.rawPath = '/api/echo2'; } });
  add('event: rawQueryString changed', { event: (e) => { e.rawQueryString = 'q=2'; } });
  add('event: rawQueryString dropped', { event: (e) => { e.rawQueryString = ''; } });
  add('event: x-forwarded-proto http', { event: (e) => { e.headers!['x-forwarded-proto'] = 'http'; } });
  add('event: sourceIp "test-invoke-source-ip"', { event: (e) => { e.requestContext.http.sourceIp = 'test-invoke-source-ip'; }, signer: () => restricted });
  add('event: sourceIp garbage', { event: (e) => { e.requestContext.http.sourceIp = '999.1.1.1'; }, signer: () => restricted });
  add('event: sourceIp missing, X-Forwarded-For inside the whitelist', { event: (e) => { delete (e.requestContext.http as { sourceIp?: string }).sourceIp; e.headers!['x-forwarded-for'] = '10.0.0.1'; }, signer: () => restricted });
  return cases;
}

const CASES = hostileCases();
const validCode = (code: unknown): boolean => typeof code === 'string' && code in ERROR_CODES && ERROR_CODES[code as keyof typeof ERROR_CODES] < 500;

test('there are at least 200 distinct hostile requests', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(200);
  expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
});

test('the unspoiled requests are allowed (so every refusal below is caused by the spoiling)', async () => {
  for (const post of [false, true]) {
    const call = callFor(HTTP_API_HOST, '', { name: 'valid', post });
    const { headers } = sign(call, partner);
    expect(await authorizer.httpApiHandler(httpApiAuthorizerEvent(call, { headers }))).toMatchObject({ isAuthorized: true });
    const restCall = callFor(REST_API_HOST, '/prod', { name: 'valid', post });
    const rest = await authorizer.restApiHandler(restAuthorizerEvent(restCall, { headers: sign(restCall, partner).headers }));
    expect(rest.policyDocument.Statement[0].Effect).toBe('Allow');
  }
  const inside = callFor(HTTP_API_HOST, '', { name: 'valid' });
  const event = httpApiAuthorizerEvent(inside, { headers: sign(inside, restricted).headers, sourceIp: '10.0.0.1' });
  expect(await authorizer.httpApiHandler(event)).toMatchObject({ isAuthorized: true });
});

describe('HTTP API handler: every hostile request is refused with a 4xx reason code, none crashes', () => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, hostile) => {
    const call = callFor(HTTP_API_HOST, '', hostile);
    const { headers } = sign(call, (hostile.signer ?? (() => partner))());
    hostile.edit?.(headers, HTTP_API_HOST);
    const event = httpApiAuthorizerEvent(call, { headers });
    hostile.event?.(event);
    const outcome = await outcomeOf(authorizer.httpApiHandler(event));
    if (!outcome.ok) throw new Error(`crashed: ${outcome.error.name}: ${outcome.error.message}`);
    expect(outcome.value.isAuthorized).toBe(false);
    const code = (outcome.value.context as { signetError?: string }).signetError;
    expect(validCode(code) ? 'a 4xx code' : code).toBe('a 4xx code');
  });
});

describe('REST handler: every header-level hostile request is a 401 or a Deny with a 4xx code, none crashes', () => {
  test.each(CASES.filter((c) => c.event === undefined).map((c) => [c.name, c] as const))('%s', async (_, hostile) => {
    const call = callFor(REST_API_HOST, '/prod', hostile);
    const { headers } = sign(call, (hostile.signer ?? (() => partner))());
    hostile.edit?.(headers, REST_API_HOST);
    const outcome = await outcomeOf(authorizer.restApiHandler(restAuthorizerEvent(call, { headers })));
    if (!outcome.ok) {
      expect(outcome.error.message).toBe('Unauthorized');
      return;
    }
    expect(outcome.value.policyDocument.Statement[0].Effect).toBe('Deny');
    expect(validCode((outcome.value.context as { signetError?: string }).signetError)).toBe(true);
  });
});

describe('property: random mutations of a valid signed request never verify', () => {
  /** What a mutation may touch: the signature bytes, a covered header's text, or the URL/method of the event. */
  const target = fc.constantFrom('signature', 'signature-input', 'date', 'content-digest', 'host', 'rawPath', 'rawQueryString', 'method');
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_.~!$&()*+,;=:@/?%';
  // A Host the adapter cannot parse is ignored for requestContext.domainName (API Gateway's own
  // value), so the host is mutated into another valid host name.
  const hostAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

  test('HTTP API', async () => {
    const call = { method: 'POST', url: `https://${HTTP_API_HOST}/api/echo?q=1&r=two`, body: BODY };
    await fc.assert(
      fc.asyncProperty(target, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), async (what, position, pick, xor) => {
        const { headers } = sign(call, partner);
        const event = httpApiAuthorizerEvent(call, { headers });
        const h = event.headers as Headers;
        const change = (text: string, chars = alphabet): string => {
          const i = position % text.length;
          const candidates = [...chars].filter((c) => c !== text[i] && c !== text[i].toLowerCase() && c !== text[i].toUpperCase());
          return text.slice(0, i) + candidates[pick % candidates.length] + text.slice(i + 1);
        };
        if (what === 'signature') {
          const bytes = Buffer.from(h.signature.slice(5, -1), 'base64');
          bytes[position % bytes.length] ^= xor;
          h.signature = `sig=:${bytes.toString('base64')}:`;
        } else if (what === 'rawPath') event.rawPath = change(event.rawPath);
        else if (what === 'rawQueryString') event.rawQueryString = change(event.rawQueryString);
        else if (what === 'method') event.requestContext.http.method = ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'][pick % 6];
        else if (what === 'host') h.host = change(h.host, hostAlphabet);
        else h[what] = change(h[what]);
        const outcome = await outcomeOf(authorizer.httpApiHandler(event));
        return outcome.ok && outcome.value.isAuthorized === false && validCode((outcome.value.context as { signetError?: string }).signetError);
      }),
      { numRuns: 150 },
    );
  });
});

/**
 * Counts the work one decision does: query parses (URLSearchParams built), signature bases built,
 * registry lookups, and readings of the Signature-Input and Signature texts (each verifier is new,
 * so no memo of an earlier request answers for it).
 */
async function countWork(
  event: APIGatewayRequestAuthorizerEventV2,
  profile?: CoverageProfile,
): Promise<{ code: string; queryParses: number; bases: number; lookups: number; inputReads: number; signatureReads: number; candidates: number; decision: Decision }> {
  const work = { queryParses: 0, bases: 0, lookups: 0, inputReads: 0, signatureReads: 0 };
  const onFieldRead = (field: 'Signature-Input' | 'Signature') => (field === 'Signature-Input' ? (work.inputReads += 1) : (work.signatureReads += 1));
  const Original = globalThis.URLSearchParams;
  class CountingSearchParams extends Original {
    constructor(...args: ConstructorParameters<typeof URLSearchParams>) {
      super(...args);
      work.queryParses += 1;
    }
  }
  const store = new DynamoClientStore({ tableName: tableNameOf(), client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const directory = new ClientDirectory({
    getClient: (id) => ((work.lookups += 1), store.getClient(id)),
    getClientByThumbprint: (thumbprint) => ((work.lookups += 1), store.getClientByThumbprint(thumbprint)),
  });
  const deps = { verifier: createVerifier({ policy: defaultVerifyPolicy({ onBase: () => (work.bases += 1) }), profile, onFieldRead }), directory, roles: compileRoleCatalogue({ partner: ['GET /api/*'] }) };
  const adapted = adaptHttpApiEvent(event);
  // What the runtime passes (the cast and fallback let this test run against older code, to see it fail there).
  const lazy = (adapted as { alternativeTargetUris?: Iterable<string> }).alternativeTargetUris ?? adapted.targetUriCandidates;
  globalThis.URLSearchParams = CountingSearchParams;
  let decision: Awaited<ReturnType<typeof authorize>>;
  try {
    decision = await authorize({ request: adapted.request, targetUriCandidates: lazy, operationPath: adapted.apiPath }, deps);
  } finally {
    globalThis.URLSearchParams = Original;
  }
  return { code: decision.allowed ? 'allowed' : decision.error.code, ...work, candidates: adapted.targetUriCandidates.length, decision };
}

describe('bounded work: what a request costs before its key is known', () => {
  /** Characters the four path encoders write differently: the HTTP API adapter offers 4 candidate URLs. */
  const PATH = "/api/x^$'";
  /** A long query holding p0..p249 once each, then padding parameters (about 8 KB). */
  const QUERY = (() => {
    const pairs = Array.from({ length: 250 }, (_, i) => `p${i}=v${i}`);
    for (let i = 0; pairs.join('&').length < 8_000; i++) pairs.push(`z${i}=1`);
    return pairs.join('&');
  })();

  /** An HTTP API event whose Signature-Input covers @method, @target-uri, date and `queryParams` @query-param components; the signature is random bytes. */
  function forgedEvent(queryParams: number, keyId: string): APIGatewayRequestAuthorizerEventV2 {
    const covered = ['"@method"', '"@target-uri"', '"date"', ...Array.from({ length: queryParams }, (_, i) => `"@query-param";name="p${i}"`)];
    const headers = {
      date: formatHttpDate(nowS()),
      'signature-input': `sig=(${covered.join(' ')});created=${nowS()};keyid="${keyId}";alg="rsa-v1_5-sha256"`,
      signature: `sig=:${randomBytes(256).toString('base64')}:`,
    };
    return httpApiAuthorizerEvent({ method: 'GET', url: `https://${HTTP_API_HOST}${PATH}?${QUERY}` }, { headers });
  }

  test('the request of the report (250 @query-param over a long query, made-up keyid) is refused by the HTTP API handler with invalid_signature_input', async () => {
    const outcome = await outcomeOf(authorizer.httpApiHandler(forgedEvent(250, 'c_MadeUpKeyidNobodyHolds')));
    if (!outcome.ok) throw outcome.error;
    expect(outcome.value).toMatchObject({ isAuthorized: false, context: { signetError: 'invalid_signature_input' } });
    expect((outcome.value.context as { signetMessage?: string }).signetMessage).toMatch(/covers 253 components; Signet verifies at most 16/);
  });

  test('the same request does no query parse, builds no signature base and reads no registry entry', async () => {
    const work = await countWork(forgedEvent(250, 'c_MadeUpKeyidNobodyHolds'));
    expect(work).toMatchObject({ code: 'invalid_signature_input', queryParses: 0, bases: 0, lookups: 0 });
  });

  test('at the cap (16 components, 13 of them @query-param) with a made-up keyid: one lookup, and no base, query parse or alternative URL', async () => {
    const work = await countWork(forgedEvent(13, 'c_MadeUpKeyidNobodyHolds'));
    expect(work.candidates).toBe(4); // the adapter has alternatives to offer; none is built for a keyid nobody holds
    expect(work).toMatchObject({ code: 'unknown_client', queryParses: 0, bases: 0, lookups: 1 });
  });

  test("at the cap with a registered client's keyid and a forged signature: each candidate URL's base built once, the query parsed once per base", async () => {
    const work = await countWork(forgedEvent(13, partner.clientId));
    expect(work).toMatchObject({ code: 'signature_mismatch', queryParses: 4, bases: 4, lookups: 1 });
  });

  test('one component over the cap is refused before any base, lookup or query parse', async () => {
    const work = await countWork(forgedEvent(14, partner.clientId));
    expect(work).toMatchObject({ code: 'invalid_signature_input', queryParses: 0, bases: 0, lookups: 0 });
  });
});

describe('junk costs no registry read: every check every profile makes runs before a keyid is looked up', () => {
  const MADE_UP = 'c_MadeUpKeyidNobodyHolds';
  const URL = `https://${HTTP_API_HOST}/api/echo?q=1`;
  const randomSignature = (): string => `:${randomBytes(256).toString('base64')}:`;

  /** Signature-Input parameters of a well-formed member (covering @method, @target-uri and date) with these changes. */
  function params(keyid: string, { created = nowS(), alg = 'rsa-v1_5-sha256', covered = '"@method" "@target-uri" "date"' }: { created?: number; alg?: string; covered?: string } = {}): string {
    return `(${covered});created=${created};keyid="${keyid}";alg="${alg}"`;
  }

  /** An HTTP API GET whose Signature-Input and Signature hold these members (label → parameters, label → Signature value; random bytes by default). */
  function eventWith(members: Record<string, string>, signatures: Record<string, string> = {}): APIGatewayRequestAuthorizerEventV2 {
    const labels = Object.keys(members);
    const headers = {
      date: formatHttpDate(nowS()),
      'signature-input': labels.map((l) => `${l}=${members[l]}`).join(', '),
      signature: labels.map((l) => `${l}=${signatures[l] ?? randomSignature()}`).join(', '),
    };
    return httpApiAuthorizerEvent({ method: 'GET', url: URL }, { headers });
  }

  const JUNK: readonly [string, (label: string) => APIGatewayRequestAuthorizerEventV2, string][] = [
    ['a refused alg (hmac-sha256)', (l) => eventWith({ [l]: params(MADE_UP, { alg: 'hmac-sha256' }) }), 'unsupported_algorithm'],
    ['an unknown alg', (l) => eventWith({ [l]: params(MADE_UP, { alg: 'rsa-sha1' }) }), 'unsupported_algorithm'],
    ['nothing covered', (l) => eventWith({ [l]: params(MADE_UP, { covered: '' }) }), 'missing_component'],
    ['a malformed Signature', (l) => eventWith({ [l]: params(MADE_UP) }, { [l]: ':not base64!:' }), 'malformed_signature'],
    ['created=1', (l) => eventWith({ [l]: params(MADE_UP, { created: 1 }) }), 'expired'],
  ];

  describe.each([
    ['signet', 'sig'],
    ['rfc9421', 'sig'],
    ['rfc9421', 'sig1'],
  ] as const)('%s deployment, label %s', (profile, label) => {
    test.each(JUNK)('a made-up keyid with %s: refused with 0 registry reads', async (_name, build, code) => {
      const work = await countWork(build(label), profile);
      expect(work).toMatchObject({ code, lookups: 0, bases: 0 });
    });
  });

  test('the signet deployment refuses junk under another label with its own label rule, with 0 registry reads', async () => {
    for (const [, build] of JUNK) expect(await countWork(build('sig1'), 'signet')).toMatchObject({ code: 'signature_label_missing', lookups: 0 });
  });

  test('several signatures: only those that pass the shared checks are looked up, one read each, at most 4', async () => {
    // Two junk members (not read), two that pass with keyids nobody holds (one read each).
    const mixed = eventWith({
      a: params('c_NobodyA', { created: 1 }),
      b: params('c_NobodyB'),
      c: params('c_NobodyC', { alg: 'hmac-sha256' }),
      d: params('c_NobodyD'),
    });
    expect(await countWork(mixed, 'rfc9421')).toMatchObject({ code: 'unknown_client', lookups: 2 });
    const four = eventWith(Object.fromEntries(['a', 'b', 'c', 'd'].map((l) => [l, params(`c_Nobody${l}`)])));
    expect(await countWork(four, 'rfc9421')).toMatchObject({ code: 'unknown_client', lookups: 4 });
    const five = eventWith(Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((l) => [l, params(`c_Nobody${l}`)])));
    expect(await countWork(five, 'rfc9421')).toMatchObject({ code: 'invalid_signature_input', lookups: 0 });
  });

  test('web-bot-auth junk (a validity over the bound, no tag, or a Signature-Agent it does not cover) costs 0 registry reads under every deployment profile', async () => {
    const thumbprint = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
    const agent = (members: Record<string, string>, signatureAgent?: string) => {
      const event = eventWith(members);
      if (signatureAgent !== undefined) event.headers = { ...event.headers, 'signature-agent': signatureAgent };
      return event;
    };
    const now = nowS();
    const cases: readonly [APIGatewayRequestAuthorizerEventV2, string][] = [
      [agent({ sig1: `("@authority");created=${now};expires=${now + 2 * 86_400};keyid="${thumbprint}";tag="web-bot-auth"` }), 'invalid_signature_input'],
      [agent({ sig1: `("@authority");created=${now};expires=${now + 60};keyid="${thumbprint}"` }), ''],
      [agent({ sig1: `("@authority");created=${now};expires=${now + 60};keyid="${thumbprint}";tag="web-bot-auth"` }, 'sig1="https://agent.example"'), 'signature_agent_mismatch'],
    ];
    for (const profile of ['signet', 'rfc9421', 'web-bot-auth'] as const) {
      for (const [event, code] of cases) {
        const work = await countWork(event, profile);
        expect({ profile, lookups: work.lookups }).toEqual({ profile, lookups: 0 });
        if (code !== '') expect({ profile, code: work.code }).toEqual({ profile, code });
      }
    }
  });

  test('each request reads Signature-Input once and Signature at most once, whatever its label and however many steps its refusal takes', async () => {
    const malformedInput = '("@method" "@target-uri" "date";created=1';
    // [what, the request, the deployment's profile, the outcome, times Signature is read]
    const cases: readonly [string, APIGatewayRequestAuthorizerEventV2, CoverageProfile, string, number][] = [
      ['a valid request of a registered client, label sig', httpApiAuthorizerEvent({ method: 'GET', url: URL }, { headers: sign({ method: 'GET', url: URL }, partner).headers }), 'signet', 'allowed', 1],
      ['a made-up keyid, label sig', eventWith({ sig: params(MADE_UP) }), 'signet', 'unknown_client', 1],
      // The sig label is looked for first, then the member list, then sig1: one parse serves all three.
      ['a made-up keyid, label sig1', eventWith({ sig1: params(MADE_UP) }), 'rfc9421', 'unknown_client', 1],
      ['junk labelled sig1 under the signet profile (refused for its label)', eventWith({ sig1: params(MADE_UP, { created: 1 }) }), 'signet', 'signature_label_missing', 1],
      ['two signatures, one junk', eventWith({ a: params('c_NobodyA', { created: 1 }), b: params('c_NobodyB') }), 'rfc9421', 'unknown_client', 1],
      ['a malformed Signature-Input', eventWith({ sig: malformedInput }), 'rfc9421', 'malformed_signature_input', 0],
      ['a malformed Signature-Input under the signet profile', eventWith({ sig: malformedInput }), 'signet', 'malformed_signature_input', 0],
      ['a malformed Signature', eventWith({ sig1: params(MADE_UP) }, { sig1: ':not base64!:' }), 'rfc9421', 'malformed_signature', 1],
    ];
    for (const [name, event, profile, code, signatureReads] of cases) {
      const work = await countWork(event, profile);
      expect({ name, code: work.code, inputReads: work.inputReads, signatureReads: work.signatureReads }).toEqual({ name, code, inputReads: 1, signatureReads });
    }
  });

  test("a signature that passes the shared checks but whose keyid (a key thumbprint) names no client is unknown_client, not the deployment's label or coverage rule", async () => {
    // What a generic RFC 9421 signer sends: its own label, the target as @authority and @path, no alg, no date.
    const thumbprint = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
    const generic = eventWith({ sig1: `("@method" "@authority" "@path" "@query");created=${nowS()};keyid="${thumbprint}"` });
    for (const profile of ['signet', 'rfc9421'] as const) {
      const work = await countWork(generic, profile);
      expect(work).toMatchObject({ code: 'unknown_client', lookups: 1, decision: { keyId: thumbprint } });
      expect(work.decision.allowed ? '' : work.decision.error.message).toMatch(/^No registered client has this keyid\. Put your clientId in keyid/);
    }
    // Through the handler (signet deployment): the same refusal reaches the caller.
    const outcome = await outcomeOf(authorizer.httpApiHandler(generic));
    expect(outcome.ok && outcome.value).toMatchObject({ isAuthorized: false, context: { signetError: 'unknown_client' } });
  });
});
