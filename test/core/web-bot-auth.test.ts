/**
 * The `web-bot-auth` coverage profile in the core: the drafts' appendix vectors verify with the
 * key given directly, and each rule of the profile (tag, created + expires within the validity
 * bound, @authority or @target-uri, the Signature-Agent member covered, HMAC refused) refuses with
 * its own code. Signatures other than the drafts' are made here with a signature base written out
 * by hand, independently of lambda/core.
 */
import { KeyObject, createPrivateKey, generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { SignetError } from '../../lambda/core/errors';
import { isThumbprintKeyId, thumbprintOfKey } from '../../lambda/core/jwk-thumbprint';
import { importPublicKey } from '../../lambda/core/keys';
import { readSignatureAgentField, signedSignatureAgent } from '../../lambda/core/signature-agent';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { readSignatureInput } from '../../lambda/core/signature-params';
import type { SignedRequest } from '../../lambda/core/types';
import { type VerificationKey, type VerifyPolicy, createVerifier, defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { TEST_KEY_ED25519_PRIVATE_PEM, TEST_KEY_ED25519_PUBLIC_PEM, TEST_KEY_RSA_PSS_PUBLIC_PEM } from '../fixtures/rfc9421';
import { TEST_KEY_ED25519_THUMBPRINT, WEB_BOT_AUTH_VECTORS, WEB_BOT_AUTH_VECTOR_CREATED, WEB_BOT_AUTH_VECTOR_TARGET } from '../fixtures/web-bot-auth-drafts';
import { refusal } from './helpers';

const NOW_S = 1_800_000_000;

function registered(pem: string, algorithm?: string): VerificationKey {
  const info = importPublicKey(pem, algorithm);
  return { fingerprint: info.fingerprint, key: info.key, algorithm: info.algorithm };
}

const ED25519 = registered(TEST_KEY_ED25519_PUBLIC_PEM);
const PSS = registered(TEST_KEY_RSA_PSS_PUBLIC_PEM, 'rsa-pss-sha512');

function wba(overrides: Partial<VerifyPolicy> = {}): VerifyPolicy {
  return defaultVerifyPolicy({ profile: 'web-bot-auth', nowS: () => NOW_S, ...overrides });
}


describe("the Web Bot Auth drafts' appendix vectors verify with the RFC 9421 test key given directly", () => {
  // The drafts sign RFC 9421's test-request; its body is left out here (Signet requires the
  // digest covered whenever there is a body, and these vectors cover @authority only).
  const request = (vector: (typeof WEB_BOT_AUTH_VECTORS)[number], withBody = false): SignedRequest => ({
    method: 'POST',
    targetUri: WEB_BOT_AUTH_VECTOR_TARGET,
    headers: {
      host: 'example.com',
      'signature-input': vector.signatureInput,
      signature: vector.signature,
      ...(vector.signatureAgent === undefined ? {} : { 'signature-agent': vector.signatureAgent }),
      ...(withBody ? { 'content-length': '18', 'content-type': 'application/json' } : {}),
    },
  });
  // Most vectors expire in 2124 "so that they do not age": far past the profile's 24 h bound.
  const atCreation = (overrides: Partial<VerifyPolicy> = {}) => wba({ nowS: () => WEB_BOT_AUTH_VECTOR_CREATED + 5, ...overrides });
  const keyOf = (algorithm: string) => (algorithm === 'ed25519' ? ED25519 : PSS);

  it.each(WEB_BOT_AUTH_VECTORS.map((v) => [v.name, v] as const))('%s', async (_name, vector) => {
    const verdict = await verifyRequest(request(vector), atCreation({ maxValidityS: Number.MAX_SAFE_INTEGER }), () => [keyOf(vector.algorithm)]);
    expect(verdict).toMatchObject({ keyId: readSignatureInput(vector.signatureInput, vector.signatureInput.slice(0, 4)).keyid, fingerprint: keyOf(vector.algorithm).fingerprint, profile: 'web-bot-auth' });
    // "this agent is who it says", not "this exact request was signed"
    expect(verdict.coversMethod).toBe(false);
    expect(verdict.coversPath).toBe(false);
    expect(verdict.signatureAgent).toBe(vector.agent);
  });

  it("builds the drafts' printed signature base for a Signature-Agent dictionary member and for the legacy string", () => {
    for (const vector of WEB_BOT_AUTH_VECTORS.filter((v) => v.algorithm === 'ed25519' && v.signatureAgent !== undefined)) {
      const label = vector.signatureInput.slice(0, vector.signatureInput.indexOf('='));
      const input = readSignatureInput(vector.signatureInput, label);
      const member = vector.signatureAgent?.startsWith('"') ? '"signature-agent"' : '"signature-agent";key="agent2"';
      const printed = ['"@authority": example.com', `${member}: "https://signature-agent.test"`, `"@signature-params": ${vector.signatureInput.slice(label.length + 1)}`].join('\n');
      expect(buildSignatureBase(request(vector), input.covered, input.signatureParams)).toBe(printed);
    }
  });

  it('the keyid of the Ed25519 vectors is the RFC 8037 thumbprint of the test key, and has the thumbprint shape', () => {
    expect(thumbprintOfKey(ED25519.key)).toBe(TEST_KEY_ED25519_THUMBPRINT);
    expect(isThumbprintKeyId(TEST_KEY_ED25519_THUMBPRINT)).toBe(true);
  });

  it('under the default 24 h bound the vectors that expire in 2124 are refused, the one-hour legacy ones verify', async () => {
    for (const vector of WEB_BOT_AUTH_VECTORS) {
      const verifying = verifyRequest(request(vector), atCreation(), () => [keyOf(vector.algorithm)]);
      if (vector.signatureInput.includes('expires=1735693200')) {
        await expect(verifying).resolves.toMatchObject({ profile: 'web-bot-auth' });
      } else {
        const error = await refusal(verifying);
        expect(error.code).toBe('invalid_signature_input');
        expect(error.message).toContain('at most 86400 s');
      }
    }
  });

  it('with the body of the test-request, which the vectors do not cover, the request is refused (digest_required)', async () => {
    const legacy = WEB_BOT_AUTH_VECTORS.find((v) => v.algorithm === 'ed25519' && v.signatureAgent?.startsWith('"'));
    if (legacy === undefined) throw new Error('fixture: the legacy Ed25519 vector');
    expect((await refusal(verifyRequest(request(legacy, true), atCreation(), () => [ED25519]))).code).toBe('digest_required');
  });

  it('one changed byte in the covered Signature-Agent member → signature_mismatch', async () => {
    const vector = WEB_BOT_AUTH_VECTORS.find((v) => v.algorithm === 'ed25519' && v.signatureAgent?.startsWith('agent2'));
    if (vector === undefined) throw new Error('fixture: the dictionary Ed25519 vector');
    const changed = { ...vector, signatureAgent: 'agent2="https://signature-agent.tesT"' };
    expect((await refusal(verifyRequest(request(changed), atCreation({ maxValidityS: Number.MAX_SAFE_INTEGER }), () => [ED25519]))).code).toBe('signature_mismatch');
  });
});

/** A request to https://api.example.com signed with `key` over `components` (serialized identifiers), the base written by hand. */
function signed(
  options: { components: readonly string[]; params: string; label?: string; method?: string; targetUri?: string; headers?: Record<string, string> },
  key: KeyObject = TEST_PRIVATE,
): SignedRequest {
  const { components, params, label = 'sig1', method = 'GET', targetUri = 'https://api.example.com/orders', headers = {} } = options;
  const url = new URL(targetUri);
  const lines = components.map((id) => {
    if (id === '"@authority"') return `${id}: ${url.host}`;
    if (id === '"@method"') return `${id}: ${method}`;
    if (id === '"@path"') return `${id}: ${url.pathname}`;
    if (id === '"@query"') return `${id}: ${url.search === '' ? '?' : url.search}`;
    if (id === '"@target-uri"') return `${id}: ${targetUri}`;
    const member = /^"signature-agent";key="([a-z0-9]+)"$/.exec(id);
    if (member !== null) {
      const found = new RegExp(`(?:^|,\\s*)${member[1]}=("[^"]*")`).exec(headers['signature-agent'] ?? '');
      if (found === null) throw new Error(`test setup: no member ${member[1]}`);
      return `${id}: ${found[1]}`;
    }
    const field = /^"([a-z-]+)"$/.exec(id);
    if (field !== null && headers[field[1]] !== undefined) return `${id}: ${headers[field[1]].trim()}`;
    throw new Error(`test setup: cannot write ${id}`);
  });
  const inner = `(${components.join(' ')})${params}`;
  lines.push(`"@signature-params": ${inner}`);
  const signature = cryptoSign(null, Buffer.from(lines.join('\n')), key).toString('base64');
  return { method, targetUri, headers: { ...headers, 'signature-input': `${label}=${inner}`, signature: `${label}=:${signature}:` } };
}

const TEST_PRIVATE = createPrivateKey(TEST_KEY_ED25519_PRIVATE_PEM);
const KEYID = TEST_KEY_ED25519_THUMBPRINT;
/** created now, valid one hour, the profile's tag. */
const PARAMS = `;created=${NOW_S};expires=${NOW_S + 3600};keyid="${KEYID}";tag="web-bot-auth"`;
const AGENT = { 'signature-agent': 'sig1="https://agent.example"' };

async function verdictOf(req: SignedRequest, policy: VerifyPolicy = wba(), keys: readonly VerificationKey[] = [ED25519]) {
  return verifyRequest(req, policy, () => keys);
}

async function codeOf(req: SignedRequest, policy: VerifyPolicy = wba(), keys: readonly VerificationKey[] = [ED25519]): Promise<string> {
  return (await refusal(verdictOf(req, policy, keys))).code;
}

describe('the web-bot-auth profile', () => {
  it('accepts what a Web Bot Auth agent sends: @authority and its Signature-Agent member, tag, created and expires; no alg, no date, any label', async () => {
    const verdict = await verdictOf(signed({ components: ['"@authority"', '"signature-agent";key="sig1"'], params: PARAMS, headers: AGENT }));
    expect(verdict).toMatchObject({ keyId: KEYID, profile: 'web-bot-auth', coversMethod: false, coversPath: false, signatureAgent: 'https://agent.example' });
  });

  it('says the exact request was signed when method and path (with its query) are covered', async () => {
    const req = signed({ components: ['"@method"', '"@authority"', '"@path"', '"@query"'], params: PARAMS, targetUri: 'https://api.example.com/orders?id=7' });
    expect(await verdictOf(req)).toMatchObject({ coversMethod: true, coversPath: true });
    const byTarget = signed({ components: ['"@method"', '"@target-uri"'], params: PARAMS, targetUri: 'https://api.example.com/orders?id=7' });
    expect(await verdictOf(byTarget)).toMatchObject({ coversMethod: true, coversPath: true });
  });

  it('refuses a covered @path without the @query of a request that has one (missing_component)', async () => {
    const req = signed({ components: ['"@authority"', '"@path"'], params: PARAMS, targetUri: 'https://api.example.com/orders?id=7' });
    expect(await codeOf(req)).toBe('missing_component');
  });

  it('refuses a signature without tag="web-bot-auth", or with another tag (invalid_signature_input)', async () => {
    const untagged = signed({ components: ['"@authority"'], params: `;created=${NOW_S};expires=${NOW_S + 60};keyid="${KEYID}"` });
    expect(await codeOf(untagged)).toBe('invalid_signature_input');
    const other = signed({ components: ['"@authority"'], params: `;created=${NOW_S};expires=${NOW_S + 60};keyid="${KEYID}";tag="other"` });
    const error = await refusal(verdictOf(other));
    expect(error.code).toBe('invalid_signature_input');
    expect(error.message).toContain('tag="web-bot-auth"');
  });

  it('refuses a signature without expires, or valid for longer than the configured bound, or expiring before it was created', async () => {
    expect(await codeOf(signed({ components: ['"@authority"'], params: `;created=${NOW_S};keyid="${KEYID}";tag="web-bot-auth"` }))).toBe('invalid_signature_input');
    const hour = signed({ components: ['"@authority"'], params: PARAMS });
    await expect(verdictOf(hour, wba({ maxValidityS: 3600 }))).resolves.toMatchObject({ profile: 'web-bot-auth' });
    const error = await refusal(verdictOf(hour, wba({ maxValidityS: 3599 })));
    expect(error.code).toBe('invalid_signature_input');
    expect(error.message).toContain('valid for 3600 s');
    const backwards = signed({ components: ['"@authority"'], params: `;created=${NOW_S};expires=${NOW_S};keyid="${KEYID}";tag="web-bot-auth"` });
    expect(await codeOf(backwards)).toBe('invalid_signature_input');
  });

  it('refuses a signature that covers neither @authority nor @target-uri (missing_component)', async () => {
    const error = await refusal(verdictOf(signed({ components: ['"@method"', '"@path"'], params: PARAMS })));
    expect(error.code).toBe('missing_component');
    expect(error.message).toContain('"@authority" or "@target-uri"');
  });

  it('refuses hmac-sha256, which needs a shared secret Signet never holds (unsupported_algorithm)', async () => {
    const req = signed({ components: ['"@authority"'], params: `${PARAMS};alg="hmac-sha256"` });
    const error = await refusal(verdictOf(req));
    expect(error.code).toBe('unsupported_algorithm');
    expect(error.message).toContain('hmac-sha256');
  });

  it('checks a covered date like every profile, and does not require one', async () => {
    const headers = { date: 'Thu, 01 Jan 1970 00:00:00 GMT' };
    expect(await codeOf(signed({ components: ['"@authority"', '"date"'], params: PARAMS, headers }))).toBe('clock_skew');
  });

  describe('Signature-Agent', () => {
    it('refuses a request that sends Signature-Agent without covering the member for its label (signature_agent_mismatch)', async () => {
      expect(await codeOf(signed({ components: ['"@authority"'], params: PARAMS, headers: AGENT }))).toBe('signature_agent_mismatch');
    });

    it('refuses a signature that covers another member while the dictionary has one for its label', async () => {
      const headers = { 'signature-agent': 'sig1="https://agent.example", other="https://other.example"' };
      const error = await refusal(verdictOf(signed({ components: ['"@authority"', '"signature-agent";key="other"'], params: PARAMS, headers })));
      expect(error.code).toBe('signature_agent_mismatch');
      expect(error.message).toContain('"signature-agent";key="sig1"');
    });

    it('accepts the legacy bare string covered as "signature-agent", and refuses it uncovered', async () => {
      const headers = { 'signature-agent': '"https://agent.example"' };
      await expect(verdictOf(signed({ components: ['"@authority"', '"signature-agent"'], params: PARAMS, headers }))).resolves.toMatchObject({ signatureAgent: 'https://agent.example' });
      expect(await codeOf(signed({ components: ['"@authority"'], params: PARAMS, headers }))).toBe('signature_agent_mismatch');
    });

    it('refuses a Signature-Agent that is neither a dictionary of strings nor one string', async () => {
      for (const value of ['sig1=https://agent.example', 'sig1=1', '"unterminated', 'sig1=("https://a.example")']) {
        expect(() => readSignatureAgentField(value)).toThrow(expect.objectContaining({ code: 'signature_agent_mismatch' }));
      }
    });

    it('names no agent when the request sends none', () => {
      expect(signedSignatureAgent(undefined, readSignatureInput(`sig1=("@authority")${PARAMS}`, 'sig1').covered, 'sig1')).toBeUndefined();
    });

    it('is read for a signature tagged web-bot-auth under any profile: stage 1 refuses an uncovered one before any key is looked up', () => {
      const verifier = createVerifier({ policy: defaultVerifyPolicy({ nowS: () => NOW_S }) });
      const req = signed({ components: ['"@method"', '"@target-uri"'], params: `${PARAMS};alg="ed25519"`, headers: AGENT });
      expect(() => verifier.checkMember(verifier.read(req), 'sig1', verifier.policyFor('rfc9421'))).toThrow(expect.objectContaining({ code: 'signature_agent_mismatch' }));
    });
  });

  describe('stage 1 under a deployment whose profile is signet', () => {
    const verifier = createVerifier({ policy: defaultVerifyPolicy({ nowS: () => NOW_S }) });

    it('lets a web-bot-auth signature of the authority alone through to the registry lookup, and stage 2 judges it by the client profile', () => {
      const req = signed({ components: ['"@authority"', '"signature-agent";key="sig1"'], params: PARAMS, headers: AGENT });
      const set = verifier.read(req);
      const member = verifier.checkMember(set, 'sig1');
      expect(member.signatureAgent).toBe('https://agent.example');
      expect(verifier.parseChecked(set, member, verifier.policyFor('web-bot-auth'))).toMatchObject({ profile: 'web-bot-auth', coversMethod: false });
      expect(() => verifier.parseChecked(set, member, verifier.policyFor('signet'))).toThrow(SignetError);
      expect(() => verifier.parseChecked(set, member, verifier.policyFor('rfc9421'))).toThrow(expect.objectContaining({ code: 'missing_component' }));
    });

    it('refuses without a lookup what no profile accepts: the authority alone without the web-bot-auth tag', () => {
      const req = signed({ components: ['"@authority"'], params: `;created=${NOW_S};expires=${NOW_S + 60};keyid="${KEYID}"` });
      expect(() => verifier.checkMember(verifier.read(req), 'sig1')).toThrow(SignetError);
    });
  });
});

describe('a key outside its validity window does not verify', () => {
  const req = signed({ components: ['"@authority"'], params: PARAMS });

  it('before its nbf (notBeforeS) → key_expired, naming when it starts; from its nbf on it verifies', async () => {
    const error = await refusal(verdictOf(req, wba(), [{ ...ED25519, notBeforeS: NOW_S + 1 }]));
    expect(error.code).toBe('key_expired');
    expect(error.message).toContain('not valid before');
    await expect(verdictOf(req, wba(), [{ ...ED25519, notBeforeS: NOW_S }])).resolves.toMatchObject({ fingerprint: ED25519.fingerprint });
  });

  it('after its not-after → key_expired, as before', async () => {
    expect(await codeOf(req, wba(), [{ ...ED25519, notAfterS: NOW_S - 1 }])).toBe('key_expired');
  });

  it('a usable key of the same client still verifies beside one not yet valid', async () => {
    const other = generateKeyPairSync('ed25519');
    const pending: VerificationKey = { fingerprint: 'pending', key: other.publicKey, notBeforeS: NOW_S + 100 };
    await expect(verdictOf(req, wba(), [pending, ED25519])).resolves.toMatchObject({ fingerprint: ED25519.fingerprint });
  });
});

describe('isThumbprintKeyId', () => {
  it.each([
    ['a SHA-256 thumbprint', TEST_KEY_ED25519_THUMBPRINT, true],
    ['a clientId', 'c_AAAAAAAAAAAAAAAAAAAAAA', false],
    ['42 characters', TEST_KEY_ED25519_THUMBPRINT.slice(1), false],
    ['44 characters', `${TEST_KEY_ED25519_THUMBPRINT}A`, false],
    ['standard base64 characters', `${TEST_KEY_ED25519_THUMBPRINT.slice(0, 41)}+U`, false],
    ['a last character with bits past 32 bytes', `${TEST_KEY_ED25519_THUMBPRINT.slice(0, 42)}V`, false],
  ])('%s → %s', (_name, keyid, expected) => {
    expect(isThumbprintKeyId(keyid)).toBe(expected);
  });
});
