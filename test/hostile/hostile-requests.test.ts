/**
 * Hostile requests through the deployed HTTP API authorizer handler, on DynamoDB Local with a real
 * registered client (and the echo backend's body check behind it for what the authorizer lets
 * through, since it never sees the body).
 *
 * Several hundred distinct requests, by family: malformed Structured Fields, duplicate and missing
 * labels, several signatures, algorithm confusion, keyid injection, bad Base64, wrong signature
 * lengths, one byte changed at every position of every signed header, other Date formats, huge
 * headers, non-ASCII, a body without a digest and a digest without its body. Many carry a
 * signature that is cryptographically valid for what they claim (signed by hand with the client's
 * key over the core's own base), so they are refused by policy, not by luck.
 *
 * Asserted: none is accepted; no exception escapes the handler except the fail-closed
 * AuthorizerFailure (API Gateway's 500); every refusal has a code from ERROR_CODES, and the
 * expected one where a family pins it. The count per reason code is printed.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { generateRsaKeyPair, spkiPemOf } from '../../lambda/core/keys';
import { formatHttpDate } from '../../lambda/core/http-date';
import { computeContentDigest } from '../../lambda/core/content-digest';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  HTTP_API_HOST,
  Signer,
  authorizerEnv,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  nowS,
  registerClient,
  sign,
} from '../authorizer/support';
import { ReasonTally, Verdict, flipSignatureBit, handSign, isKnownCode, verdictOf, type SigningAlgorithm } from './hostile-support';
import { report } from '../support/report';
import { nextTestKey } from '../support/test-keys';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
let authorizer: AuthorizerModule;
let partner: Signer;
let otherClient: Signer;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  const tableName = await ddb.createTable();
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  partner = await registerClient(store, { name: 'Hostile target', roles: ['partner'] });
  otherClient = await registerClient(store, { name: 'Another partner', roles: ['partner'] });
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint));
});

afterAll(async () => {
  await ddb?.stop();
});

const ECHO = `https://${HTTP_API_HOST}/api/echo`;
const BODY = '{"amount":10,"currency":"EUR"}';

/** One hostile request: the event, the body actually sent, and the code it must get (if pinned). */
interface HostileCase {
  readonly family: string;
  readonly name: string;
  readonly event: APIGatewayRequestAuthorizerEventV2;
  readonly sentBody?: string;
  /** Acceptable codes; undefined: any code from ERROR_CODES. */
  readonly expect?: readonly string[];
}

/** The usual components and parameters of a signature, as Signature-Input text for label `sig`. */
function inputText(components: readonly string[], params: string, label = 'sig'): string {
  return `${label}=(${components.join(' ')})${params}`;
}

function stdParams(created = nowS(), keyId = partner.clientId, alg = 'rsa-v1_5-sha256'): string {
  return `;created=${created};keyid="${keyId}";alg="${alg}"`;
}

const GET_COMPONENTS = ['"@method"', '"@target-uri"', '"date"'];
const POST_COMPONENTS = ['"@method"', '"@target-uri"', '"content-digest"', '"date"'];

/** Headers a GET / POST carries before signing (the date of `created`). */
function baseHeaders(created: number, body?: string): Record<string, string> {
  const h: Record<string, string> = { date: formatHttpDate(created) };
  if (body !== undefined) {
    h['content-digest'] = computeContentDigest(body);
    h['content-type'] = 'application/json';
    h['content-length'] = String(Buffer.byteLength(body));
  }
  return h;
}

/** A case from already-final headers for `method url` (the body sent defaults to the signed one). */
function caseOf(family: string, name: string, method: string, url: string, headers: Record<string, string>, options: { body?: string; sentBody?: string; expect?: readonly string[] } = {}): HostileCase {
  const event = httpApiAuthorizerEvent({ method, url, body: options.sentBody ?? options.body }, { headers });
  return { family, name, event, sentBody: options.sentBody ?? options.body, expect: options.expect };
}

/** A valid signed GET or POST's headers (core signer), to be changed by a case. */
function validHeaders(method: 'GET' | 'POST', url = ECHO, signer: Signer = partner): Record<string, string> {
  return { ...sign({ method, url, body: method === 'POST' ? BODY : undefined }, signer).headers };
}

/** A hand-signed request (cryptographically valid for its own Signature-Input). */
function handSigned(
  family: string,
  name: string,
  o: {
    method?: string; url?: string; body?: string; components?: readonly string[]; params?: string; headers?: Record<string, string>; algorithm?: SigningAlgorithm;
    key?: import('node:crypto').KeyObject; hmacSecret?: string; expect?: readonly string[]; label?: string; fullInput?: string; extraSignature?: string;
  },
): HostileCase {
  const method = o.method ?? 'GET';
  const url = o.url ?? ECHO;
  const created = nowS();
  const headers = { ...baseHeaders(created, o.body), ...(o.headers ?? {}) };
  const components = o.components ?? (o.body !== undefined ? POST_COMPONENTS : GET_COMPONENTS);
  const signatureInput = o.fullInput ?? inputText(components, o.params ?? stdParams(created), o.label ?? 'sig');
  const signed = handSign({
    method,
    url,
    headers,
    signatureInput,
    label: o.label ?? 'sig',
    key: o.key ?? partner.key.key,
    algorithm: o.algorithm,
    hmacSecret: o.hmacSecret,
    extraSignatureMembers: o.extraSignature,
  });
  return caseOf(family, name, method, url, signed.headers, { body: o.body, expect: o.expect });
}

function buildCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const created = nowS();

  // ---- 1. Malformed Structured Fields in Signature-Input (the valid Signature kept).
  const malformedInputs: [string, readonly string[] | undefined][] = [
    ['', ['signature_label_missing']], // RFC 8941: an empty field is an empty dictionary
    [' ', ['malformed_signature_input', 'signature_label_missing']],
    ['sig', ['malformed_signature_input']],
    ['sig=', ['malformed_signature_input']],
    ['sig=(', ['malformed_signature_input']],
    ['sig=()', undefined],
    ['sig=("@method"', ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date";created=${created}`, ['malformed_signature_input']],
    [`sig=(@method @target-uri date);created=${created}`, ['malformed_signature_input']],
    [`sig=('@method' '@target-uri');created=${created}`, ['malformed_signature_input']],
    [`sig=("@method","@target-uri","date");created=${created}`, ['malformed_signature_input']],
    [`sig=("@method"\t"@target-uri" "date");created=${created}`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date")created=${created}`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");;created=${created}`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=abc`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=1.5;keyid="x"`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=?1;keyid="x"`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created="${created}";keyid="x"`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=9999999999999999;keyid="x"`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=@${created};keyid="x"`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=${created};keyid=abc`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=${created};keyid=:YWJj:`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=${created};keyid=%"abc"`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=${created};keyid="${partner.clientId}";alg=rsa-v1_5-sha256`, ['malformed_signature_input']],
    [`sig=("@méthod" "@target-uri" "date");created=${created}`, ['malformed_signature_input']],
    [`sig=("\\@method" "@target-uri");created=${created}`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=${created},`, ['malformed_signature_input']],
    [`,sig=("@method" "@target-uri" "date");created=${created}`, ['malformed_signature_input']],
    [`=("@method" "@target-uri" "date");created=${created}`, ['malformed_signature_input']],
    [`SIG=("@method" "@target-uri" "date");created=${created}`, ['malformed_signature_input']],
    [`sig=(("@method") "@target-uri");created=${created}`, ['malformed_signature_input']],
    [`sig="@method";created=${created}`, ['malformed_signature_input']],
    [`sig=?1`, ['malformed_signature_input']],
    [`sig=:YWJj:`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=${created};keyid="${partner.clientId}";alg="rsa-v1_5-sha256" trailing`, ['malformed_signature_input']],
    [`sig=("@method" "@method" "@target-uri" "date");created=${created};keyid="${partner.clientId}";alg="rsa-v1_5-sha256"`, ['malformed_signature_input']],
    [`sig=("@METHOD" "@target-uri" "date");created=${created};keyid="${partner.clientId}";alg="rsa-v1_5-sha256"`, ['malformed_signature_input']],
    [`sig=("Date" "@method" "@target-uri");created=${created};keyid="${partner.clientId}";alg="rsa-v1_5-sha256"`, ['malformed_signature_input']],
    [`sig=(1 "@method");created=${created}`, ['malformed_signature_input']],
    [`sig=("@method" "@target-uri" "date");created=${created};KEYID="${partner.clientId}"`, ['malformed_signature_input']],
  ];
  const validGet = validHeaders('GET');
  for (const [value, expect] of malformedInputs) {
    cases.push(caseOf('malformed Signature-Input', JSON.stringify(value), 'GET', ECHO, { ...validGet, 'signature-input': value }, { expect }));
  }

  // ---- 2. Policy violations carried by a valid hand-made signature.
  const policy: [string, Parameters<typeof handSigned>[2]][] = [
    ['no @target-uri covered', { components: ['"@method"', '"date"'], expect: ['missing_component'] }],
    ['no @method covered', { components: ['"@target-uri"', '"date"'], expect: ['missing_component'] }],
    ['no date covered (legacy refused)', { components: ['"@method"', '"@target-uri"'], expect: ['missing_component'] }],
    ['nothing covered', { components: [], expect: ['missing_component'] }],
    ['@authority instead of @target-uri', { components: ['"@method"', '"@authority"', '"@path"', '"date"'], expect: ['missing_component'] }],
    ['@request-target instead of @target-uri', { components: ['"@method"', '"@request-target"', '"date"'], expect: ['missing_component'] }],
    ['no created', { params: `;keyid="${partner.clientId}";alg="rsa-v1_5-sha256"`, expect: ['missing_created'] }],
    ['created 10 minutes ahead', { params: stdParams(created + 600), expect: ['clock_skew'] }],
    ['created an hour old', { params: stdParams(created - 3_600), expect: ['expired'] }],
    ['created at 0', { params: stdParams(0), expect: ['expired'] }],
    ['created negative', { params: stdParams(-5), expect: ['expired', 'malformed_signature_input'] }],
    ['expires in the past', { params: `${stdParams(created)};expires=${created - 10}`, expect: ['expired'] }],
    ['no keyid', { params: `;created=${created};alg="rsa-v1_5-sha256"`, expect: ['missing_keyid'] }],
    ['empty keyid', { params: stdParams(created, ''), expect: ['missing_keyid'] }],
    ['no alg', { params: `;created=${created};keyid="${partner.clientId}"`, expect: ['unsupported_algorithm'] }],
    ['unknown covered derived component', { components: [...GET_COMPONENTS, '"@foo"'], expect: ['unsupported_component'] }],
    ['@query-param without name', { components: [...GET_COMPONENTS, '"@query-param"'], expect: ['unsupported_component'] }],
    ['@query-param absent', { components: [...GET_COMPONENTS, '"@query-param";name="nope"'], expect: ['absent_component'] }],
    ['covered header absent', { components: [...GET_COMPONENTS, '"x-not-sent"'], expect: ['absent_component'] }],
    ['date with ;bs', { components: ['"@method"', '"@target-uri"', '"date";bs'], expect: ['unsupported_component'] }],
    ['@method with ;req', { components: ['"@method";req', '"@target-uri"', '"date"'], expect: ['unsupported_component'] }],
    ['date with ;sf (not a structured field)', { components: ['"@method"', '"@target-uri"', '"date";sf'], expect: ['unsupported_component'] }],
    ['content-digest for one member only', { method: 'POST', body: BODY, components: ['"@method"', '"@target-uri"', '"content-digest";key="sha-256"', '"date"'], expect: ['digest_required'] }],
    ['signed for another client id (keyid of the other client)', { params: stdParams(created, otherClient.clientId), expect: ['signature_mismatch'] }],
    ['signed for an unknown client', { params: stdParams(created, newClientId()), expect: ['unknown_client'] }],
    ['date an hour before created', { headers: { date: formatHttpDate(created - 3_600) }, expect: ['clock_skew'] }],
    ['date 10 minutes after created', { headers: { date: formatHttpDate(created + 600) }, expect: ['clock_skew'] }],
    ['date and created both an hour ahead', { headers: { date: formatHttpDate(created + 3_600) }, params: stdParams(created + 3_600), expect: ['clock_skew'] }],
  ];
  for (const [name, o] of policy) cases.push(handSigned('policy violation, validly signed', name, o));

  // ---- 3. Duplicate, missing and other labels; several signatures.
  const good = validHeaders('GET');
  const otherSigned = validHeaders('GET', `${ECHO}?other=1`);
  const weak = handSign({ method: 'GET', url: ECHO, headers: baseHeaders(created), signatureInput: inputText(['"@method"'], stdParams(created)), key: partner.key.key });
  const labelCases: [string, Record<string, string>, readonly string[] | undefined][] = [
    ['no Signature-Input', { ...good, 'signature-input': undefined as unknown as string }, ['missing_signature']],
    ['no Signature', { ...good, signature: undefined as unknown as string }, ['missing_signature']],
    ['neither header', { date: good.date }, ['missing_signature']],
    ['Signature-Input labelled sig2 only', { ...good, 'signature-input': good['signature-input'].replace(/^sig=/, 'sig2=') }, ['signature_label_missing']],
    ['Signature labelled sig2 only', { ...good, signature: good.signature.replace(/^sig=/, 'sig2=') }, ['signature_label_missing']],
    ['both labelled proxy_sig', { ...good, 'signature-input': good['signature-input'].replace(/^sig=/, 'proxy_sig='), signature: good.signature.replace(/^sig=/, 'proxy_sig=') }, ['signature_label_missing']],
    ['duplicate sig in Signature-Input, the later one another request\'s', { ...good, 'signature-input': `${good['signature-input']}, ${otherSigned['signature-input'].replace(/created=\d+/, `created=${created - 1}`)}` }, ['signature_mismatch']],
    ['duplicate sig in Signature, the later one another request\'s', { ...good, signature: `${good.signature}, ${otherSigned.signature}` }, ['signature_mismatch']],
    ['duplicate sig in both, the later pair weaker (only @method)', { ...good, 'signature-input': `${good['signature-input']}, ${weak.headers['signature-input']}`, signature: `${good.signature}, ${weak.headers.signature}` }, ['missing_component']],
    [
      'valid signature under label good, junk under sig',
      {
        ...good,
        'signature-input': `${weak.headers['signature-input']}, ${good['signature-input'].replace(/^sig=/, 'good=')}`,
        signature: `sig=:${randomBytes(256).toString('base64')}:, ${good.signature.replace(/^sig=/, 'good=')}`,
      },
      ['missing_component'],
    ],
    ['Signature-Input as an empty list member', { ...good, 'signature-input': `sig=(), ${good['signature-input'].replace(/^sig=/, 'other=')}` }, undefined],
    ['Signature for sig is an inner list', { ...good, signature: `sig=(${good.signature.slice(4)})` }, ['malformed_signature']],
    ['Signature for sig is a token', { ...good, signature: 'sig=abc' }, ['malformed_signature']],
    ['Signature for sig is a string', { ...good, signature: `sig="${good.signature.slice(5, -1)}"` }, ['malformed_signature']],
    ['Signature for sig is a boolean', { ...good, signature: 'sig' }, ['malformed_signature']],
  ];
  for (const [name, headers, expect] of labelCases) {
    const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined));
    cases.push(caseOf('labels and several signatures', name, 'GET', ECHO, clean, { expect }));
  }
  // A valid signature under another label, no sig at all.
  cases.push(handSigned('labels and several signatures', 'only a validly signed label other', { label: 'other', expect: ['signature_label_missing'] }));

  // ---- 4. Algorithm confusion.
  const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const edKey = generateKeyPairSync('ed25519').privateKey;
  const strangerRsa = nextTestKey();
  const rsa3072 = generateRsaKeyPair(3072);
  const publicPem = spkiPemOf(partner.key.publicKey);
  for (const alg of ['none', 'hmac-sha256', 'rsa-pss-sha512', 'rsa-pss-sha256', 'ecdsa-p256-sha256', 'ecdsa-p384-sha384', 'ed25519', 'RSA-V1_5-SHA256', 'rsa-v1_5-sha256 ', 'rsa-v1_5-sha512', 'rsa-v1_5-sha1', 'rsa-v1_5', 'rsa-v1_5-sha256\\', '', 'rsa-v1_5-sha256, hmac-sha256']) {
    // A real algorithm that is not this client's key's: algorithm_mismatch; anything else is not an algorithm Signet verifies.
    const known = ['rsa-pss-sha512', 'ecdsa-p256-sha256', 'ecdsa-p384-sha384', 'ed25519'].includes(alg);
    cases.push(handSigned('algorithm confusion', `alg=${JSON.stringify(alg)}`, { params: `;created=${created};keyid="${partner.clientId}";alg="${alg.replace(/\\/g, '\\\\')}"`, expect: [known ? 'algorithm_mismatch' : 'unsupported_algorithm'] }));
  }
  const confused: [string, Parameters<typeof handSigned>[2]][] = [
    ['RSA-PSS SHA-256 signature claiming rsa-v1_5-sha256', { algorithm: 'rsa-pss-sha256', expect: ['signature_mismatch'] }],
    ['RSA-PSS SHA-512 signature claiming rsa-v1_5-sha256', { algorithm: 'rsa-pss-sha512', expect: ['signature_mismatch'] }],
    ['PKCS#1 v1.5 with SHA-512 claiming SHA-256', { algorithm: 'rsa-v1_5-sha512', expect: ['signature_mismatch'] }],
    ['PKCS#1 v1.5 with SHA-1 claiming SHA-256', { algorithm: 'rsa-v1_5-sha1', expect: ['signature_mismatch'] }],
    ['HMAC-SHA256 keyed with the public key PEM, claiming rsa', { algorithm: 'hmac-sha256', hmacSecret: publicPem, expect: ['signature_mismatch'] }],
    ['HMAC-SHA256 keyed with the public key PEM, alg hmac', { algorithm: 'hmac-sha256', hmacSecret: publicPem, params: stdParams(created, partner.clientId, 'hmac-sha256'), expect: ['unsupported_algorithm'] }],
    ['ECDSA P-256 signature claiming rsa', { algorithm: 'ecdsa', key: ecKey, expect: ['signature_mismatch'] }],
    ['ECDSA P-256 signature with alg ecdsa', { algorithm: 'ecdsa', key: ecKey, params: stdParams(created, partner.clientId, 'ecdsa-p256-sha256'), expect: ['algorithm_mismatch'] }],
    ['Ed25519 signature claiming rsa', { algorithm: 'ed25519', key: edKey, expect: ['signature_mismatch'] }],
    ['Ed25519 signature with alg ed25519', { algorithm: 'ed25519', key: edKey, params: stdParams(created, partner.clientId, 'ed25519'), expect: ['algorithm_mismatch'] }],
    ['another RSA key (2048) claiming this client', { key: strangerRsa.key, expect: ['signature_mismatch'] }],
    ['another RSA key (3072) claiming this client', { key: rsa3072.key, expect: ['signature_mismatch'] }],
    ['the other client\'s key with this client\'s keyid', { key: otherClient.key.key, expect: ['signature_mismatch'] }],
  ];
  for (const [name, o] of confused) cases.push(handSigned('algorithm confusion', name, o));

  // ---- 5. keyid injection.
  const keyIds: [string, string, readonly string[] | undefined][] = [
    ['quote injection', `${partner.clientId}\\";alg=\\"none`, ['unknown_client']],
    ['escaped quotes around', `\\"${partner.clientId}\\"`, ['unknown_client']],
    ['backslash', `${partner.clientId}\\\\`, ['unknown_client']],
    ['leading space', ` ${partner.clientId}`, ['unknown_client']],
    ['trailing space', `${partner.clientId} `, ['unknown_client']],
    ['upper-cased', partner.clientId.toUpperCase(), ['unknown_client']],
    ['prefix of the id', partner.clientId.slice(0, -1), ['unknown_client']],
    ['id plus a character', `${partner.clientId}x`, ['unknown_client']],
    ['__proto__', '__proto__', ['unknown_client']],
    ['constructor', 'constructor', ['unknown_client']],
    ['hasOwnProperty', 'hasOwnProperty', ['unknown_client']],
    ['DynamoDB key syntax', `CLIENT#${partner.clientId}`, ['unknown_client']],
    ['path traversal', '../../../etc/passwd', ['unknown_client']],
    ['SQL', "' OR '1'='1' --", ['unknown_client']],
    ['wildcard', '*', ['unknown_client']],
    ['percent-encoded NUL', '%00', ['unknown_client']],
    ['257 characters', 'k'.repeat(257), ['missing_keyid']],
    ['5000 characters', 'k'.repeat(5_000), ['missing_keyid']],
    ['9000 characters (over the field limit)', 'k'.repeat(9_000), ['malformed_signature_input']],
    ['256 characters', 'k'.repeat(256), ['unknown_client']],
  ];
  for (const [name, keyId, expect] of keyIds) {
    const params = `;created=${created};keyid="${keyId}";alg="rsa-v1_5-sha256"`;
    const input = inputText(GET_COMPONENTS, params);
    if (input.length > 8_192) {
      cases.push(caseOf('keyid injection', name, 'GET', ECHO, { ...validGet, 'signature-input': input }, { expect }));
    } else {
      cases.push(handSigned('keyid injection', name, { params, expect }));
    }
  }
  // Characters a Structured Field string cannot hold: the field does not parse.
  for (const [name, ch] of [['NUL', '\u0000'], ['TAB', '\t'], ['LF', '\n'], ['CR', '\r'], ['DEL', '\u007f'], ['ESC', '\u001b'], ['é', 'é'], ['emoji', '🔑'], ['RTL override', '\u202e'], ['zero-width space', '\u200b'], ['fullwidth letter', 'Ｃ']] as const) {
    const input = inputText(GET_COMPONENTS, stdParams(created, `${partner.clientId}${ch}`));
    cases.push(caseOf('keyid injection', `control/unicode: ${name}`, 'GET', ECHO, { ...validGet, 'signature-input': input }, { expect: ['malformed_signature_input'] }));
  }

  // ---- 6. Bad Base64 and wrong signature lengths.
  const sigB64 = validGet.signature.slice(5, -1);
  const badSignatures: [string, string, readonly string[]][] = [
    ['empty byte sequence', 'sig=::', ['malformed_signature']],
    ['not closed', `sig=:${sigB64}`, ['malformed_signature']],
    ['base64url alphabet', `sig=:${sigB64.replace(/\+/g, '-').replace(/\//g, '_').replace(/^./, '-')}:`, ['malformed_signature']],
    ['a space inside', `sig=:${sigB64.slice(0, 100)} ${sigB64.slice(100)}:`, ['malformed_signature']],
    ['a newline inside', `sig=:${sigB64.slice(0, 100)}\n${sigB64.slice(100)}:`, ['malformed_signature']],
    ['an extra = padding', `sig=:${sigB64}=:`, ['malformed_signature']],
    ['= in the middle', `sig=:${sigB64.slice(0, 100)}=${sigB64.slice(101)}:`, ['malformed_signature']],
    ['a * character', `sig=:${sigB64.slice(0, 50)}*${sigB64.slice(51)}:`, ['malformed_signature']],
    ['padding dropped and one character added (257 bytes)', `sig=:${sigB64.replace(/=+$/, '')}A:`, ['signature_mismatch']],
    ['one character too many after the padding', `sig=:${sigB64}A:`, ['malformed_signature']],
    ['255 bytes (one short)', `sig=:${Buffer.from(sigB64, 'base64').subarray(0, 255).toString('base64')}:`, ['signature_mismatch']],
    ['257 bytes (one extra)', `sig=:${Buffer.concat([Buffer.from(sigB64, 'base64'), Buffer.from([0])]).toString('base64')}:`, ['signature_mismatch']],
    ['128 bytes', `sig=:${randomBytes(128).toString('base64')}:`, ['signature_mismatch']],
    ['512 bytes (a 4096-bit length)', `sig=:${randomBytes(512).toString('base64')}:`, ['signature_mismatch']],
    ['1 byte', 'sig=:AA==:', ['signature_mismatch']],
    ['256 zero bytes', `sig=:${Buffer.alloc(256).toString('base64')}:`, ['signature_mismatch']],
    ['256 0xff bytes', `sig=:${Buffer.alloc(256, 0xff).toString('base64')}:`, ['signature_mismatch']],
    ['256 random bytes', `sig=:${randomBytes(256).toString('base64')}:`, ['signature_mismatch']],
    ['the modulus-sized signature of another request', otherSigned.signature, ['signature_mismatch']],
    ['first bit flipped', flipSignatureBit(validGet.signature, 0), ['signature_mismatch']],
    ['last byte flipped', flipSignatureBit(validGet.signature, 255), ['signature_mismatch']],
    ['middle byte flipped', flipSignatureBit(validGet.signature, 128), ['signature_mismatch']],
    ['signature reversed', `sig=:${Buffer.from(sigB64, 'base64').reverse().toString('base64')}:`, ['signature_mismatch']],
    ['8 KB of base64', `sig=:${randomBytes(6_000).toString('base64')}:`, ['malformed_signature', 'signature_mismatch']],
  ];
  for (const [name, signature, expect] of badSignatures) {
    cases.push(caseOf('bad Base64 / signature length', name, 'GET', ECHO, { ...validGet, signature }, { expect }));
  }

  // ---- 7. One byte changed at every position of every signed header (GET and POST).
  for (const method of ['GET', 'POST'] as const) {
    const signed = validHeaders(method);
    for (const name of ['signature-input', 'signature', 'date', ...(method === 'POST' ? ['content-digest'] : [])]) {
      const value = signed[name];
      for (let i = 0; i < value.length; i++) {
        const mutated = value.slice(0, i) + String.fromCharCode(value.charCodeAt(i) ^ 0x01) + value.slice(i + 1);
        if (name === 'signature' && sameSignatureBytes(value, mutated)) continue; // only a pad bit changed: the same signature
        // The Signature is long: every 7th position (still > 45 positions over its whole length).
        if (name === 'signature' && i % 7 !== 3 && i > 8 && i < value.length - 4) continue;
        cases.push(caseOf(`one byte changed in ${name}`, `${method} ${name}[${i}] ${JSON.stringify(value[i])}→${JSON.stringify(mutated[i])}`, method, ECHO, { ...signed, [name]: mutated }, { body: method === 'POST' ? BODY : undefined }));
      }
    }
  }
  // The request line and host, changed after signing.
  {
    const signed = validHeaders('GET', `${ECHO}?a=1&b=2`);
    const changes: [string, string, string][] = [
      ['method GET→HEAD', 'HEAD', `${ECHO}?a=1&b=2`],
      ['method GET→POST', 'POST', `${ECHO}?a=1&b=2`],
      ['method GET→get', 'get', `${ECHO}?a=1&b=2`],
      ['path /api/echo→/api/echO', 'GET', `https://${HTTP_API_HOST}/api/echO?a=1&b=2`],
      ['path with a trailing slash', 'GET', `https://${HTTP_API_HOST}/api/echo/?a=1&b=2`],
      ['query a=1→a=2', 'GET', `${ECHO}?a=2&b=2`],
      ['query reordered', 'GET', `${ECHO}?b=2&a=1`],
      ['query dropped', 'GET', ECHO],
      ['query extended', 'GET', `${ECHO}?a=1&b=2&c=3`],
      ['host changed', 'GET', `https://evil.example.com/api/echo?a=1&b=2`],
      ['host with a port', 'GET', `https://${HTTP_API_HOST}:8443/api/echo?a=1&b=2`],
      ['http instead of https', 'GET', `http://${HTTP_API_HOST}/api/echo?a=1&b=2`],
    ];
    for (const [name, method, url] of changes) {
      const event = httpApiAuthorizerEvent({ method, url }, { headers: url.startsWith('http:') ? { ...signed, 'x-forwarded-proto': 'http' } : signed });
      cases.push({ family: 'request line changed after signing', name, event, expect: method === 'POST' ? ['signature_mismatch', 'role_forbidden'] : undefined });
    }
  }

  // ---- 8. Date in other formats (validly signed over that very text).
  const when = new Date(created * 1000);
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p2 = (n: number) => String(n).padStart(2, '0');
  const hms = `${p2(when.getUTCHours())}:${p2(when.getUTCMinutes())}:${p2(when.getUTCSeconds())}`;
  const imf = formatHttpDate(created);
  const dateFormats: [string, string][] = [
    ['RFC 850', `${days[when.getUTCDay()]}, ${p2(when.getUTCDate())}-${months[when.getUTCMonth()]}-${String(when.getUTCFullYear()).slice(2)} ${hms} GMT`],
    ['asctime', `${days[when.getUTCDay()].slice(0, 3)} ${months[when.getUTCMonth()]} ${String(when.getUTCDate()).padStart(2, ' ')} ${hms} ${when.getUTCFullYear()}`],
    ['ISO 8601', when.toISOString()],
    ['ISO 8601 without milliseconds', when.toISOString().replace('.000', '')],
    ['unix seconds', String(created)],
    ['UTC instead of GMT', imf.replace('GMT', 'UTC')],
    ['+0000 instead of GMT', imf.replace('GMT', '+0000')],
    ['lower-case', imf.toLowerCase()],
    ['upper-case', imf.toUpperCase()],
    ['three-digit day', imf.replace(/, (\d\d) /, ', 0$1 ')],
    ['wrong day name', imf.replace(/^\w{3}/, imf.startsWith('Mon') ? 'Tue' : 'Mon')],
    ['full day name', imf.replace(/^\w{3}/, days[when.getUTCDay()])],
    ['full month name', imf.replace(` ${months[when.getUTCMonth()]} `, ` ${when.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' })} `)],
    ['fractional seconds', imf.replace(' GMT', '.5 GMT')],
    ['no seconds', imf.replace(/:\d\d GMT$/, ' GMT')],
    ['two spaces', imf.replace(', ', ',  ')],
    ['no comma', imf.replace(',', '')],
    ['31 Feb', imf.replace(/\d\d \w{3} \d{4}/, '31 Feb 2026')],
    ['hour 24', imf.replace(/\d\d:(\d\d):(\d\d)/, '24:$1:$2')],
    ['JavaScript Date.toString()', when.toString()],
    ['empty', ''],
    ['Arabic-Indic digits', imf.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)))],
  ];
  for (const [name, value] of dateFormats) {
    cases.push(handSigned('Date in another format', `${name}: ${JSON.stringify(value)}`, { headers: { date: value }, expect: ['malformed_date', 'clock_skew', 'expired', 'absent_component'] }));
  }

  // ---- 9. Huge headers.
  const huge: [string, Record<string, string>, readonly string[] | undefined][] = [
    ['Signature-Input of 9 KB', { ...validGet, 'signature-input': `${validGet['signature-input']};nonce="${'n'.repeat(9_000)}"` }, ['malformed_signature_input']],
    ['Signature of 64 KB', { ...validGet, signature: `sig=:${randomBytes(48_000).toString('base64')}:` }, ['malformed_signature']],
    ['Date of 64 KB', { ...validGet, date: 'D'.repeat(65_536) }, ['malformed_date']],
    ['Content-Digest of 64 KB', { ...validHeaders('POST'), 'content-digest': `sha-256=:${randomBytes(48_000).toString('base64')}:` }, ['malformed_digest', 'signature_mismatch']],
    ['1,000 labels in Signature-Input', { ...validGet, 'signature-input': Array.from({ length: 1_000 }, (_, i) => `l${i}=()`).join(', ') }, ['malformed_signature_input', 'signature_label_missing']],
    ['a 100 KB unsigned header next to a valid signature, Signature swapped', { ...validGet, 'x-padding': 'p'.repeat(100_000), signature: otherSigned.signature }, ['signature_mismatch']],
  ];
  for (const [name, headers, expect] of huge) cases.push(caseOf('huge headers', name, name.startsWith('Content-Digest') ? 'POST' : 'GET', ECHO, headers, { body: name.startsWith('Content-Digest') ? BODY : undefined, expect }));
  {
    // Host and the event's domain name both 10 KB: no authority can be rebuilt.
    const hugeHost = `${'a'.repeat(10_000)}.example.com`;
    const c = caseOf('huge headers', 'Host and domain name of 10 KB', 'GET', ECHO, { ...validGet, host: hugeHost });
    cases.push({ ...c, event: { ...c.event, requestContext: { ...c.event.requestContext, domainName: hugeHost } }, expect: ['invalid_request'] });
  }
  {
    const c = handSigned('huge headers', 'covers a 100 KB header then changed (first byte)', { components: [...GET_COMPONENTS, '"x-big"'], headers: { 'x-big': 'b'.repeat(100_000) } });
    const headers = { ...c.event.headers, 'x-big': `c${'b'.repeat(99_999)}` } as Record<string, string>;
    cases.push({ ...c, event: { ...c.event, headers }, expect: ['signature_mismatch'] });
  }
  {
    const c = handSigned('huge headers', 'covers a 100 KB header then changed (last byte)', { components: [...GET_COMPONENTS, '"x-big"'], headers: { 'x-big': 'b'.repeat(100_000) } });
    const headers = { ...c.event.headers, 'x-big': `${'b'.repeat(99_999)}c` } as Record<string, string>;
    cases.push({ ...c, event: { ...c.event, headers }, expect: ['signature_mismatch'] });
  }
  cases.push(handSigned('huge headers', 'a 20,000-character URL, then one query byte changed', { url: `${ECHO}?q=${'x'.repeat(20_000)}` }));
  cases[cases.length - 1] = mutateQuery(cases[cases.length - 1]);

  // ---- 10. Non-ASCII.
  const nonAscii: [string, Record<string, string>, readonly string[] | undefined][] = [
    ['Signature-Input with é in a component', { ...validGet, 'signature-input': validGet['signature-input'].replace('"date"', '"daté"') }, ['malformed_signature_input']],
    ['Signature with a non-ASCII letter', { ...validGet, signature: `sig=:${sigB64.slice(0, 10)}é${sigB64.slice(11)}:` }, ['malformed_signature']],
    ['Signature-Input in fullwidth letters', { ...validGet, 'signature-input': validGet['signature-input'].replace(/^sig/, 'ｓｉｇ') }, ['malformed_signature_input']],
    ['Signature label with a Cyrillic s', { ...validGet, 'signature-input': validGet['signature-input'].replace(/^s/, 'ѕ'), signature: validGet.signature.replace(/^s/, 'ѕ') }, ['malformed_signature_input', 'malformed_signature']],
    ['Date with a non-breaking space', { ...validGet, date: validGet.date.replace(' ', '\u00a0') }, ['malformed_date']],
    ['Date in Latin-1 bytes read as UTF-8', { ...validGet, date: Buffer.from(validGet.date, 'latin1').toString('utf8').replace('GMT', 'GMT\u00ff') }, ['malformed_date']],
    ['Content-Digest with a non-ASCII character', { ...validHeaders('POST'), 'content-digest': validHeaders('POST')['content-digest'].replace('sha', 'shä') }, ['malformed_digest', 'signature_mismatch']],
  ];
  for (const [name, headers, expect] of nonAscii) cases.push(caseOf('non-ASCII', name, name.startsWith('Content-Digest') ? 'POST' : 'GET', ECHO, headers, { body: name.startsWith('Content-Digest') ? BODY : undefined, expect }));
  cases.push(handSigned('non-ASCII', 'validly signed over a URL with raw UTF-8 in the path', { url: `https://${HTTP_API_HOST}/api/écho` }));
  cases.push(handSigned('non-ASCII', 'validly signed over a non-ASCII covered header, then changed', { components: [...GET_COMPONENTS, '"x-name"'], headers: { 'x-name': 'Zoë' } }));
  cases[cases.length - 1] = { ...cases[cases.length - 1], event: { ...cases[cases.length - 1].event, headers: { ...cases[cases.length - 1].event.headers, 'x-name': 'Zoe' } }, expect: ['signature_mismatch'] };

  // ---- 11. A body without a digest, and a digest without its body.
  const bodyNoDigest: [string, Parameters<typeof handSigned>[2], Record<string, string>][] = [
    ['Content-Length > 0, content-digest not covered', { method: 'POST', components: GET_COMPONENTS, expect: ['digest_required'] }, { 'content-length': '13', 'content-type': 'application/json' }],
    ['Transfer-Encoding chunked, no digest', { method: 'POST', components: GET_COMPONENTS, expect: ['digest_required'] }, { 'transfer-encoding': 'chunked' }],
    ['Content-Length with spaces, no digest', { method: 'POST', components: GET_COMPONENTS, expect: ['digest_required'] }, { 'content-length': ' 5 ' }],
    ['a Content-Digest sent but not covered', { method: 'POST', components: GET_COMPONENTS, expect: ['digest_required'] }, { 'content-length': '13', 'content-digest': computeContentDigest('{"amount":10}') }],
    ['content-digest covered, header missing', { method: 'POST', components: POST_COMPONENTS, expect: ['absent_component', 'digest_required'] }, { 'content-length': '13' }],
  ];
  for (const [name, o, extra] of bodyNoDigest) {
    const c = handSigned('body without a digest', name, { ...o, headers: { ...(o.headers ?? {}), ...extra } });
    const headers = { ...c.event.headers } as Record<string, string>;
    if (name === 'content-digest covered, header missing') delete headers['content-digest'];
    cases.push({ ...c, event: { ...c.event, headers }, sentBody: '{"amount":10}' });
  }
  // With an explicit body on the event (as the local gateway passes it), too.
  for (const [name, digestOf] of [['a body the digest does not cover: POST signed without one', null], ['a body swapped for one with a forged digest', 'forged']] as const) {
    const signed = validHeaders('POST');
    const sent = '{"amount":99999,"currency":"EUR"}';
    const headers = digestOf === 'forged' ? { ...signed, 'content-digest': computeContentDigest(sent), 'content-length': String(sent.length) } : { ...signed, 'content-length': String(sent.length) };
    cases.push(caseOf('body without a digest', name, 'POST', ECHO, headers, { sentBody: sent, expect: ['signature_mismatch', 'digest_mismatch'] }));
  }
  const digestNoBody: [string, string | undefined, Record<string, string>][] = [
    ['signed POST, body stripped (Content-Length 0)', '', { 'content-length': '0' }],
    ['signed POST, body stripped (no Content-Length)', undefined, {}],
    ['signed POST, body replaced by whitespace', ' ', { 'content-length': '1' }],
    ['signed POST, body truncated', BODY.slice(0, -1), { 'content-length': String(BODY.length - 1) }],
    ['signed POST, body with a trailing newline', `${BODY}\n`, { 'content-length': String(BODY.length + 1) }],
    ['signed POST, body re-serialized with spaces', JSON.stringify(JSON.parse(BODY), null, 1), {}],
    ['signed POST sent as GET without a body', undefined, {}],
  ];
  for (const [name, sent, extra] of digestNoBody) {
    const signed = validHeaders('POST');
    const headers: Record<string, string> = { ...signed, ...extra };
    if (sent === undefined) delete headers['content-length'];
    const method = name.includes('as GET') ? 'GET' : 'POST';
    const event = httpApiAuthorizerEvent({ method, url: ECHO, body: sent === '' ? undefined : sent }, { headers });
    cases.push({ family: 'digest without its body', name, event, sentBody: sent, expect: method === 'GET' ? ['signature_mismatch'] : ['digest_mismatch'] });
  }
  {
    const c = handSigned('digest without its body', 'GET covering a digest of a body that is not sent', { method: 'GET', components: POST_COMPONENTS, headers: { 'content-digest': computeContentDigest(BODY) } });
    cases.push({ ...c, sentBody: undefined, expect: ['digest_mismatch'] });
  }
  // sha-512 alone is a digest Signet checks (RFC 9530): the authorizer passes it on, the body check refuses it.
  cases.push(handSigned('digest without its body', 'covered sha-512 digest of other bytes', { method: 'POST', body: BODY, headers: { 'content-digest': `sha-512=:${randomBytes(64).toString('base64')}:` }, expect: ['digest_mismatch'] }));
  cases.push(handSigned('digest without its body', 'covered digest with no algorithm Signet checks', { method: 'POST', body: BODY, headers: { 'content-digest': `md5=:${randomBytes(16).toString('base64')}:` }, expect: ['malformed_digest'] }));
  cases.push(handSigned('digest without its body', 'covered digest that is not a dictionary', { method: 'POST', body: BODY, headers: { 'content-digest': 'sha-256=abc' }, expect: ['malformed_digest'] }));
  cases.push(handSigned('digest without its body', 'covered digest of 31 bytes', { method: 'POST', body: BODY, headers: { 'content-digest': `sha-256=:${randomBytes(31).toString('base64')}:` }, expect: ['malformed_digest'] }));
  cases.push(handSigned('digest without its body', 'covered empty digest dictionary', { method: 'POST', body: BODY, headers: { 'content-digest': '' }, expect: ['malformed_digest', 'absent_component'] }));

  return cases;
}

