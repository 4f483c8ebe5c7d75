/**
 * `GET /registry/roles`: the role names of the catalogue the registry validates against, so a
 * form (the client portal) can offer exactly the roles the API accepts. Answers are checked
 * against docs/openapi/registry.json by the harness. The store points at a closed port: the
 * route must answer from the catalogue alone (a table read would fail it with a 5xx).
 */
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { REGISTRY_ROUTES } from '../../lambda/registry/routes';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { callRegistry } from '../support/registry-harness';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function handlerFor(catalogue: Record<string, string[]>): RegistryHandler {
  const store = new DynamoClientStore({ tableName: 'unreachable', client: createDocumentClient({ endpoint: 'http://127.0.0.1:9' }), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  return createRegistryHandler({ store, roles: compileRoleCatalogue(catalogue), logger: silent });
}

test('is one of the registry routes', () => {
  expect(REGISTRY_ROUTES).toContain('GET /registry/roles');
});

test.each(['v2', 'v1'] as const)('lists the catalogue role names, sorted, without their patterns (%s event)', async (format) => {
  const handler = handlerFor({ 'registry:admin': ['* /registry/**'], zeta: ['GET /api/z'], demo: ['* /api/*'] });
  const res = await callRegistry(handler, { method: 'GET', path: '/registry/roles', format, stage: format === 'v1' ? '/prod' : '' });
  expect(res.schemaProblems).toEqual([]);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ roles: ['demo', 'registry:admin', 'zeta'] });
  expect(res.headers['cache-control']).toBe('no-store');
});

test('follows the configured catalogue', async () => {
  const res = await callRegistry(handlerFor({ 'registry:admin': ['* /registry/**'] }), { method: 'GET', path: '/registry/roles' });
  expect(res.body).toEqual({ roles: ['registry:admin'] });
});

test('takes no query parameters, and only GET', async () => {
  const handler = handlerFor({ 'registry:admin': ['* /registry/**'] });
  const query = await callRegistry(handler, { method: 'GET', path: '/registry/roles', query: 'all=1' });
  expect(query.schemaProblems).toEqual([]);
  expect({ status: query.status, error: query.body.error }).toEqual({ status: 400, error: 'invalid_request' });
  const post = await callRegistry(handler, { method: 'POST', path: '/registry/roles', body: {} });
  expect({ status: post.status, error: post.body.error }).toEqual({ status: 404, error: 'not_found' });
  expect(post.body.message).toMatch(/supports GET/);
});

test('is refused without the authorizer in front (no acting client)', async () => {
  const res = await callRegistry(handlerFor({ 'registry:admin': ['* /registry/**'] }), { method: 'GET', path: '/registry/roles', actor: null });
  expect(res.status).toBe(500);
  expect(res.body.error).toBe('internal_error');
});
