/**
 * `signet keygen --out DIR [--bits 2048|3072|4096] [--force]`: a new RSA key pair in Signet's
 * formats. A key pair already in DIR is never replaced without `--force`: the key it holds may
 * be registered (an admin's, a partner's) and would be lost.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { generateRsaKeyPair } from '../../lambda/core/keys';
import { CLIENT_DIR_FILES, writeKeyFiles } from '../../local/client-dir';
import { UsageError, parse, required } from './args';
import { CommandHelp } from './help';

const OPTIONS = {
  out: { type: 'string' },
  bits: { type: 'string', default: '2048' },
  force: { type: 'boolean', default: false },
} as const;

export const HELP: CommandHelp = {
  summary: 'make a new RSA key pair: private.pkcs8.b64 and private.pem (mode 0600), public.pem; prints the fingerprint',
  usage: 'keygen --out DIR [--bits 2048|3072|4096] [--force]',
  options: OPTIONS,
  flags: {
    out: { meaning: 'the directory to write the three files to (created if missing)', value: 'DIR' },
    bits: { meaning: 'RSA modulus size: 2048, 3072 or 4096', value: 'N' },
    force: { meaning: 'replace a key pair already in DIR (its old private key is lost)' },
  },
  notes: ['Send only public.pem to whoever registers the client; the private files never leave the signer.'],
  examples: ['keygen --out acme', 'keygen --out prod-admin --bits 3072'],
};

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  const out = required(values, 'out');
  const bits = Number(values.bits);
  if (![2048, 3072, 4096].includes(bits)) throw new UsageError('--bits must be 2048, 3072 or 4096');
  const existing = [CLIENT_DIR_FILES.privateKeyB64, CLIENT_DIR_FILES.privateKeyPem, CLIENT_DIR_FILES.publicKeyPem].filter((name) => existsSync(join(out, name)));
  if (existing.length > 0 && values.force !== true) {
    throw new UsageError(`${out} already holds a key pair (${existing.join(', ')}); nothing was written. Choose another --out DIR, or add --force to replace it (the old private key is then lost).`);
  }
  const pair = generateRsaKeyPair(bits);
  writeKeyFiles(out, pair);
  console.log(`wrote ${join(out, CLIENT_DIR_FILES.privateKeyB64)}, ${join(out, CLIENT_DIR_FILES.privateKeyPem)} (mode 0600) and ${join(out, CLIENT_DIR_FILES.publicKeyPem)}`);
  if (existing.length > 0 && existsSync(join(out, CLIENT_DIR_FILES.clientId))) {
    console.log(`note: ${join(out, CLIENT_DIR_FILES.clientId)} still names the old key's client; register the new public.pem (signet keys add CLIENT_ID --public-key ${join(out, CLIENT_DIR_FILES.publicKeyPem)})`);
  }
  console.log(`fingerprint: ${pair.fingerprint}`);
  return 0;
}
