/**
 * The authorizer's Lambda bundle carries what deciding a request needs and none of the registry's
 * writes: it reads clients through lambda/store/client-reader.ts (one GetItem, the failure log),
 * not the registry's store. esbuild's metafile lists the sources a bundle was built from.
 */
import { buildSync } from 'esbuild';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

function bundleInputs(entry: string): string[] {
  const result = buildSync({
    entryPoints: [resolve(ROOT, entry)],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    external: ['@aws-sdk/*'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules'));
}

test('the authorizer bundle reads clients through the reader and carries no registry write', () => {
  const inputs = bundleInputs('lambda/handlers/authorizer.ts');
  expect(inputs).toContain('lambda/store/client-reader.ts');
  expect(inputs).toContain('lambda/core/verify.ts');
  expect(inputs.filter((input) => /^lambda\/(store\/client-(store|writes|queries)|registry\/)/.test(input))).toEqual([]);
});

test('the authorizer bundle carries no key source fetcher: a published key reaches it only through the client record', () => {
  const inputs = bundleInputs('lambda/handlers/authorizer.ts');
  expect(inputs).toContain('lambda/core/jwk-thumbprint.ts');
  expect(inputs.filter((input) => /^lambda\/(key-sources\/|core\/(key-source-url|public-address|published-key-set|directory-signature)\.ts$)/.test(input))).toEqual([]);
});

test('the registry bundle has the store and the key source fetcher (a check that the tests above can see them)', () => {
  const inputs = bundleInputs('lambda/handlers/registry.ts');
  expect(inputs).toContain('lambda/store/client-store.ts');
  expect(inputs).toContain('lambda/key-sources/fetch-key-source.ts');
});
