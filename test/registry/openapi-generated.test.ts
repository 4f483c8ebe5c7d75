/**
 * docs/openapi/registry.json is generated from the registry's contract
 * (lambda/registry/contract/): the committed file must be what the contract produces now, and the
 * registry takes each request's fields from the same schemas.
 */
import { readFileSync } from 'node:fs';
import { registryOpenApiText } from '../../lambda/registry/contract/openapi-document';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { bodyFields } from '../../lambda/registry/contract/body-fields';
import * as contract from '../../lambda/registry/contract/schemas';
import { parseAddKeyRequest, parseCreateAccountRequest, parseCreateRequest, parsePatchAccountRequest, parsePatchRequest, parseVersionOnly } from '../../lambda/registry/validation';
import { OPENAPI_PATH } from '../support/registry-openapi';

test('the committed docs/openapi/registry.json is the one the contract generates (run `npm run -s openapi` after a change)', () => {
  expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(registryOpenApiText());
});

test("the registry accepts exactly the fields each request's schema lists, and requires the ones it requires", () => {
  const catalogue = compileRoleCatalogue({ demo: ['* /api/*'] });
  const cases: Array<[string, (body: Record<string, unknown>) => unknown, Parameters<typeof bodyFields>[0]]> = [
    ['POST /registry/clients', (b) => parseCreateRequest(b, catalogue), contract.CreateClientRequest],
    ['PATCH /registry/clients/{id}', (b) => parsePatchRequest(b, catalogue), contract.UpdateClientRequest],
    ['POST /registry/accounts', (b) => parseCreateAccountRequest(b, catalogue), contract.CreateAccountRequest],
    ['PATCH /registry/accounts/{id}', (b) => parsePatchAccountRequest(b, catalogue), contract.UpdateAccountRequest],
    ['POST .../keys', (b) => parseAddKeyRequest(b), contract.AddKeyRequest],
    ['POST .../disable', (b) => parseVersionOnly(b), contract.VersionRequest],
  ];
  for (const [, parse, schema] of cases) {
    const { allowed, required } = bodyFields(schema);
    expect(() => parse({ surplus: 1 })).toThrow(`Unknown field(s): "surplus". This route accepts: ${allowed.join(', ')}.`);
    if (required.length > 0) expect(() => parse({})).toThrow(`Missing field(s): ${required.join(', ')}.`);
  }
  // publicKey, jwksUri and signatureAgent: exactly one, which the registry checks (a client has registered keys or a key source).
  expect(bodyFields(contract.CreateClientRequest)).toEqual({
    allowed: ['name', 'networkWhitelist', 'publicKey', 'jwksUri', 'signatureAgent', 'algorithm', 'roles', 'profile', 'accountId'],
    required: ['name', 'networkWhitelist', 'roles'],
  });
});

test('a body the contract rules out is refused even where no field check words it: a name of 129 characters with its padding', () => {
  const catalogue = compileRoleCatalogue({ demo: ['* /api/*'] });
  // The field check trims the name to 127 characters; the contract (maxLength 128) reads it as sent.
  const padded = ` ${'n'.repeat(127)} `;
  expect(() => parsePatchAccountRequest({ name: padded }, catalogue)).toThrow(/^name does not match the registry's contract \(docs\/openapi\/registry.json, too big\)/);
  expect(() => parsePatchRequest({ name: padded }, catalogue)).toThrow(/^name does not match the registry's contract/);
  expect(parsePatchRequest({ name: ` ${'n'.repeat(126)} ` }, catalogue)).toEqual({ name: 'n'.repeat(126) });
});
