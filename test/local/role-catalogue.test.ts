/** The local role catalogue: what docs/local-gateway.md documents, and the same as the deployed stack's default. */
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { DEFAULT_STACK_ROLE_CATALOGUE } from '../../lib/signet-stack';
import { LOCAL_ROLE_CATALOGUE } from '../../local/role-catalogue';

test('registry:admin may call /registry/**, account:admin the client routes and its account, demo /api/*, nothing else', () => {
  expect(LOCAL_ROLE_CATALOGUE).toEqual({
    'registry:admin': ['* /registry/**'],
    'account:admin': ['* /registry/clients', '* /registry/clients/**', 'GET /registry/accounts/*', 'GET /registry/accounts/*/audit', 'GET /registry/roles'],
    demo: ['* /api/*'],
  });
  const roles = compileRoleCatalogue(LOCAL_ROLE_CATALOGUE);
  expect(roles.allows(['registry:admin'], 'PATCH', '/registry/clients/c_1')).toBe(true);
  expect(roles.allows(['registry:admin'], 'GET', '/api/echo')).toBe(false);
  expect(roles.allows(['demo'], 'POST', '/api/echo')).toBe(true);
  expect(roles.allows(['demo'], 'GET', '/registry/clients')).toBe(false);
  expect(roles.allows(['demo'], 'GET', '/api/echo/deeper')).toBe(false);
  expect(roles.allows(['account:admin'], 'POST', '/registry/clients')).toBe(true);
  expect(roles.allows(['account:admin'], 'DELETE', '/registry/clients/c_1/keys/fp')).toBe(true);
  expect(roles.allows(['account:admin'], 'GET', '/registry/accounts/acct_default')).toBe(true);
  expect(roles.allows(['account:admin'], 'GET', '/registry/accounts')).toBe(false);
  expect(roles.allows(['account:admin'], 'POST', '/registry/accounts')).toBe(false);
  expect(roles.allows(['account:admin'], 'PATCH', '/registry/accounts/acct_default')).toBe(false);
  expect(roles.allows(['account:admin'], 'GET', '/registry/keys/expiring')).toBe(false);
  expect(roles.allows(['account:admin'], 'GET', '/api/echo')).toBe(false);
});

test('is the deployed stack default, so local behaviour matches a fresh deploy', () => {
  expect(LOCAL_ROLE_CATALOGUE).toEqual(DEFAULT_STACK_ROLE_CATALOGUE);
});
