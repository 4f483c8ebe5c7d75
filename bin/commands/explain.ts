/**
 * `signet explain`: takes the same inputs as `signet verify`, walks the troubleshooting
 * checklist item by item, and names the exact mistake when the signature does not verify.
 *
 * RSASSA-PKCS1-v1_5 is recoverable: the registered PUBLIC key applied to the signature
 * (crypto.publicDecrypt with RSA_PKCS1_PADDING) yields the DigestInfo the signer signed.
 * - no valid PKCS#1 v1.5 block, or a signature of another length: the signer used another key;
 * - a valid SHA-256 DigestInfo whose digest is not the SHA-256 of the verifier's base: the key is
 *   right and the base differs. The known signer mistakes (./signer-variants.ts) are tried, and
 *   the one whose base hashes to the recovered digest is named; if none does, it says so and
 *   prints the verifier's base.
 * When an early check fails (clock_skew, digest_required, ...), the later checks still run on a
 * relaxed policy, so every finding is reported, not only the first.
 *
 * Every check runs through the core (parse, base, verify); this file only varies the inputs.
 */
import { type SignatureAlgorithm, algorithmForKey, describeKey, isSignatureAlgorithm } from '../../lambda/core/algorithms';
import { KeyObject, constants, createHash, publicDecrypt } from 'node:crypto';
import { checkContentDigest } from '../../lambda/core/content-digest';
import { SignetError, isSignetError } from '../../lambda/core/errors';
import { importPublicKey } from '../../lambda/core/keys';
import { looksLikePrivateKey } from '../../lambda/core/private-key-scan';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { SignatureInput, readSignatureInput, readSignatureValue } from '../../lambda/core/signature-params';
import { SignedRequest } from '../../lambda/core/types';
import { VerificationKey, VerifyPolicy, defaultVerifyPolicy, parseRequestSignature, verifyParsedSignature } from '../../lambda/core/verify';
import { CommandHelp } from './help';
import { existsSync } from 'node:fs';
import { isCoverageProfile } from '../../lambda/core/profiles';
import { UsageError, parse } from './args';
import { printable } from './printable';
import { REGISTRY_FLAGS, REGISTRY_OPTIONS, RegistryClient, clientPath } from './registry-client';
import { RECEIVED_REQUEST_FLAGS, RECEIVED_REQUEST_OPTIONS, receivedRequestOf } from './request-inputs';
import { defaultClientDirs } from './signed-call';
import { bodyVariants, signerVariants } from './signer-variants';

/** explain's flags: the received request's, and the registry's to read the client's profile and keys. */
const EXPLAIN_OPTIONS = { ...RECEIVED_REQUEST_OPTIONS, endpoint: REGISTRY_OPTIONS.endpoint, admin: REGISTRY_OPTIONS.admin } as const;

export const HELP: CommandHelp = {
  summary: 'walk the troubleshooting checklist for a refused request and name the exact signer mistake',
  usage: "explain (--public-key FILE... | --client-id ID) --method M --url URL -H 'Name: value'... [--data STR | --data-file FILE] [--client-id ID] [--endpoint URL] [--admin DIR] [--profile P] [--key-alg ALG] [--now UNIX] [--allow-legacy]",
  options: EXPLAIN_OPTIONS,
  flags: {
    ...RECEIVED_REQUEST_FLAGS,
    'public-key': { ...RECEIVED_REQUEST_FLAGS['public-key'], default: "with --client-id and registry access, the client's registered keys" },
    profile: { ...RECEIVED_REQUEST_FLAGS.profile, default: "with --client-id and registry access, the client's registered profile; else signet" },
    'key-alg': { ...RECEIVED_REQUEST_FLAGS['key-alg'], default: "with --client-id and registry access, each key's registered algorithm; else the key type's own" },
    'client-id': { meaning: "the clientId the signature must name in keyid; with registry access explain reads the client's profile, keys and algorithms from the registry", value: 'ID', default: 'not checked' },
    endpoint: { meaning: "the registry to read the --client-id client from; for a deployed stack its ApiUrl output", value: 'URL', default: 'the local gateway of $SIGNET_HOME (the port it runs on, or http://127.0.0.1:${PORT:-3000}), when $SIGNET_HOME/admin exists' },
    admin: REGISTRY_FLAGS.admin,
  },
  notes: [
    'Give the request exactly as the verifier received it (method, full URL, headers, body) and the public key the registry holds. ' +
      'The public key recovers the digest the signer signed: explain tells a wrong key from a right key over another base, and names the mistake ' +
      '(URL without its query, lower-case method, another body serialisation, CRLF or %n line ends, a missing date, another host or scheme, a stage prefix...). ' +
      '`signet request --verbose` runs it for you on a refusal.',
    "With --client-id and registry access (the local gateway's admin key, or --endpoint and --admin) explain checks the request against what the registry holds for that client: its profile, its keys and each key's algorithm, unless --profile, --public-key or --key-alg say otherwise.",
  ],
  examples: [
    "explain --client-id c_... --method GET --url 'http://127.0.0.1:3000/api/echo?x=1' -H 'Date: ...' -H 'Signature-Input: sig=...' -H 'Signature: sig=:...:'",
    "explain --public-key acme/public.pem --client-id c_... --method POST --url 'https://api.example.com/api/echo?x=1' --data-file body.json -H 'Content-Digest: sha-256=:...:' -H 'Date: ...' -H 'Signature-Input: sig=...' -H 'Signature: sig=:...:'",
  ],
};

