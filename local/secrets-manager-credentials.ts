/**
 * The credentials of one SIGNET_HOME's Secrets Manager stand-in: `npm start` creates
 * `$SIGNET_HOME/secrets-manager-credentials.json` (mode 0600) on its first run and reuses it
 * afterwards; the stand-in accepts only requests signed (SigV4) with this key pair, DynamoDB
 * Local started by `npm start` only requests naming its access key id, and the local tools that
 * talk to them (`npm start`'s own bootstrap and handlers, `signet rotate`) sign with it.
 *
 * ```json
 * { "format": "signet-secrets-manager-credentials/1", "accessKeyId": "SIGNETLOCAL…", "secretAccessKey": "…" }
 * ```
 *
 * A file that other users may read is refused (as ssh refuses a private key readable by
 * others): whoever could read it could read every secret the stand-in keeps.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createFileOnce } from './private-file';
import type { SigV4Credentials } from './sigv4-verifier';

const FORMAT = 'signet-secrets-manager-credentials/1';
const ACCESS_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A new random key pair: a 20-character access key id and a 40-character secret, like AWS's. */
export function newStandInCredentials(): SigV4Credentials {
  const id = [...randomBytes(9)].map((b) => ACCESS_KEY_ALPHABET[b % 32]).join('');
  return { accessKeyId: `SIGNETLOCAL${id}`, secretAccessKey: randomBytes(30).toString('base64') };
}

/**
 * The credentials in `path`, creating the file (mode 0600) with new ones when it does not exist.
 * @throws Error when the file is unreadable, malformed, or readable by other users
 */
export function loadOrCreateStandInCredentials(path: string): SigV4Credentials {
  if (!existsSync(path)) writeStandInCredentials(path, newStandInCredentials());
  return readStandInCredentials(path);
}

/**
 * Creates the file (mode 0600) holding `credentials`; an existing file is kept as it is.
 * Written aside and linked into place, so it appears complete, and only once.
 */
export function writeStandInCredentials(path: string, credentials: SigV4Credentials): void {
  const { accessKeyId, secretAccessKey } = credentials;
  createFileOnce(path, `${JSON.stringify({ format: FORMAT, accessKeyId, secretAccessKey }, null, 2)}\n`, 0o600);
}

/**
 * The credentials in `path`.
 * @throws Error saying to run `npm start` when the file is missing; when it is malformed or readable by other users
 */
export function readStandInCredentials(path: string): SigV4Credentials {
  if (!existsSync(path)) {
    throw new Error(`${path} does not exist: start the local gateway (\`npm start\`) with this SIGNET_HOME first; it creates the Secrets Manager stand-in's credentials there.`);
  }
  const mode = statSync(path).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new Error(
      `${path} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}): anyone who can read it can read the stand-in's secrets. ` +
        `Delete it so \`npm start\` creates new credentials (or, if only you could ever read it, \`chmod 600 ${path}\`).`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new Error(`${path} is not valid JSON; delete it and restart the local gateway (\`npm start\`) to create new credentials.`, { cause });
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const { accessKeyId, secretAccessKey } = record;
  if (record.format !== FORMAT || typeof accessKeyId !== 'string' || typeof secretAccessKey !== 'string' || accessKeyId === '' || secretAccessKey === '') {
    throw new Error(`${path} is not a Secrets Manager stand-in credentials file (${FORMAT}); delete it and restart the local gateway (\`npm start\`).`);
  }
  return { accessKeyId, secretAccessKey };
}
