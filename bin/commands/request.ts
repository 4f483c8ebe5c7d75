/**
 * `signet request`: a curl-like signed request.
 *
 *   signet request [--client DIR | --key FILE --client-id ID] [-X METHOD] URL
 *                  [-d DATA | -d @FILE | --data-file FILE] [-H 'Name: value' ...] [-i]
 *
 * Signs with the signer library (the core's scheme), sends, prints the status line, the response
 * headers with `-i`, and the body. Exits 0 on a 2xx answer, 1 otherwise.
 *
 * Defaults: the client is `$SIGNET_HOME/demo` (written by `npm start`); the method is GET, or
 * POST with a body; a URL starting with `/` goes to the local gateway
 * (`http://127.0.0.1:${PORT:-3000}`); a body without `-H 'Content-Type: ...'` is sent as
 * `application/json` when it parses as JSON, else as `application/octet-stream`.
 */
import { UsageError, headerLines, parse, readBody } from './args';
import { defaultClientDirs, resolveUrl, signedCall, signingIdentity } from './signed-call';

export const REQUEST_OPTIONS = {
  client: { type: 'string' },
  key: { type: 'string' },
  'client-id': { type: 'string' },
  request: { type: 'string', short: 'X' },
  data: { type: 'string', short: 'd' },
  'data-file': { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  include: { type: 'boolean', short: 'i', default: false },
} as const;

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...REQUEST_OPTIONS });
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'give the URL to call' : `give exactly one URL; got ${positionals.length}`);
  const identity = signingIdentity(values, defaultClientDirs().demo);
  const url = resolveUrl(positionals[0]);
  const body = readBody(values);
  const method = (typeof values.request === 'string' && values.request !== '' ? values.request : body !== undefined ? 'POST' : 'GET').toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`-X ${JSON.stringify(method)} is not an HTTP method`);
  const headers = headerLines(values.header);
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = contentTypeFor(body);

  const answer = await signedCall(identity, url, { method, headers, body });

  const out: string[] = [`HTTP ${answer.status} ${answer.statusText}`.trimEnd()];
  if (values.include === true) {
    answer.headers.forEach((value, name) => out.push(`${name}: ${value}`));
    out.push('');
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (answer.body.length > 0) {
    process.stdout.write(answer.body);
    if (answer.body[answer.body.length - 1] !== 0x0a) process.stdout.write('\n');
  }
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}

function contentTypeFor(body: Buffer): string {
  try {
    JSON.parse(body.toString('utf8'));
    return 'application/json';
  } catch {
    return 'application/octet-stream';
  }
}