/** A key the registry holds for the client, for the diagnosis. */
export interface DiagnosisKey {
  readonly fingerprint: string;
  readonly key: KeyObject;
  /** The algorithm the key is registered for. @default the key type's own */
  readonly algorithm?: SignatureAlgorithm;
}

/** What `explain` needs: the request as received, the registered keys, the policy. */
export interface ExplainInput {
  readonly request: SignedRequest;
  readonly body?: Buffer;
  readonly policy: VerifyPolicy;
  readonly clientId?: string;
  /** The keys registered for the client (none: the key checks are skipped). */
  readonly keys: readonly DiagnosisKey[];
}

/** The outcome. */
export interface Explanation {
  readonly valid: boolean;
  /** Every check that failed, in order. */
  readonly failures: readonly SignetError[];
  /** The mistakes recognised, as sentences. */
  readonly findings: readonly string[];
  /** The variant ids whose base the signature matched (see signer-variants.ts), and `wrong-key`. */
  readonly diagnoses: readonly string[];
  /** The base the verifier built, when the headers allowed building one. */
  readonly expectedBase?: string;
}

type Outcome = 'ok' | 'FAIL' | 'skip';

/** Collects the checklist as it is walked, printing each item. */
class Checklist {
  private n = 0;
  readonly failures: SignetError[] = [];
  readonly findings: string[] = [];
  readonly diagnoses: string[] = [];

  constructor(private readonly print: (line: string) => void) {}

  item(outcome: Outcome, text: string): void {
    this.n += 1;
    this.print(` [${outcome.padEnd(4)}] ${String(this.n).padStart(2)}. ${text}`);
  }

  fail(text: string, error: SignetError): void {
    this.failures.push(error);
    // The verifier's sentence sends a partner here; inside explain that would be a loop.
    this.item('FAIL', `${text}: ${error.code}: ${error.message.replace(/\s*Run `signet explain`[^.]*\./, '')}`);
  }

  found(finding: string, diagnosis?: string): void {
    this.findings.push(finding);
    if (diagnosis !== undefined) this.diagnoses.push(diagnosis);
  }
}

/** Walks the checklist for `input`, printing each item through `print`. */
export function explainRequest(input: ExplainInput, print: (line: string) => void): Explanation {
  const list = new Checklist(print);
  print('signet explain: troubleshooting checklist');
  if (input.keys.length === 0) list.item('skip', 'The public key (none given)');
  for (const key of input.keys) list.item('ok', `The public key is ${describeKey(key.key)}, registered for ${key.algorithm ?? algorithmForKey(key.key)} (fingerprint ${key.fingerprint})`);

  const policy = checkSignatureHeaders(input, list);
  const signature = readSignature(input.request, input.policy, list);
  if (signature !== undefined) {
    checkKeyId(signature.input, input, list);
    checkBody(input, list);
    if (input.keys.length > 0) checkSignature(signature, input, policy, list);
  }

  if (signature !== undefined) {
    print('');
    print("The verifier's signature base (what the signature must be computed over; LF line breaks, no final LF):");
    print('-----');
    print(signature.base);
    print('-----');
  }
  print('');
  for (const finding of list.findings) print(`found: ${finding}`);
  if (list.findings.length === 0 && list.failures.length > 0) print('found: no classic signer mistake recognised; see the failed items above.');
  const valid = list.failures.length === 0 && input.keys.length > 0 && signature !== undefined;
  if (valid) print('result: valid');
  else if (list.failures.length > 0) print(`result: invalid: ${list.failures.map((f) => f.code).join(', ')}`);
  else print('result: not checked (no usable public key)');
  return { valid, failures: list.failures, findings: list.findings, diagnoses: list.diagnoses, expectedBase: signature?.base };
}