/** Changes the last byte of the query of an already signed case. */
function mutateQuery(c: HostileCase): HostileCase {
  const q = c.event.rawQueryString;
  return { ...c, event: { ...c.event, rawQueryString: `${q.slice(0, -1)}y` }, expect: ['signature_mismatch'] };
}

/** Same decoded bytes (a change in the base64 pad bits only, which RFC 8941 parsers tolerate). */
function sameSignatureBytes(a: string, b: string): boolean {
  const decode = (v: string) => {
    const m = /^sig=:([A-Za-z0-9+/]*={0,2}):$/.exec(v);
    return m ? Buffer.from(m[1], 'base64') : undefined;
  };
  const x = decode(a);
  const y = decode(b);
  return x !== undefined && y !== undefined && x.equals(y);
}

/** A key that identifies a request by what the handler sees. */
function identity(c: HostileCase): string {
  const e = c.event;
  return JSON.stringify([e.requestContext.http.method, e.rawPath, e.rawQueryString, e.headers, c.sentBody ?? null]);
}

describe('controls: the same builders, with nothing hostile done, are accepted end to end', () => {
  test.each([
    ['core-signed GET', () => caseOf('control', 'GET', 'GET', ECHO, validHeaders('GET'))],
    ['core-signed POST with its body', () => caseOf('control', 'POST', 'POST', ECHO, validHeaders('POST'), { body: BODY })],
    ['hand-signed GET', () => handSigned('control', 'GET', {})],
    ['hand-signed POST with its body', () => handSigned('control', 'POST', { method: 'POST', body: BODY })],
    ['hand-signed GET with an extra covered header', () => handSigned('control', 'GET', { components: [...GET_COMPONENTS, '"x-name"'], headers: { 'x-name': 'Zoe' } })],
  ])('%s', async (_name, build) => {
    const c = build();
    expect(await verdictOf(authorizer, c.event, c.sentBody)).toEqual({ kind: 'accepted', stage: 'backend' });
  });
});

