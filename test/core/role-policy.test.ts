import { compileRoleCatalogue, validateRoles } from '../../lambda/core/role-policy';
import { errorOf } from './helpers';

describe('compileRoleCatalogue: glob semantics', () => {
  const roles = compileRoleCatalogue({
    reader: ['GET /api/*'],
    writer: ['POST /api/orders', 'PUT /api/orders/*'],
    admin: ['* /registry/**'],
    deep: ['GET /files/**/meta'],
    partial: ['GET /img/*.png'],
    everything: ['* /**'],
  });

  it.each([
    // `*` stays inside one segment
    ['reader', 'GET', '/api/orders', true],
    ['reader', 'GET', '/api/orders/7', false],
    ['reader', 'GET', '/api', false],
    ['reader', 'GET', '/apix/orders', false],
    ['reader', 'GET', '/other/api/orders', false],
    ['reader', 'POST', '/api/orders', false],
    // exact paths
    ['writer', 'POST', '/api/orders', true],
    ['writer', 'POST', '/api/orders/', false],
    ['writer', 'POST', '/api/orders/7', false],
    ['writer', 'PUT', '/api/orders/7', true],
    ['writer', 'PUT', '/api/orders/7/lines', false],
    // `**` spans any number of segments, including none
    ['admin', 'GET', '/registry', true],
    ['admin', 'POST', '/registry/clients', true],
    ['admin', 'DELETE', '/registry/clients/c1/keys/k1', true],
    ['admin', 'GET', '/registryx', false],
    ['admin', 'GET', '/api/registry/clients', false],
    ['deep', 'GET', '/files/meta', true],
    ['deep', 'GET', '/files/a/b/c/meta', true],
    ['deep', 'GET', '/files/a/b/c/metadata', false],
    ['deep', 'GET', '/files/a/b/c', false],
    // `*` inside a segment
    ['partial', 'GET', '/img/logo.png', true],
    ['partial', 'GET', '/img/logo.jpg', false],
    ['partial', 'GET', '/img/a/logo.png', false],
    ['partial', 'GET', '/img/logoXpng', false],
    ['everything', 'PATCH', '/anything/at/all', true],
    ['everything', 'GET', '/', true],
  ])('%s may %s %s: %s', (role, method, path, expected) => {
    expect(roles.allows([role], method, path)).toBe(expected);
  });

  it('treats regex metacharacters in patterns literally', () => {
    const compiled = compileRoleCatalogue({ r: ['GET /a.b/(x)/[y]/c+d/e$'] });
    expect(compiled.allows(['r'], 'GET', '/a.b/(x)/[y]/c+d/e$')).toBe(true);
    expect(compiled.allows(['r'], 'GET', '/aXb/(x)/[y]/c+d/e$')).toBe(false);
    expect(compiled.allows(['r'], 'GET', '/a.b/x/y/cd/e')).toBe(false);
  });

  it('matches the method wildcard against any method, and methods case-insensitively from the request', () => {
    expect(roles.allows(['admin'], 'OPTIONS', '/registry/x')).toBe(true);
    expect(roles.allows(['reader'], 'get', '/api/orders')).toBe(true);
  });

  it('allows when any of several roles allows, and never for unknown roles or no roles', () => {
    expect(roles.allows(['reader', 'writer'], 'POST', '/api/orders')).toBe(true);
    expect(roles.allows(['ghost'], 'GET', '/api/orders')).toBe(false);
    expect(roles.allows([], 'GET', '/api/orders')).toBe(false);
    expect(roles.allows(['constructor', '__proto__', 'toString'], 'GET', '/api/orders')).toBe(false);
  });

  it('lists every role name', () => {
    expect([...roles.roleNames].sort()).toEqual(['admin', 'deep', 'everything', 'partial', 'reader', 'writer']);
  });

  it('a role with no patterns allows nothing', () => {
    expect(compileRoleCatalogue({ none: [] }).allows(['none'], 'GET', '/')).toBe(false);
  });
});

describe('compileRoleCatalogue: paths that could escape a role\'s scope', () => {
  const roles = compileRoleCatalogue({ demo: ['* /api/**'], reader: ['GET /api/*'] });

  it.each([
    ['/api/../registry/clients'],
    ['/api/./orders'],
    ['/api/..'],
    ['/api/%2e%2e/registry'],
    ['/api/%2E%2E/registry'],
    ['/api/x%2fy'],
    ['/api//orders'],
    ['/api/x\\..\\registry'],
    ['/api/%5c..%5cregistry'],
    ['api/orders'],
    [''],
  ])('%j matches no role at all', (path) => {
    expect(roles.allows(['demo', 'reader'], 'GET', path)).toBe(false);
  });

  it('ordinary paths with dots inside segment names still match', () => {
    expect(roles.allows(['reader'], 'GET', '/api/report.v2.json')).toBe(true);
    expect(roles.allows(['demo'], 'GET', '/api/a/..b/c')).toBe(true);
  });
});

describe('compileRoleCatalogue: a bad catalogue', () => {
  it('reports every problem in one error', () => {
    const bad = {
      'bad role!': ['GET /ok'],
      '': ['GET /ok'],
      lower: ['get /api/*'],
      nospace: ['GET/api'],
      relative: ['GET api/*'],
      twospaces: ['GET  /api'],
      notalist: 'GET /api' as unknown as string[],
      notastring: [42 as unknown as string],
      fine: ['GET /fine'],
    };
    let message = '';
    try {
      compileRoleCatalogue(bad);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid role catalogue: /);
    for (const fragment of ['"bad role!"', '""', '"get /api/*"', '"GET/api"', '"GET api/*"', '"GET  /api"', '"notalist"', 'string']) {
      expect(message).toContain(fragment);
    }
    expect(message).not.toContain('fine');
    expect(message.split('; ').length).toBe(8);
  });

  it('refuses a role name longer than 64 characters', () => {
    expect(() => compileRoleCatalogue({ ['r'.repeat(65)]: ['GET /'] })).toThrow(/role name/);
    expect(() => compileRoleCatalogue({ ['r'.repeat(64)]: ['GET /'] })).not.toThrow();
  });
});

describe('validateRoles', () => {
  const catalogue = compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] });

  it('returns known roles de-duplicated, in order', () => {
    expect(validateRoles(['demo', 'registry:admin', 'demo'], catalogue)).toEqual(['demo', 'registry:admin']);
    expect(validateRoles([], catalogue)).toEqual([]);
  });

  it('refuses unknown roles with unknown_role (400), naming them and the known ones', () => {
    const error = errorOf(() => validateRoles(['demo', 'root', 'superuser'], catalogue));
    expect(error.code).toBe('unknown_role');
    expect(error.status).toBe(400);
    expect(error.message).toContain('"root"');
    expect(error.message).toContain('"superuser"');
    expect(error.message).toContain('demo, registry:admin');
  });

  it.each([
    ['a string', 'demo'],
    ['a list with a number', ['demo', 7]],
    ['null', null],
    ['an object', { demo: true }],
  ])('refuses %s with unknown_role', (_name, roles) => {
    expect(errorOf(() => validateRoles(roles, catalogue)).code).toBe('unknown_role');
  });

  it('does not treat Object.prototype names as roles', () => {
    expect(errorOf(() => validateRoles(['constructor'], catalogue)).code).toBe('unknown_role');
    expect(errorOf(() => validateRoles(['__proto__'], catalogue)).code).toBe('unknown_role');
  });
});