/**
 * The key-independent checks, run again on a relaxed policy after each failure so that every
 * failing check is reported. @returns the policy the signature is then checked under
 */
function checkSignatureHeaders(input: ExplainInput, list: Checklist): VerifyPolicy {
  let policy = input.policy;
  let request = input.request;
  const relaxed = new Set<string>();
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      const parsed = parseRequestSignature(request, policy);
      if (attempt === 0) {
        list.item('ok', `Signature-Input and Signature parse; label "${parsed.label}", alg, keyid ${JSON.stringify(parsed.keyId)}, created ${parsed.created}, date in the window, covered ${parsed.covered.join(' ')}`);
      }
      return policy;
    } catch (error) {
      if (!isSignetError(error)) throw error;
      const title = error.code === 'missing_component' && policy.profile !== 'signet' ? PROFILE_COVERAGE_TITLES[policy.profile] : CHECK_TITLES[error.code];
      list.fail(title ?? 'Signature headers', error);
      const next = relax(error, policy, request, relaxed);
      if (next === undefined) return policy;
      ({ policy, request } = next);
    }
  }
  return policy;
}

/** What the profiles that accept any label require covered, as the checklist names it. */
const PROFILE_COVERAGE_TITLES: Readonly<Record<'rfc9421' | 'web-bot-auth', string>> = {
  rfc9421: 'Required components covered (@method; @target-uri, or @authority @path and @query)',
  'web-bot-auth': 'Required components covered (@authority or @target-uri; @query with a covered @path)',
};

const CHECK_TITLES: Partial<Record<string, string>> = {
  expired: 'Freshness (created, expires, Date)',
  clock_skew: "The signer's clock (created, Date)",
  missing_component: 'Required components covered (@method, @target-uri, date)',
  digest_required: 'A body is covered by content-digest',
  malformed_digest: 'Content-Digest parses',
  missing_date: 'The Date header is sent',
  malformed_date: 'The Date header is an IMF-fixdate',
  absent_component: 'Every covered component is in the request',
};

/** The policy (or request) under which the next check can run despite `error`, or undefined. */
function relax(error: SignetError, policy: VerifyPolicy, request: SignedRequest, done: Set<string>): { policy: VerifyPolicy; request: SignedRequest } | undefined {
  const once = (what: string): boolean => !done.has(what) && done.add(what) !== undefined;
  switch (error.code) {
    case 'expired':
    case 'clock_skew': {
      if (!once('time')) return undefined;
      const created = Number(/;created=(\d+)/.exec(request.headers['signature-input'] ?? '')?.[1]);
      if (!Number.isSafeInteger(created)) return undefined;
      return { policy: defaultVerifyPolicy({ ...policy, nowS: () => created, maxAgeS: Number.MAX_SAFE_INTEGER, maxSkewS: Number.MAX_SAFE_INTEGER }), request };
    }
    case 'missing_component':
      // Relaxed to the signet profile's checks with nothing required (the rfc9421 profile always checks the query).
      return once('coverage') ? { policy: defaultVerifyPolicy({ ...policy, profile: 'signet', allowLegacy: true, requiredComponents: [], requireAlg: false }), request } : undefined;
    case 'digest_required':
      return once('body') ? { policy, request: { ...request, hasBody: false } } : undefined;
    case 'malformed_digest':
      return once('digest') ? { policy: defaultVerifyPolicy({ ...policy, requireKnownDigest: false }), request } : undefined;
    default:
      return undefined;
  }
}

interface ReadSignature {
  readonly input: SignatureInput;
  readonly value: Buffer;
  readonly base: string;
}

