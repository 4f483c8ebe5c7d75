/**
 * The page's key checks (portal/keys.ts with WebCrypto, on the core's private-key scan and DER
 * reader from portal/signet-core.ts, run under Node's WebCrypto) against the registry's
 * (lambda/core/keys.ts with node:crypto): for the same text the same verdict, code and sentence,
 * so the form's inline message is the API's. Above all, every private key form the registry
 * recognises (the less common forms among them) is refused in the page as
 * `private_key_submitted` before it could be sent anywhere.
 */
import { generateKeyPairSync } from 'node:crypto';
import { importPrivateKey, importPublicKey } from '../../lambda/core/keys';
import { looksLikePrivateKey } from '../../lambda/core/private-key-scan';
import { isSignetError } from '../../lambda/core/errors';
import { privateKeyForms, spkiPem, testKey, unacceptablePublicKeys } from '../support/registry-fixtures';
import { OUTCOME, runInPortal } from './portal-modules';
import { infinityPointSpki, pemOf } from '../core/key-fuzz-inputs';

type Outcome = { value?: { fingerprint: string; bits: number; keyType?: string; algorithm?: string } | null; code?: string; message?: string };

/** Texts to compare, by name. */
function corpus(): Record<string, string> {
  const rsa = testKey(0);
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ed = generateKeyPairSync('ed25519');
  const pss = generateKeyPairSync('rsa-pss', { modulusLength: 2048 });
  const bad = unacceptablePublicKeys();
  const pem = spkiPem(rsa);
  const pkcs1Pub = rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const der = (k: import('node:crypto').KeyObject, type: 'spki' | 'pkcs1' | 'pkcs8') => (k.export({ type, format: 'der' } as never) as Buffer).toString('base64');
  const relabel = (text: string) => text.replace(/-----(BEGIN|END) [A-Z ]*PRIVATE KEY-----/g, '-----$1 PUBLIC KEY-----');
  return {
    ...Object.fromEntries(Object.entries(privateKeyForms(rsa)).map(([name, text]) => [`private: ${name}`, text])),
    'private: PKCS#8 PEM relabelled PUBLIC KEY': relabel(rsa.key.export({ type: 'pkcs8', format: 'pem' }) as string),
    'private: PKCS#1 PEM relabelled PUBLIC KEY': relabel(rsa.key.export({ type: 'pkcs1', format: 'pem' }) as string),
    'private: EC PEM': ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string,
    'private: EC PKCS#8 bare base64': der(ec.privateKey, 'pkcs8'),
    'private: Ed25519 PKCS#8 bare base64': der(ed.privateKey, 'pkcs8'),
    'private: encrypted PKCS#8 PEM': rsa.key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'p' }) as string,
    'private: JWK': JSON.stringify(rsa.key.export({ format: 'jwk' })),
    'private: PEM inside other text': `Here is my key:\n${rsa.key.export({ type: 'pkcs8', format: 'pem' }) as string}\nthanks`,
    // Less common forms, which an earlier check in the registry and in the page both missed.
    'private: public PEM followed by a PKCS#8 Base64 key': `${pem}\n${rsa.pkcs8Base64}`,
    'private: after KEY=': `KEY=${rsa.pkcs8Base64}`,
    'private: PEM with JSON-escaped line breaks': JSON.stringify(rsa.key.export({ type: 'pkcs8', format: 'pem' })).slice(1, -1).replace(/-----(BEGIN|END) PRIVATE KEY-----/g, ''),
    'private: hex DER': (rsa.key.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('hex'),
    'private: colon-hex DER': ((rsa.key.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('hex').match(/../g) as string[]).join(':'),
    'private: JWK with single quotes': JSON.stringify(rsa.key.export({ format: 'jwk' })).replace(/"/g, "'"),
    'private: SEC1 EC bare base64': der(ec.privateKey, 'sec1' as 'pkcs8'),
    'public: SPKI PEM': pem,
    'public: SPKI PEM with CRLF and spaces': `  ${pem.replace(/\n/g, '\r\n')}  `,
    'public: PKCS#1 PEM': pkcs1Pub,
    'public: bare base64 SPKI': der(rsa.publicKey, 'spki'),
    'public: bare base64 SPKI wrapped': der(rsa.publicKey, 'spki').replace(/(.{64})/g, '$1\n'),
    'public: bare base64 PKCS#1': der(rsa.publicKey, 'pkcs1'),
    'public: JWK (no d)': JSON.stringify(rsa.publicKey.export({ format: 'jwk' })),
    'public: 4096-bit': (generateKeyPairSync('rsa', { modulusLength: 4096 }).publicKey.export({ type: 'spki', format: 'pem' }) as string),
    'bad: EC P-521 public': bad.unsupportedKey,
    'public: Ed25519 SPKI PEM': ed.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    'public: EC P-256 SPKI PEM': ec.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    'public: EC P-384 bare base64 SPKI': der(generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey, 'spki'),
    'public: RSA-PSS SPKI PEM (id-RSASSA-PSS OID)': pss.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    'bad: Ed448 public PEM': generateKeyPairSync('ed448').publicKey.export({ type: 'spki', format: 'pem' }) as string,
    'bad: RSA 1024': bad.rsa1024,
    'bad: garbage': bad.garbage,
    'bad: truncated PEM': bad.truncatedPem,
    'bad: empty': '',
    'bad: blanks': ' \n\t ',
    'bad: short base64': 'QUJDRA==',
    'bad: base64 of text': Buffer.from('just some text that is long enough').toString('base64'),
    'bad: EC point at infinity, P-256 PEM': pemOf(infinityPointSpki('P-256')),
    'bad: EC point at infinity, P-384 Base64': infinityPointSpki('P-384').toString('base64'),
    'bad: a PEM labelled CERTIFICATE': pemOf(ec.publicKey.export({ type: 'spki', format: 'der' }) as Buffer, 'CERTIFICATE'),
  };
}

/** The core's verdict, in the portal's outcome shape. */
function coreCheck(text: string): Outcome {
  try {
    const info = importPublicKey(text);
    return { value: { fingerprint: info.fingerprint, bits: info.bits, keyType: info.keyType, algorithm: info.algorithm } };
  } catch (error) {
    if (!isSignetError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

let texts: Record<string, string>;
let portal: { looks: Record<string, boolean>; checks: Record<string, Outcome> };

beforeAll(() => {
  texts = corpus();
  portal = runInPortal(
    `${OUTCOME}
      const looks = {}, checks = {};
      for (const [name, text] of Object.entries(input)) {
        looks[name] = m.keys.looksLikePrivateKey(text);
        checks[name] = await outcome(() => m.keys.checkPublicKey(text));
      }
      return { looks, checks };
    `,
    texts,
  );
});

test('looksLikePrivateKey agrees with the core on every form', () => {
  const core = Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, looksLikePrivateKey(text)]));
  expect(portal.looks).toEqual(core);
  for (const name of Object.keys(texts)) expect([name, portal.looks[name]]).toEqual([name, name.startsWith('private:')]);
});

test('every private form is refused with private_key_submitted and the API sentence, never echoing the key', () => {
  for (const [name, outcome] of Object.entries(portal.checks)) {
    if (!name.startsWith('private:')) continue;
    expect([name, outcome]).toEqual([name, coreCheck(texts[name])]);
    expect(outcome.code).toBe('private_key_submitted');
    expect(outcome.message).toMatch(/treat this private key as exposed/);
  }
});

test('public keys get the fingerprint and size the registry will store', () => {
  for (const [name, outcome] of Object.entries(portal.checks)) {
    if (!name.startsWith('public:') || name === 'public: JWK (no d)') continue;
    expect([name, outcome]).toEqual([name, coreCheck(texts[name])]);
  }
  expect(portal.checks['public: SPKI PEM'].value).toEqual({ fingerprint: testKey(0).fingerprint, bits: 2048, keyType: 'RSA-2048', algorithm: 'rsa-v1_5-sha256' });
  expect(portal.checks['public: Ed25519 SPKI PEM'].value).toMatchObject({ keyType: 'Ed25519', algorithm: 'ed25519' });
  expect(portal.checks['public: EC P-384 bare base64 SPKI'].value).toMatchObject({ keyType: 'ECDSA P-384', bits: 384 });
  expect(portal.checks['public: RSA-PSS SPKI PEM (id-RSASSA-PSS OID)'].value).toMatchObject({ keyType: 'RSA-2048', algorithm: 'rsa-pss-sha512' });
  expect(portal.checks['public: bare base64 PKCS#1'].value?.fingerprint).toBe(testKey(0).fingerprint);
  expect(portal.checks['public: 4096-bit'].value?.bits).toBe(4096);
});

test('keys the registry refuses are refused inline with the same code and sentence', () => {
  for (const [name, outcome] of Object.entries(portal.checks)) {
    if (!name.startsWith('bad:')) continue;
    expect([name, outcome]).toEqual([name, coreCheck(texts[name])]);
  }
  expect(portal.checks['bad: EC P-521 public'].code).toBe('unsupported_key_type');
  expect(portal.checks['bad: Ed448 public PEM'].code).toBe('unsupported_key_type');
  expect(portal.checks['bad: RSA 1024'].code).toBe('key_too_small');
  expect(portal.checks['bad: EC point at infinity, P-256 PEM']).toMatchObject({ code: 'invalid_public_key', message: expect.stringMatching(/point at infinity/) });
});

test('a JWK public key: the portal leaves it to the registry, which reads it', () => {
  expect(portal.checks['public: JWK (no d)']).toEqual({ value: undefined });
  expect(coreCheck(texts['public: JWK (no d)']).value?.fingerprint).toBe(testKey(0).fingerprint);
});

test('a public key chosen to sign in with: the page says what the CLI says (it is a public key; which file to choose)', () => {
  const publicForms = Object.fromEntries(Object.entries(texts).filter(([name]) => name.startsWith('public:')));
  const signIn = runInPortal(
    `${OUTCOME}
      const out = {};
      for (const [name, text] of Object.entries(input)) out[name] = await outcome(() => m.keys.importSigningKey(text));
      return out;
    `,
    publicForms,
  ) as Record<string, Outcome>;
  for (const [name, text] of Object.entries(publicForms)) {
    let core: Outcome;
    try {
      importPrivateKey(text);
      core = { value: null };
    } catch (error) {
      core = isSignetError(error) ? { code: error.code, message: error.message } : { message: String(error) };
    }
    expect([name, signIn[name]]).toEqual([name, core]);
    expect([name, signIn[name].message]).toEqual([name, 'This file holds a public key; choose your private key (private.pkcs8.b64 or private.pem).']);
  }
});
