/**
 * `signet keygen --out DIR [--alg rsa|ed25519|ecdsa-p256|ecdsa-p384] [--bits 2048|3072|4096] [--force]`:
 * a new key pair in Signet's formats (Ed25519 also as the hex seed curl's `--httpsig-key` reads).
 * A key pair already in DIR is never replaced without `--force`: the key it holds may be
 * registered (an admin's, a partner's) and would be lost. DIR must be the user's own directory that
 * no one else may write to; a symbolic link at a key file's name counts as a key file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_TYPES, type KeyTypeName, generateKeyPair } from '../../lambda/core/keys';
import { CLIENT_DIR_FILES, existingKeyFiles, prepareClientDir, writeKeyFiles } from '../../local/client-dir';
import { UsageError, parse, required } from './args';
import { CommandHelp } from './help';

const OPTIONS = {
  out: { type: 'string' },
  alg: { type: 'string', default: 'rsa' },
  bits: { type: 'string', default: '2048' },
  force: { type: 'boolean', default: false },
} as const;

export const HELP: CommandHelp = {
  summary: 'make a new key pair: private.pkcs8.b64 and private.pem (mode 0600), public.pem; prints the fingerprint and algorithm',
  usage: 'keygen --out DIR [--alg rsa|ed25519|ecdsa-p256|ecdsa-p384] [--bits 2048|3072|4096] [--force]',
  options: OPTIONS,
  flags: {
    out: { meaning: 'the directory to write the three files to (created if missing)', value: 'DIR' },
    alg: { meaning: 'the key type: rsa (signs rsa-v1_5-sha256), ed25519, ecdsa-p256 (ecdsa-p256-sha256) or ecdsa-p384 (ecdsa-p384-sha384); ed25519 also writes private.ed25519.hex (mode 0600), the seed curl --httpsig-key reads', value: 'TYPE' },
    bits: { meaning: 'RSA modulus size: 2048, 3072 or 4096 (RSA only)', value: 'N' },
    force: { meaning: 'replace a key pair already in DIR (its old private key is lost)' },
  },
  notes: ['Send only public.pem to whoever registers the client; the private files never leave the signer.'],
  examples: ['keygen --out acme', 'keygen --out prod-admin --bits 3072', 'keygen --out bot --alg ed25519'],
};

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  const out = required(values, 'out');
  const bits = Number(values.bits);
  if (![2048, 3072, 4096].includes(bits)) throw new UsageError('--bits must be 2048, 3072 or 4096');
  const type = String(values.alg) as KeyTypeName;
  if (!KEY_TYPES.includes(type)) throw new UsageError(`--alg must be one of ${KEY_TYPES.join(', ')}`);
  if (type !== 'rsa' && values.bits !== '2048') throw new UsageError('--bits applies to RSA keys only; leave it out with --alg ' + type);
  prepareClientDir(out);
  const existing = existingKeyFiles(out);
  if (existing.length > 0 && values.force !== true) {
    throw new UsageError(`${out} already holds a key pair (${existing.join(', ')}); nothing was written. Choose another --out DIR, or add --force to replace it (the old private key is then lost).`);
  }
  const pair = generateKeyPair(type, bits);
  writeKeyFiles(out, pair);
  const seed = type === 'ed25519' ? `, ${join(out, CLIENT_DIR_FILES.ed25519SeedHex)}` : '';
  console.log(`wrote ${join(out, CLIENT_DIR_FILES.privateKeyB64)}, ${join(out, CLIENT_DIR_FILES.privateKeyPem)}${seed} (mode 0600) and ${join(out, CLIENT_DIR_FILES.publicKeyPem)}`);
  if (existing.length > 0 && existsSync(join(out, CLIENT_DIR_FILES.clientId))) {
    console.log(`note: ${join(out, CLIENT_DIR_FILES.clientId)} still names the old key's client; register the new public.pem (signet keys add CLIENT_ID --public-key ${join(out, CLIENT_DIR_FILES.publicKeyPem)})`);
  }
  console.log(`fingerprint: ${pair.fingerprint}`);
  console.log(`algorithm: ${pair.algorithm} (${pair.keyType})`);
  return 0;
}