/** The signature, its input and the verifier's base, read with the core even when a policy check failed. */
function readSignature(request: SignedRequest, policy: VerifyPolicy, list: Checklist): ReadSignature | undefined {
  const inputField = request.headers['signature-input'];
  const signatureField = request.headers.signature;
  if (inputField === undefined || signatureField === undefined) return undefined;
  try {
    const input = readSignatureInput(inputField, policy.label);
    const value = readSignatureValue(signatureField, policy.label);
    return { input, value, base: buildSignatureBase(request, input.covered, input.signatureParams) };
  } catch (error) {
    if (!isSignetError(error)) throw error;
    if (!list.failures.some((f) => f.code === error.code)) list.fail('The signature base can be built', error);
    return undefined;
  }
}

function checkKeyId(input: SignatureInput, explain: ExplainInput, list: Checklist): void {
  if (explain.clientId === undefined) {
    list.item('skip', 'keyid is the clientId (give --client-id to check)');
  } else if (input.keyid === explain.clientId) {
    list.item('ok', 'keyid is the clientId');
  } else {
    list.fail(`keyid ${JSON.stringify(input.keyid)} is not the clientId ${JSON.stringify(explain.clientId)}`, new SignetError('unknown_client', 'Put your clientId in keyid.'));
    list.found('a keyid that is not the clientId: keyid must be exactly the clientId the registry gave you');
  }
}

function checkBody(input: ExplainInput, list: Checklist): void {
  const digest = input.request.headers['content-digest'];
  if (input.body === undefined) {
    list.item('skip', `Content-Digest matches the body (${digest === undefined ? 'no body given' : 'no body given: give --data or --data-file to check it'})`);
    return;
  }
  if (digest === undefined) {
    if (input.body.length > 0) list.item('skip', 'Content-Digest matches the body (the request has no Content-Digest)');
    return;
  }
  try {
    checkContentDigest(digest, input.body);
    list.item('ok', 'Content-Digest matches the body');
  } catch (error) {
    if (!isSignetError(error)) throw error;
    list.fail('Content-Digest matches the body', error);
    const variant = bodyVariants(input.body.toString('utf8')).find(([, text]) => {
      try {
        checkContentDigest(digest, Buffer.from(text, 'utf8'));
        return true;
      } catch {
        return false;
      }
    });
    if (variant !== undefined) list.found(`the Content-Digest was computed over the body ${variant[0]}, not over the exact bytes sent: hash the bytes you send`, 'digest-over-other-body');
  }
}

/** The DigestInfo prefixes (RFC 8017 §9.2 note 1) of the hashes a signer may use by mistake. */
const DIGEST_INFO_PREFIXES: ReadonlyArray<readonly [string, Buffer]> = [
  ['SHA-256', Buffer.from('3031300d060960864801650304020105000420', 'hex')],
  ['SHA-1', Buffer.from('3021300906052b0e03021a05000414', 'hex')],
  ['SHA-384', Buffer.from('3041300d060960864801650304020205000430', 'hex')],
  ['SHA-512', Buffer.from('3051300d060960864801650304020305000440', 'hex')],
];

/** What a public key recovers from a signature: the hash and digest it signed, or nothing valid. */
export function recoverDigest(signature: Buffer, key: KeyObject): { hash: string; digest: Buffer } | undefined {
  if (signature.length !== Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8)) return undefined;
  let block: Buffer;
  try {
    block = publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    return undefined; // not a PKCS#1 v1.5 type-1 block under this key
  }
  for (const [hash, prefix] of DIGEST_INFO_PREFIXES) {
    if (block.length > prefix.length && block.subarray(0, prefix.length).equals(prefix) && block.length - prefix.length === prefix[prefix.length - 1]) {
      return { hash, digest: block.subarray(prefix.length) };
    }
  }
  return undefined;
}

