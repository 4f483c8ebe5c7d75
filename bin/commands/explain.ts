/**
 * `signet explain`: takes the same inputs as `signet verify`, walks the troubleshooting
 * checklist item by item, prints the signature base the verifier expected, and recognises the
 * classic signer mistakes: URL signed without its query string, method not upper-cased, CRLF
 * line breaks (or a trailing newline), a digest over another serialisation of the body, a
 * private key where the public key belongs, a keyid that is not the clientId.
 *
 * Every check runs through the core (parse, base, verify); this file only varies the inputs.
 */
import { checkContentDigest, computeContentDigest, parseContentDigest } from '../../lambda/core/content-digest';
import { SignetError, isSignetError } from '../../lambda/core/errors';
import { PublicKeyInfo, importPublicKey, looksLikePrivateKey } from '../../lambda/core/keys';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { SignedRequest } from '../../lambda/core/types';
import { ParsedSignature, VerificationKey, defaultVerifyPolicy, parseRequestSignature, verifyParsedSignature } from '../../lambda/core/verify';
import { ReceivedRequest, readReceivedRequest } from './request-inputs';

type Outcome = 'ok' | 'FAIL' | 'skip';

class Checklist {
  private n = 0;
  readonly findings: string[] = [];
  firstFailure?: SignetError;

  item(outcome: Outcome, text: string): void {
    this.n += 1;
    console.log(` [${outcome.padEnd(4)}] ${String(this.n).padStart(2)}. ${text}`);
  }

  fail(text: string, error?: unknown): void {
    if (isSignetError(error)) this.firstFailure ??= error;
    this.item('FAIL', isSignetError(error) ? `${text}: ${error.code}: ${error.message}` : text);
  }

  found(mistake: string): void {
    this.findings.push(mistake);
  }
}

export async function run(argv: string[]): Promise<number> {
  const input = readReceivedRequest(argv);
  const { request } = input;
  const list = new Checklist();
  console.log('signet explain: troubleshooting checklist');

  const key = checkPublicKey(input, list);
  const parsed = checkSignatureHeaders(input, list);
  if (parsed !== undefined) {
    checkKeyId(parsed, input, list);
    checkBody(parsed, input, list);
    if (key !== undefined) checkSignature(parsed, request, key, list);
    console.log('\nExpected signature base (what the signature must be computed over; LF line breaks, no final LF):');
    console.log('-----');
    console.log(parsed.base);
    console.log('-----');
  }

  console.log('');
  if (list.findings.length > 0) {
    for (const finding of list.findings) console.log(`found: ${finding}`);
  } else if (list.firstFailure !== undefined) {
    console.log('found: no classic signer mistake recognised; see the failed item above.');
  }
  if (list.firstFailure === undefined && key !== undefined && parsed !== undefined) {
    console.log('result: valid');
    return 0;
  }
  const failure = list.firstFailure;
  console.log(failure ? `result: invalid: ${failure.code}: ${failure.message}` : 'result: invalid');
  return 1;
}

function checkPublicKey(input: ReceivedRequest, list: Checklist): VerificationKey | undefined {
  if (looksLikePrivateKey(input.publicKeyText)) {
    list.fail('The --public-key file holds a PRIVATE key', new SignetError('private_key_submitted', 'Give the public half (public.pem). Treat this private key as exposed if it was shared.'));
    list.found('a private key where the public key belongs: use public.pem, and treat that private key as exposed if it was sent anywhere');
    return undefined;
  }
  try {
    const info: PublicKeyInfo = importPublicKey(input.publicKeyText);
    list.item('ok', `The public key is RSA-${info.bits} (fingerprint ${info.fingerprint})`);
    return { fingerprint: info.fingerprint, key: info.key };
  } catch (error) {
    list.fail('The public key could not be read', error);
    return undefined;
  }
}

/** Runs the key-independent checks; on a time failure, re-parses at the signing time so the signature can still be examined. */
function checkSignatureHeaders(input: ReceivedRequest, list: Checklist): ParsedSignature | undefined {
  try {
    const parsed = parseRequestSignature(input.request, input.policy);
    list.item('ok', `Signature-Input and Signature parse; label "sig", alg, keyid ${JSON.stringify(parsed.keyId)}, created ${parsed.created}, Date, covered ${parsed.covered.join(' ')}`);
    return parsed;
  } catch (error) {
    list.fail('Signature headers and freshness', error);
    if (!isSignetError(error) || !['expired', 'clock_skew'].includes(error.code)) return undefined;
    try {
      const created = Number(/;created=(\d+)/.exec(input.request.headers['signature-input'] ?? '')?.[1]);
      return parseRequestSignature(input.request, defaultVerifyPolicy({ ...input.policy, nowS: () => created, maxSkewS: Number.MAX_SAFE_INTEGER }));
    } catch {
      return undefined;
    }
  }
}

