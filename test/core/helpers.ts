/**
 * Shared helpers for the core tests. They build signatures WITHOUT the core's base builder
 * (see {@link independentBase}), so a symmetric bug in sign and verify cannot hide.
 */
import { KeyObject, constants, createHash, generateKeyPairSync, sign as rsaSign } from 'node:crypto';
import { SignetError, SignetErrorCode, isSignetError } from '../../lambda/core/errors';
import { VerificationKey, VerifyPolicy, defaultVerifyPolicy } from '../../lambda/core/verify';
import { fingerprintOf } from '../../lambda/core/keys';
import { nextTestKey } from '../support/test-keys';

/** A fixed "now" for the verification tests (2023-11-14T22:13:20Z). */
export const NOW_S = 1_700_000_000;

/** A test key pair: private for signing, public for a {@link VerificationKey}. */
export interface TestKeys {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly fingerprint: string;
}

/** An RSA pair this file has not had before: 2048-bit ones from the test key pool (generation is slow), others generated. */
export function rsaKeys(bits = 2048): TestKeys {
  if (bits === 2048) {
    const { key, publicKey } = nextTestKey();
    return { privateKey: key, publicKey, fingerprint: fingerprintOf(publicKey) };
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return { privateKey, publicKey, fingerprint: fingerprintOf(publicKey) };
}

export function verificationKey(keys: TestKeys, notAfterS?: number): VerificationKey {
  return notAfterS === undefined ? { fingerprint: keys.fingerprint, key: keys.publicKey } : { fingerprint: keys.fingerprint, key: keys.publicKey, notAfterS };
}

/** The default policy with a fixed clock. */
export function policyAt(nowS: number = NOW_S, overrides: Partial<VerifyPolicy> = {}): VerifyPolicy {
  return defaultVerifyPolicy({ nowS: () => nowS, ...overrides });
}

/** IMF-fixdate for unix seconds, computed without the core (Date#toUTCString is IMF-fixdate). */
export function imfDate(unixS: number): string {
  return new Date(unixS * 1000).toUTCString();
}

export function sha256B64(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('base64');
}

export interface PlainRequest {
  method: string;
  targetUri: string;
  headers: Record<string, string>;
  hasBody?: boolean;
}

/**
 * The RFC 9421 §2.5 signature base for simple components (header fields, @method,
 * @target-uri, @authority, @path, @query), written independently of lambda/core.
 */
export function independentBase(req: PlainRequest, components: readonly string[], signatureParams: string): string {
  const lines = components.map((name) => {
    const url = new URL(req.targetUri);
    switch (name) {
      case '@method':
        return `"@method": ${req.method}`;
      case '@target-uri':
        return `"@target-uri": ${req.targetUri}`;
      case '@authority':
        return `"@authority": ${url.host}`;
      case '@path':
        return `"@path": ${url.pathname}`;
      case '@query':
        return `"@query": ${url.search === '' ? '?' : url.search}`;
      default: {
        const value = req.headers[name];
        if (value === undefined) throw new Error(`test setup: no ${name} header`);
        return `"${name}": ${value.trim()}`;
      }
    }
  });
  lines.push(`"@signature-params": ${signatureParams}`);
  return lines.join('\n');
}

export interface CustomSignature {
  /** Covered components, in order. */
  readonly components: readonly string[];
  /** Everything after the inner list, e.g. `;created=1;keyid="c";alg="rsa-v1_5-sha256"`. */
  readonly params: string;
  readonly label?: string;
}

/** Signs `req` over `sig` with RSASSA-PKCS1-v1_5 SHA-256 and returns it with the two headers added. */
export function signCustom(req: PlainRequest, sig: CustomSignature, privateKey: KeyObject): PlainRequest {
  const label = sig.label ?? 'sig';
  const inner = `(${sig.components.map((c) => `"${c}"`).join(' ')})${sig.params}`;
  const base = independentBase(req, sig.components, inner);
  const signature = rsaSign('sha256', Buffer.from(base, 'utf8'), { key: privateKey, padding: constants.RSA_PKCS1_PADDING });
  return {
    ...req,
    headers: { ...req.headers, 'signature-input': `${label}=${inner}`, signature: `${label}=:${signature.toString('base64')}:` },
  };
}

/** Our profile's Signature-Input parameters: created, keyid, alg. */
export function profileParams(created: number, keyId = 'client-1', extra = ''): string {
  return `;created=${created};keyid="${keyId}";alg="rsa-v1_5-sha256"${extra}`;
}

/** A GET signed exactly as Signet's profile says (method, target-uri, date), by the independent signer. */
export function signedGet(keys: TestKeys, created: number = NOW_S, targetUri = 'https://api.example.com/orders?id=7'): PlainRequest {
  return signCustom({ method: 'GET', targetUri, headers: { date: imfDate(created) } }, { components: ['@method', '@target-uri', 'date'], params: profileParams(created) }, keys.privateKey);
}

/** A POST with a body, signed over method, target-uri, content-digest and date. */
export function signedPost(keys: TestKeys, body: string, created: number = NOW_S): PlainRequest {
  const req: PlainRequest = {
    method: 'POST',
    targetUri: 'https://api.example.com/orders',
    headers: {
      date: imfDate(created),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'content-digest': `sha-256=:${sha256B64(body)}:`,
    },
  };
  return signCustom(req, { components: ['@method', '@target-uri', 'content-digest', 'date'], params: profileParams(created) }, keys.privateKey);
}

/** Runs `action` and returns the SignetError code it threw; fails the test when it did not throw one. */
export async function codeOf(action: () => unknown): Promise<SignetErrorCode> {
  try {
    await action();
  } catch (error) {
    if (isSignetError(error)) return error.code;
    throw new Error(`expected a SignetError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a SignetError, but nothing was thrown');
}

/** Same as {@link codeOf} for synchronous code, returning the whole error. */
export function errorOf(action: () => unknown): { code: SignetErrorCode; message: string; status: number } {
  try {
    action();
  } catch (error) {
    if (isSignetError(error)) return { code: error.code, message: error.message, status: error.status };
    throw new Error(`expected a SignetError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a SignetError, but nothing was thrown');
}

/** The SignetError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function refusal(promise: Promise<unknown>): Promise<SignetError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SignetError) return error;
    throw error;
  }
  throw new Error('expected a SignetError refusal, but the promise resolved');
}
