/**
 * What `signet request` and the registry commands share: who signs (a client directory, or a key
 * file and a clientId), and sending one signed request through the signer library
 * (lambda/signer: `createSigner` + `signedFetch`, so the scheme lives only in the core).
 */
import { existsSync } from 'node:fs';
import { importPrivateKey } from '../../lambda/core/keys';
import { Signer, createSigner, signedFetch } from '../../lambda/signer';
import { ClientDir, readClientDir } from '../../local/client-dir';
import { defaultEndpoint, runningGatewayUrl } from '../../local/local-state';
import { localEndpoint, localPaths, signetHome } from '../../local/signet-home';
import { UsageError, readText } from './args';

/** The names of this machine's loopback address as URLs spell them; the local gateway rebuilds URLs with 127.0.0.1. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Who signs: the clientId (keyid) and its private key. */
export interface SigningIdentity {
  readonly clientId: string;
  readonly key: ClientDir['key'];
  /** Where it was read from, for messages. */
  readonly source: string;
}

/** `--client DIR`, or `--key FILE --client-id ID`, or `defaultDir` when neither is given. */
export function signingIdentity(values: Record<string, unknown>, defaultDir: string, dirOption = 'client'): SigningIdentity {
  const dir = values[dirOption];
  const keyFile = values.key;
  const clientId = values['client-id'];
  if (dir !== undefined && (keyFile !== undefined || clientId !== undefined)) {
    throw new UsageError(`give --${dirOption} DIR, or --key FILE with --client-id ID, not both`);
  }
  if (keyFile !== undefined || clientId !== undefined) {
    if (typeof keyFile !== 'string' || typeof clientId !== 'string' || keyFile === '' || clientId === '') {
      throw new UsageError('--key FILE and --client-id ID go together');
    }
    return { clientId, key: importPrivateKey(readText(keyFile, '--key')), source: keyFile };
  }
  const given = typeof dir === 'string' && dir !== '';
  const chosen = given ? dir : defaultDir;
  if (!existsSync(chosen)) {
    // Only the default directories are `npm start`'s to write; a directory named by the user is a typo or a missing copy.
    throw new UsageError(
      given
        ? `--${dirOption} ${chosen} does not exist. Give a client directory (private.pkcs8.b64 and client-id), as \`signet clients create --out DIR\` writes one, or --key FILE with --client-id ID.`
        : `${chosen} does not exist. Run \`npm start\` once (it writes $SIGNET_HOME/admin and $SIGNET_HOME/demo), or give --${dirOption} DIR.`,
    );
  }
  const client = readClientDir(chosen);
  return { clientId: client.clientId, key: client.key, source: chosen };
}

/** The directories `npm start` writes, under `$SIGNET_HOME`. */
export function defaultClientDirs(): { admin: string; demo: string } {
  const paths = localPaths(signetHome());
  return { admin: paths.adminDir, demo: paths.demoDir };
}

/** `/path` → the local gateway's URL for it; an absolute URL is kept. */
export function resolveUrl(text: string, base: string = defaultEndpoint()): string {
  let url: URL;
  try {
    // A path is resolved as fetch will send it (dot segments removed), so that what is signed is what is sent.
    url = new URL(text.startsWith('/') ? `${base}${text}` : text);
  } catch {
    throw new UsageError(`${JSON.stringify(text.slice(0, 100))} is not an absolute URL (http://host/path) or a path starting with /`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('The URL holds a user name or password (user:password@host), which fetch refuses to send and -v would print: leave them out; the signature says who you are.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${JSON.stringify(text.slice(0, 100))} has the scheme "${url.protocol.slice(0, -1).slice(0, 20)}"; use http:// or https://`);
  }
  return url.href;
}

/** A received answer, body read. */
export interface SignedAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly body: Buffer;
}

export interface SignedCallInit {
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** Told the signature headers each time the request is signed (`request --verbose`). */
  readonly onSigned?: (headers: Readonly<Record<string, string>>) => void;
}

/**
 * Signs and sends one request; a network failure becomes an Error that says what to check.
 * @throws Error when the server cannot be reached
 */
export async function signedCall(identity: SigningIdentity, url: string, init: SignedCallInit): Promise<SignedAnswer> {
  const inner = createSigner({ clientId: identity.clientId, privateKey: identity.key.key });
  const onSigned = init.onSigned;
  const signer: Signer =
    onSigned === undefined
      ? inner
      : {
          sign: async (request) => (await signer.signDetailed(request)).headers,
          signDetailed: async (request) => {
            const details = await inner.signDetailed(request);
            onSigned(details.headers);
            return details;
          },
          refresh: () => inner.refresh(),
          keyFingerprint: () => inner.keyFingerprint(),
        };
  let response: Response;
  try {
    response = await signedFetch(signer, url, { method: init.method, headers: { ...(init.headers ?? {}) }, body: init.body });
  } catch (error) {
    throw new Error(unreachable(url, error), { cause: error });
  }
  return { status: response.status, statusText: response.statusText, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

function unreachable(url: string, error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  const origin = new URL(url).origin;
  const local = origin === new URL(defaultEndpoint()).origin;
  const loopback = LOOPBACK_HOSTNAMES.includes(new URL(url).hostname);
  const running = local || loopback ? runningGatewayUrl(localPaths(signetHome())) : undefined;
  const advice =
    running !== undefined && running !== origin
      ? `The local gateway of ${signetHome()} listens on ${running}: run the command with PORT=${new URL(running).port}, or give --endpoint ${running}.`
      : local
        ? 'Is the local gateway running? Start it with `npm start` (with the same SIGNET_HOME and PORT).'
        : loopback
          ? `Nothing answers there; the local gateway listens on ${localEndpoint()} (PORT=${new URL(localEndpoint()).port}) unless started with another PORT.`
          : 'Check the URL and your network.';
  return `could not reach ${origin} (${reason}). ${advice}`;
}
