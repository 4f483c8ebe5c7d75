/** `signet keygen --out DIR [--bits 2048|3072|4096]`: a new RSA key pair in the seed's formats. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateRsaKeyPair, spkiPemOf } from '../../lambda/core/keys';
import { UsageError, parse, required } from './args';

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { out: { type: 'string' }, bits: { type: 'string', default: '2048' } });
  const out = required(values, 'out');
  const bits = Number(values.bits);
  if (![2048, 3072, 4096].includes(bits)) throw new UsageError('--bits must be 2048, 3072 or 4096');
  const pair = generateRsaKeyPair(bits);
  mkdirSync(out, { recursive: true });
  writePrivate(join(out, 'private.pkcs8.b64'), `${pair.pkcs8Base64}\n`);
  writePrivate(join(out, 'private.pem'), pair.key.export({ type: 'pkcs8', format: 'pem' }) as string);
  writeFileSync(join(out, 'public.pem'), spkiPemOf(pair.publicKey));
  console.log(`wrote ${join(out, 'private.pkcs8.b64')}, ${join(out, 'private.pem')} (mode 0600) and ${join(out, 'public.pem')}`);
  console.log(`fingerprint: ${pair.fingerprint}`);
  return 0;
}

function writePrivate(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its old mode otherwise
}
