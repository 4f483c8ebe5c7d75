#!/usr/bin/env node
/**
 * Signet request signing in Node.js (18 or newer), with node:crypto only.
 *
 *   node examples/sign.mjs [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]
 *
 * KEY_FILE is your private key: the Base64 PKCS#8 file you were given (private.pkcs8.b64) or a
 * PKCS#8 PEM file. URL is the exact URL you call (scheme, host, port, path, query). BODY_FILE
 * holds the exact body bytes, if any.
 *
 * Without --send it prints the headers to add, one "Name: value" per line. With --send it sends
 * the request (fetch) and prints "HTTP <status>" and the response body; exit 0 on a 2xx.
 *
 * In your own code, call signRequest() and add the headers it returns to your request. (Inside
 * this repository, lambda/signer's createSigner and signedFetch do this and key rotation too.)
 */
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The seed's Base64 PKCS#8 (no header/footer), or a PEM file. */
export function loadPrivateKey(path) {
  const text = readFileSync(path, 'utf8');
  if (text.includes('-----BEGIN')) return createPrivateKey(text);
  return createPrivateKey({ key: Buffer.from(text.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'pkcs8' });
}

/** The headers that sign one request: Content-Digest (with a body), Date, Signature-Input, Signature. */
export function signRequest({ privateKey, clientId, method, url, body = Buffer.alloc(0), created = Math.floor(Date.now() / 1000) }) {
  const headers = {};
  const components = ['"@method"', '"@target-uri"'];
  const lines = [`"@method": ${method.toUpperCase()}`, `"@target-uri": ${url}`];
  if (body.length > 0) {
    const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
    headers['Content-Digest'] = digest;
    components.push('"content-digest"');
    lines.push(`"content-digest": ${digest}`);
  }
  const date = new Date(created * 1000).toUTCString(); // IMF-fixdate: 'Tue, 07 Jun 2014 20:51:35 GMT'
  headers.Date = date;
  components.push('"date"');
  lines.push(`"date": ${date}`);
  const params = `(${components.join(' ')});created=${created};keyid="${clientId}";alg="rsa-v1_5-sha256"`;
  lines.push(`"@signature-params": ${params}`);
  const base = lines.join('\n'); // LF line ends, no LF after the last line
  const signature = sign('sha256', Buffer.from(base, 'utf8'), privateKey); // RSASSA-PKCS1-v1_5 for RSA keys
  headers['Signature-Input'] = `sig=${params}`;
  headers.Signature = `sig=:${signature.toString('base64')}:`;
  return headers;
}

/** One line on stderr, exit code 1: a wrong key file is not a stack trace. */
function fail(message) {
  console.error(`error: ${message}`);
  return 1;
}

function isPublicKey(path) {
  try {
    return readFileSync(path, 'utf8').includes('PUBLIC KEY-----');
  } catch {
    return false;
  }
}

async function main(argv) {
  const send = argv[0] === '--send';
  const args = send ? argv.slice(1) : argv;
  if (args.length !== 4 && args.length !== 5) {
    console.error('usage: node sign.mjs [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]');
    return 2;
  }
  const [keyFile, clientId, rawMethod, url, bodyFile] = args;
  const method = rawMethod.toUpperCase();
  let privateKey;
  try {
    privateKey = loadPrivateKey(keyFile);
    if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('it is not an RSA key');
  } catch (error) {
    const reason = error.code === 'ENOENT' ? 'no such file' : isPublicKey(keyFile) ? 'it holds a PUBLIC key; give your private key (private.pkcs8.b64 or private.pem)' : 'it is not a PKCS#8 RSA private key (Base64 or PEM)';
    return fail(`KEY_FILE ${keyFile} cannot be used as the private key: ${reason}`);
  }
  let body = Buffer.alloc(0);
  try {
    if (bodyFile !== undefined) body = readFileSync(bodyFile);
  } catch (error) {
    return fail(`BODY_FILE ${bodyFile} cannot be read: ${error.code ?? error.message}`);
  }
  const headers = signRequest({ privateKey, clientId, method, url, body });
  if (!send) {
    for (const [name, value] of Object.entries(headers)) console.log(`${name}: ${value}`);
    return 0;
  }
  if (body.length > 0) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: body.length > 0 ? body : undefined });
  console.log(`HTTP ${response.status}`);
  console.log(await response.text());
  return response.status >= 200 && response.status < 300 ? 0 : 1;
}

// Run as a script (not when imported).
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