function checkKeyId(parsed: ParsedSignature, input: ReceivedRequest, list: Checklist): void {
  if (input.clientId === undefined) {
    list.item('skip', 'keyid is the clientId (give --client-id to check)');
  } else if (parsed.keyId === input.clientId) {
    list.item('ok', 'keyid is the clientId');
  } else {
    list.fail(`keyid ${JSON.stringify(parsed.keyId)} is not the clientId ${JSON.stringify(input.clientId)}`, new SignetError('unknown_client', 'Put your clientId in keyid.'));
    list.found('a keyid that is not the clientId: keyid must be exactly the clientId the registry gave you');
  }
}

function checkBody(parsed: ParsedSignature, input: ReceivedRequest, list: Checklist): void {
  if (input.body === undefined || input.body.length === 0) {
    list.item('skip', 'Content-Digest matches the body (no body given)');
    return;
  }
  try {
    checkContentDigest(parsed.contentDigest, input.body);
    list.item('ok', 'Content-Digest matches the body');
  } catch (error) {
    list.fail('Content-Digest matches the body', error);
    const signed = parsed.contentDigest === undefined ? undefined : safeSha256(parsed.contentDigest);
    const variant = signed === undefined ? undefined : bodyVariants(input.body.toString('utf8')).find(([, text]) => computeContentDigest(text) === `sha-256=:${signed}:`);
    if (variant !== undefined) list.found(`a digest computed over a different serialisation of the body (${variant[0]}): hash the exact bytes you send`);
  }
}

function checkSignature(parsed: ParsedSignature, request: SignedRequest, key: VerificationKey, list: Checklist): void {
  const policy = defaultVerifyPolicy({ nowS: () => parsed.created });
  try {
    verifyParsedSignature(parsed, [key], policy);
    list.item('ok', 'The signature verifies over the expected base with this key');
    return;
  } catch (error) {
    list.fail('The signature verifies over the expected base with this key', error);
  }
  const { covered, signatureParams } = parsed.input;
  const base = (req: SignedRequest): string => buildSignatureBase(req, covered, signatureParams);
  const url = new URL(request.targetUri);
  const variants: Array<[string, () => string]> = [
    ['the URL was signed without its query string', () => base({ ...request, targetUri: request.targetUri.split('?')[0] })],
    ['the method was not upper-cased when signing', () => base({ ...request, method: request.method.toLowerCase() })],
    ['the method was upper-cased when signing but sent otherwise', () => base({ ...request, method: request.method.toUpperCase() })],
    ['CRLF line breaks in the signature base (use LF)', () => parsed.base.replace(/\n/g, '\r\n')],
    ['a trailing line break after the @signature-params line (there must be none)', () => `${parsed.base}\n`],
    ['the URL was signed with another scheme (http vs https)', () => base({ ...request, targetUri: request.targetUri.replace(/^https?:/, url.protocol === 'https:' ? 'http:' : 'https:') })],
    ['the URL was signed without the stage or base path', () => base({ ...request, targetUri: `${url.origin}${url.pathname.replace(/^\/[^/]+/, '')}${url.search}` })],
  ];
  for (const [mistake, make] of variants) {
    let variantBase: string;
    try {
      variantBase = make();
    } catch {
      continue;
    }
    if (variantBase === parsed.base) continue;
    try {
      verifyParsedSignature({ ...parsed, base: variantBase, alternativeBases: [] }, [key], policy);
      list.found(mistake);
      return;
    } catch {
      // not this mistake
    }
  }
}

function safeSha256(contentDigest: string): string | undefined {
  try {
    return parseContentDigest(contentDigest).get('sha-256')?.toString('base64');
  } catch {
    return undefined;
  }
}

function bodyVariants(body: string): Array<[string, string]> {
  const variants: Array<[string, string]> = [
    ['with a trailing newline', `${body}\n`],
    ['without the trailing newline', body.replace(/\r?\n$/, '')],
    ['with CRLF line breaks', body.replace(/\r?\n/g, '\r\n')],
    ['with LF line breaks', body.replace(/\r\n/g, '\n')],
  ];
  try {
    const json: unknown = JSON.parse(body);
    variants.push(['compact JSON', JSON.stringify(json)], ['JSON indented by 2', JSON.stringify(json, null, 2)], ['JSON indented by 4', JSON.stringify(json, null, 4)]);
    variants.push(['JSON with a space after : and ,', JSON.stringify(json).replace(/([:,])(?=(?:[^"\\]|\\.|"(?:[^"\\]|\\.)*")*$)/g, '$1 ')]);
  } catch {
    // not JSON
  }
  return variants.filter(([, text]) => text !== body);
}