describe('hostile requests through the HTTP API authorizer handler', () => {
  const tally = new ReasonTally();
  const byFamily = new Map<string, number>();

  afterAll(() => {
    const lines = [...byFamily.entries()].map(([family, n]) => `${String(n).padStart(5)}  ${family}`);
    report(`hostile requests: ${tally.total}\nper family:\n${lines.join('\n')}\nper reason code:\n${tally.lines().join('\n')}`);
  });

  test('at least 200 distinct hostile requests: none accepted, no crash, every refusal with a stable code', async () => {
    const cases = buildCases();
    const distinct = new Map(cases.map((c) => [identity(c), c]));
    expect(distinct.size).toBeGreaterThanOrEqual(200);

    const accepted: string[] = [];
    const crashed: string[] = [];
    const unknownCodes: string[] = [];
    const unexpected: string[] = [];
    for (const c of distinct.values()) {
      const verdict: Verdict = await verdictOf(authorizer, c.event, c.sentBody);
      byFamily.set(c.family, (byFamily.get(c.family) ?? 0) + 1);
      const label = `${c.family} / ${c.name}`;
      switch (verdict.kind) {
        case 'accepted':
          accepted.push(label);
          tally.add('ACCEPTED');
          break;
        case 'crash':
          crashed.push(`${label}: ${verdict.error?.stack ?? verdict.error}`);
          tally.add('CRASH');
          break;
        case 'fail-closed':
          tally.add(`${verdict.code} (fail closed, 500)`);
          if (!isKnownCode(verdict.code)) unknownCodes.push(`${label}: ${verdict.code}`);
          break;
        case 'refused':
          tally.add(verdict.stage === 'backend' ? `${verdict.code} (backend body check)` : verdict.code);
          if (!isKnownCode(verdict.code)) unknownCodes.push(`${label}: ${verdict.code}`);
          else if (c.expect !== undefined && !c.expect.includes(verdict.code)) unexpected.push(`${label}: got ${verdict.code}, expected ${c.expect.join(' | ')}`);
          break;
      }
    }
    expect({ accepted, crashed, unknownCodes, unexpected }).toEqual({ accepted: [], crashed: [], unknownCodes: [], unexpected: [] });
    // DynamoDB Local is up for the whole file: nothing needed the fail-closed path.
    expect(tally.lines().filter((l) => l.includes('fail closed'))).toEqual([]);
  });
});