function checkSignature(signature: ReadSignature, input: ExplainInput, policy: VerifyPolicy, list: Checklist): void {
  const keys: VerificationKey[] = input.keys.map((k) => ({ fingerprint: k.fingerprint, key: k.key, algorithm: k.algorithm }));
  const parsedForVerify = {
    keyId: signature.input.keyid ?? '',
    created: signature.input.created ?? 0,
    label: signature.input.label,
    covered: signature.input.covered.map((c) => c.serialized),
    signature: signature.value,
    base: signature.base,
    alternativeBases: [],
    input: signature.input,
    // What only the verdict reads; explain asks the key, not the verdict.
    profile: policy.profile,
    coversMethod: false,
    coversPath: false,
  };
  try {
    const { fingerprint } = verifyParsedSignature(parsedForVerify, keys, defaultVerifyPolicy({ ...policy, nowS: () => parsedForVerify.created }));
    list.item('ok', `The signature verifies over the verifier's base with key ${fingerprint}`);
    return;
  } catch (error) {
    if (!isSignetError(error)) throw error;
    list.fail("The signature verifies over the verifier's base", error);
  }

  const client = signature.input.keyid ?? input.clientId ?? 'this client';
  const fingerprints = input.keys.map((k) => k.fingerprint).join(', ');
  // Only RSASSA-PKCS1-v1_5 gives back what was signed; other algorithms verify or do not.
  const recoverable = input.keys.filter((k) => (k.algorithm ?? algorithmForKey(k.key)) === 'rsa-v1_5-sha256');
  if (recoverable.length === 0) {
    list.found(
      `the signature does not verify with the key(s) registered for ${client} (${fingerprints}). With ${input.keys.map((k) => k.algorithm ?? algorithmForKey(k.key)).join(', ')} a verifier cannot tell a wrong key from a base that differs: ` +
        "check the signer used the registered key, then compare the signer's base with the verifier's base above byte for byte.",
      'not-recoverable',
    );
    return;
  }
  const recovered = recoverable.map((k) => ({ key: k, found: recoverDigest(signature.value, k.key) })).find((r) => r.found !== undefined);
  if (recovered === undefined) {
    list.item('FAIL', `The signature was made by a registered key: no key given recovers a valid PKCS#1 v1.5 SHA-256 block from it`);
    list.found(
      `wrong key: this signature was not made by any key registered for ${client} (fingerprints ${fingerprints}); the signer used another key ` +
        `(or RSA-PSS instead of PKCS#1 v1.5). Sign with the private key whose public half is registered, or register the signer's public key (\`signet keys add ${client} --public-key FILE\`).`,
      'wrong-key',
    );
    return;
  }
  const { hash, digest } = recovered.found!;
  if (hash !== 'SHA-256') {
    list.item('FAIL', `The signature uses SHA-256: key ${recovered.key.fingerprint} made it, but over a ${hash} digest`);
    list.found(`the signer hashed the base with ${hash}; alg "rsa-v1_5-sha256" means SHA-256 (e.g. SHA256withRSA, crypto.sign('sha256', ...))`, 'other-hash');
    return;
  }
  list.item('ok', `The signature was made by registered key ${recovered.key.fingerprint} (a valid SHA-256 PKCS#1 v1.5 block): the key is right, the signed base differs`);
  const match = signerVariants(input.request, signature.input, input.body).find((v) => createHash('sha256').update(v.base, 'utf8').digest().equals(digest));
  if (match !== undefined) {
    list.found(`same key, different base: ${match.mistake}`, match.id);
  } else {
    list.found(
      `same key, different base: the key is right (key ${recovered.key.fingerprint} signed a SHA-256 digest), but the signer's base is not the verifier's and matches none of the known mistakes. ` +
        "Compare the signer's base with the verifier's base above byte for byte (method, URL, header values, line ends).",
      'unknown-base',
    );
  }
}

/** What the registry holds for a client, as explain uses it. */
interface RegisteredClient {
  readonly profile?: string;
  readonly keys: ReadonlyArray<{ readonly publicKey: string; readonly algorithm?: SignatureAlgorithm }>;
  /** Where it was read, for the output. */
  readonly source: string;
}

/**
 * The client as the registry holds it, when explain has registry access: `--endpoint`/`--admin`
 * given (a failure is then an error), or the local gateway's admin key present (a gateway that is
 * not running is then no error: the flags are used as given).
 */
