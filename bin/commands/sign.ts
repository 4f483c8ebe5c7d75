/** `signet sign`: prints the headers to send with a request, one `Name: value` per line. */
import type { KeyObject } from 'node:crypto';
import { importPrivateKey } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { SIGNATURE_ALGORITHMS, type SignatureAlgorithm, isSignatureAlgorithm } from '../../lambda/core/algorithm-names';
import { readClientDir } from '../../local/client-dir';
import { UsageError, displayName, optionalInt, parse, readBody, readText, required } from './args';
import { CommandHelp } from './help';

const OPTIONS = {
  client: { type: 'string' },
  key: { type: 'string' },
  'client-id': { type: 'string' },
  method: { type: 'string' },
  url: { type: 'string' },
  data: { type: 'string' },
  'data-file': { type: 'string' },
  created: { type: 'string' },
  legacy: { type: 'boolean', default: false },
  alg: { type: 'string' },
} as const;

export const HELP: CommandHelp = {
  summary: 'print the Content-Digest, Date, Signature-Input and Signature headers to send with a request',
  usage: 'sign (--client DIR | --key FILE --client-id ID) --method M --url URL [--data STR | --data-file FILE] [--created UNIX] [--legacy] [--alg ALG]',
  options: OPTIONS,
  flags: {
    client: { meaning: 'a client directory to sign as (its private key and client-id), as `signet request --client` takes', value: 'DIR' },
    key: { meaning: 'the private key: private.pkcs8.b64 (Base64 PKCS#8), or a PKCS#8 / PKCS#1 PEM', value: 'FILE' },
    'client-id': { meaning: 'the clientId the registry gave (goes into keyid)', value: 'ID' },
    method: { meaning: 'the HTTP method you will send (signed upper-cased)', value: 'M' },
    url: { meaning: 'the full URL exactly as you will call it: scheme, host, port, path and query', value: 'URL' },
    data: { meaning: 'the body as text, or @FILE for a file\'s bytes', value: 'STR' },
    'data-file': { meaning: 'the body: the exact bytes of FILE', value: 'FILE' },
    created: { meaning: 'the signing time in unix seconds', value: 'UNIX', default: 'now' },
    alg: { meaning: `the algorithm the key is registered for, sent as alg: the key type's own by default (RSA: rsa-v1_5-sha256; Ed25519, P-256, P-384 have one each); give rsa-pss-sha512 for an RSA key registered for it`, value: 'ALG' },
    legacy: { meaning: 'the legacy form: no Date header, `date` not covered (verifiers refuse it unless SIGNET_ALLOW_LEGACY=true)' },
  },
  examples: ["sign --key .signet/demo/private.pkcs8.b64 --client-id c_... --method POST --url 'http://127.0.0.1:3000/api/echo' --data '{\"hello\":\"world\"}'"],
};

function checkedAlgorithm(value: string): SignatureAlgorithm {
  if (!isSignatureAlgorithm(value)) throw new UsageError(`--alg must be one of ${SIGNATURE_ALGORITHMS.join(', ')}`);
  return value;
}

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  const { privateKey, keyId } = signingKeyOf(values);
  const { headers } = signRequest({
    method: required(values, 'method'),
    url: required(values, 'url'),
    body: readBody(values),
    keyId,
    privateKey,
    created: optionalInt(values, 'created') ?? Math.floor(Date.now() / 1000),
    legacy: values.legacy === true,
    ...(typeof values.alg === 'string' ? { algorithm: checkedAlgorithm(values.alg) } : {}),
  });
  for (const [name, value] of Object.entries(headers)) console.log(`${displayName(name)}: ${value}`);
  return 0;
}

/** The key and keyid to sign with: a client directory's, or a key file and a clientId. */
function signingKeyOf(values: Record<string, unknown>): { privateKey: KeyObject; keyId: string } {
  if (typeof values.client === 'string') {
    if (values.key !== undefined || values['client-id'] !== undefined) throw new UsageError('give either --client DIR, or --key FILE with --client-id ID; not both');
    const dir = readClientDir(values.client);
    return { privateKey: dir.key.key, keyId: dir.clientId };
  }
  if (values.key === undefined) throw new UsageError('missing --client DIR (a client directory), or --key FILE with --client-id ID');
  return { privateKey: importPrivateKey(readText(required(values, 'key'), '--key')).key, keyId: required(values, 'client-id') };
}
