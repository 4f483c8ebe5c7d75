#!/usr/bin/env node
/**
 * A publisher of keys on this machine, for trying published key sources against `npm start`
 * (docs/published-keys.md): a Web Bot Auth agent's key directory and a partner's JWKS, served from
 * the files in a folder, and a Web Bot Auth agent's signed call made with Cloudflare's
 * `web-bot-auth` signer exactly as its README shows.
 *
 *   node examples/key-source-demo.mjs agent-key FILE            a new Ed25519 private JWK in FILE (0600); prints its thumbprint
 *   node examples/key-source-demo.mjs serve DIR [--port N] [--sign-directory]
 *   node examples/key-source-demo.mjs call KEY_FILE AGENT_ORIGIN URL   a GET signed as a Web Bot Auth agent
 *
 * `serve` answers on http://127.0.0.1:N (default 8088), reading DIR on every request, so you
 * rotate keys by adding and removing files:
 * - `/.well-known/http-message-signatures-directory`: the public halves of DIR/agent/*.jwk.json
 *   (media type application/http-message-signatures-directory+json), with `--sign-directory`
 *   signed by each of those keys (tag http-message-signatures-directory, "@authority";req);
 * - `/jwks.json`: the public keys DIR/partner/*.pem as a JWKS, each with its file name as kid;
 * - while a file DIR/down exists, every answer is 503 with Retry-After: 60 (a failing source).
 *
 * Only for a laptop: it listens on 127.0.0.1, which only the local gateway fetches from. A real
 * agent or partner publishes over https, on a public address.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, join } from 'node:path';
import { directoryResponseHeaders, signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';

const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

/** RFC 7638 / RFC 8037 thumbprint of an Ed25519 public JWK: the keyid a Web Bot Auth agent signs with. */
function thumbprint(jwk) {
  return createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).digest('base64url');
}

function publicJwk(privateJwk) {
  const { d: _d, ...rest } = privateJwk;
  return rest;
}

function filesOf(dir, suffix) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => name.endsWith(suffix)).sort().map((name) => join(dir, name));
}

function agentKey(file) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const withKid = { kty: jwk.kty, crv: jwk.crv, kid: thumbprint(jwk), x: jwk.x, d: jwk.d };
  writeFileSync(file, `${JSON.stringify(withKid, null, 2)}\n`, { mode: 0o600 });
  console.log(`wrote ${file}: Ed25519, thumbprint (keyid) ${withKid.kid}`);
}

function serve(dir, port, signDirectory) {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status, headers, body) => {
      res.writeHead(status, headers).end(body);
      console.log(`${req.method} ${path} ${status}`);
    };
    if (existsSync(join(dir, 'down'))) return send(503, { 'content-type': 'text/plain', 'retry-after': '60' }, 'down for maintenance\n');
    if (path === DIRECTORY_PATH) {
      const privateKeys = filesOf(join(dir, 'agent'), '.jwk.json').map((file) => JSON.parse(readFileSync(file, 'utf8')));
      const body = JSON.stringify({ keys: privateKeys.map(publicJwk) });
      const headers = { 'content-type': DIRECTORY_MEDIA_TYPE, 'cache-control': 'max-age=300' };
      if (signDirectory && privateKeys.length > 0) {
        const now = new Date();
        const signers = await Promise.all(privateKeys.map((jwk) => signerFromJWK(jwk)));
        const request = { method: 'GET', url: `http://${req.headers.host}${path}`, headers: { host: req.headers.host } };
        const signed = await directoryResponseHeaders({ request, response: { status: 200, headers: {} } }, signers, { created: now, expires: new Date(now.getTime() + 300_000) });
        Object.assign(headers, signed);
      }
      return send(200, headers, body);
    }
    if (path === '/jwks.json') {
      const keys = filesOf(join(dir, 'partner'), '.pem').map((file) => ({ ...createPublicKey(readFileSync(file, 'utf8')).export({ format: 'jwk' }), kid: basename(file, '.pem'), use: 'sig' }));
      return send(200, { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=300' }, JSON.stringify({ keys }));
    }
    return send(404, { 'content-type': 'text/plain' }, 'not found\n');
  });
  server.listen(port, '127.0.0.1', () => {
    console.log(`serving ${dir} on http://127.0.0.1:${port}: ${DIRECTORY_PATH}${signDirectory ? ' (signed)' : ''} and /jwks.json; Ctrl-C to stop`);
  });
}

async function call(keyFile, agent, url) {
  const jwk = JSON.parse(readFileSync(keyFile, 'utf8'));
  createPrivateKey({ key: jwk, format: 'jwk' }); // a clear error for a file that is not a private JWK
  // As the web-bot-auth README signs, with the agent's origin announced in Signature-Agent.
  const request = new globalThis.Request(url, { headers: { 'Signature-Agent': JSON.stringify(agent) } });
  const now = new Date();
  const headers = await signatureHeaders(request, await signerFromJWK(jwk), { created: now, expires: new Date(now.getTime() + 300_000) });
  const response = await fetch(url, { headers: { 'Signature-Agent': JSON.stringify(agent), Signature: headers.Signature, 'Signature-Input': headers['Signature-Input'] } });
  console.log(`HTTP ${response.status}${response.headers.get('x-signet-error') ? ` ${response.headers.get('x-signet-error')}` : ''}`);
  console.log(await response.text());
  return response.ok ? 0 : 1;
}

const [command, ...args] = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const positional = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1] === '--port'));
if (command === 'agent-key' && positional.length === 1) agentKey(positional[0]);
else if (command === 'serve' && positional.length === 1) serve(positional[0], Number(option('--port', '8088')), flag('--sign-directory'));
else if (command === 'call' && positional.length === 3) process.exitCode = await call(...positional);
else {
  console.error('usage: node examples/key-source-demo.mjs agent-key FILE | serve DIR [--port N] [--sign-directory] | call KEY_FILE AGENT_ORIGIN URL');
  process.exitCode = 2;
}