async function registeredClient(values: Record<string, unknown>, clientId: string): Promise<RegisteredClient | { error: string } | undefined> {
  const asked = values.endpoint !== undefined || values.admin !== undefined;
  if (!asked && !existsSync(defaultClientDirs().admin)) return undefined;
  let registry: RegistryClient;
  let answer;
  try {
    // Only the registry's flags: explain's --client-id names the client explained, not a signer.
    registry = RegistryClient.fromOptions({ endpoint: values.endpoint, admin: values.admin });
    answer = await registry.call('GET', clientPath(clientId));
  } catch (error) {
    if (error instanceof UsageError || asked) throw error;
    return undefined;
  }
  if (answer.status !== 200) {
    const body = answer.body as { error?: unknown; message?: unknown } | undefined;
    return { error: `the registry at ${registry.endpoint} answered HTTP ${answer.status}${typeof body?.error === 'string' ? ` ${printable(body.error)}` : ''}${typeof body?.message === 'string' ? `: ${printable(body.message)}` : ''}` };
  }
  const record = answer.body as { profile?: unknown; keys?: Array<{ publicKey?: unknown; algorithm?: unknown }> };
  return {
    ...(isCoverageProfile(record.profile) ? { profile: record.profile } : {}),
    keys: (record.keys ?? []).flatMap((k) => (typeof k.publicKey === 'string' ? [{ publicKey: k.publicKey, ...(isSignatureAlgorithm(k.algorithm) ? { algorithm: k.algorithm } : {}) }] : [])),
    source: registry.endpoint,
  };
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { ...EXPLAIN_OPTIONS });
  const clientId = typeof values['client-id'] === 'string' && values['client-id'] !== '' ? values['client-id'] : undefined;
  const registered = clientId === undefined ? undefined : await registeredClient(values, clientId);
  if (registered !== undefined && 'error' in registered) {
    console.error(`signet explain: cannot read client ${clientId}: ${registered.error}`);
    return 1;
  }
  const received = receivedRequestOf(values, undefined, { profile: registered?.profile, keysOptional: registered !== undefined });
  const keys: DiagnosisKey[] = [];
  const fromFiles = received.publicKeyTexts.length > 0;
  for (const text of received.publicKeyTexts) {
    if (looksLikePrivateKey(text)) {
      console.log('signet explain: troubleshooting checklist');
      console.log(' [FAIL]  1. A --public-key file holds a PRIVATE key');
      console.log('found: a private key where the public key belongs: use public.pem, and treat that private key as exposed if it was sent anywhere');
      console.log('result: invalid: private_key_submitted');
      return 1;
    }
  }
  const registeredAlgorithm = new Map<string, SignatureAlgorithm>();
  for (const k of registered?.keys ?? []) {
    try {
      const info = importPublicKey(k.publicKey, k.algorithm);
      if (k.algorithm !== undefined) registeredAlgorithm.set(info.fingerprint, k.algorithm);
      if (!fromFiles) keys.push({ fingerprint: info.fingerprint, key: info.key, algorithm: received.keyAlgorithm ?? info.algorithm });
    } catch {
      // a key the registry holds that this version cannot read: the others are still checked
    }
  }
  for (const text of received.publicKeyTexts) {
    try {
      const plain = importPublicKey(text, received.keyAlgorithm);
      const algorithm = received.keyAlgorithm ?? registeredAlgorithm.get(plain.fingerprint);
      const info = algorithm === undefined || algorithm === plain.algorithm ? plain : importPublicKey(text, algorithm);
      keys.push({ fingerprint: info.fingerprint, key: info.key, algorithm: info.algorithm });
    } catch (error) {
      if (!isSignetError(error)) throw error;
      console.error(`signet explain: a --public-key file cannot be used: ${error.code}: ${error.message}`);
      return 1;
    }
  }
  if (registered !== undefined) {
    const what = [
      `profile ${received.policy.profile}${values.profile === undefined ? (registered.profile !== undefined ? ' (registered)' : ' (none registered: the default)') : ' (--profile)'}`,
      `${fromFiles ? 'the --public-key file(s)' : `${keys.length} registered key${keys.length === 1 ? '' : 's'}`}${keys.length > 0 ? `: ${keys.map((k) => `${k.fingerprint} ${k.algorithm ?? algorithmForKey(k.key)}`).join(', ')}` : ''}`,
    ];
    console.log(`signet explain: client ${clientId} as the registry at ${registered.source} holds it: ${what.join('; ')}`);
  }
  const result = explainRequest({ request: received.request, body: received.body, policy: received.policy, clientId: received.clientId, keys }, (line) => console.log(line));
  return result.valid ? 0 : 1;
}
