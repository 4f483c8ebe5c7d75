import { keySourceRequest } from '../../lambda/core/key-source-url';

describe('keySourceRequest: where a published key source is fetched', () => {
  it('fetches a signature agent at its origin\'s key directory, asking for the directory media type', () => {
    const request = keySourceRequest({ signatureAgent: 'https://agent.example:8443' });
    expect(request).toMatchObject({ ok: true, local: false });
    if (!request.ok) return;
    expect(request.url.href).toBe('https://agent.example:8443/.well-known/http-message-signatures-directory');
    expect(request.accept.split(',')[0]).toBe('application/http-message-signatures-directory+json');
  });

  it('fetches a JWKS URI as given, asking for a JWK set', () => {
    const request = keySourceRequest({ jwksUri: 'https://partner.example/oauth/jwks.json?v=2' });
    expect(request.ok && request.url.href).toBe('https://partner.example/oauth/jwks.json?v=2');
    expect(request.ok && request.accept).toMatch(/^application\/jwk-set\+json/);
  });

  it('lets the local gateway use http://127.0.0.1 and http://localhost, and says it is local', () => {
    expect(keySourceRequest({ jwksUri: 'http://127.0.0.1:8080/jwks' }, true)).toMatchObject({ ok: true, local: true });
    expect(keySourceRequest({ signatureAgent: 'http://localhost:3000' }, true)).toMatchObject({ ok: true, local: true });
  });

  it.each<[string, Parameters<typeof keySourceRequest>[0], boolean, string]>([
    ['plain http when deployed', { jwksUri: 'http://partner.example/jwks' }, false, 'scheme_not_allowed'],
    ['http://127.0.0.1 when deployed', { jwksUri: 'http://127.0.0.1/jwks' }, false, 'scheme_not_allowed'],
    ['http to another host even locally', { jwksUri: 'http://partner.example/jwks' }, true, 'scheme_not_allowed'],
    ['http to 127.0.0.2 locally (only 127.0.0.1 and localhost)', { jwksUri: 'http://127.0.0.2/jwks' }, true, 'scheme_not_allowed'],
    ['file:', { jwksUri: 'file:///etc/passwd' }, true, 'scheme_not_allowed'],
    ['ftp:', { signatureAgent: 'ftp://agent.example' }, false, 'scheme_not_allowed'],
    ['not a URL', { jwksUri: 'partner.example/jwks' }, false, 'invalid_source_url'],
    ['empty', { jwksUri: '' }, false, 'invalid_source_url'],
    ['too long', { jwksUri: `https://partner.example/${'a'.repeat(2_100)}` }, false, 'invalid_source_url'],
    ['credentials in the URL', { jwksUri: 'https://user:pass@partner.example/jwks' }, false, 'invalid_source_url'],
    ['a fragment', { jwksUri: 'https://partner.example/jwks#k1' }, false, 'invalid_source_url'],
    ['an agent with a path', { signatureAgent: 'https://agent.example/keys' }, false, 'invalid_source_url'],
    ['an agent with a query', { signatureAgent: 'https://agent.example/?a=1' }, false, 'invalid_source_url'],
    ['the metadata service by IP', { jwksUri: 'https://169.254.169.254/latest/meta-data' }, false, 'address_not_public'],
    ['loopback by IP over https', { jwksUri: 'https://127.0.0.1/jwks' }, true, 'address_not_public'],
    ['loopback spelled as one decimal number', { jwksUri: 'https://2130706433/jwks' }, false, 'address_not_public'],
    ['loopback spelled in hex', { jwksUri: 'https://0x7f.0.0.1/jwks' }, false, 'address_not_public'],
    ['a private IPv6 literal', { jwksUri: 'https://[fd00::1]/jwks' }, false, 'address_not_public'],
    ['an IPv4-mapped metadata address', { signatureAgent: 'https://[::ffff:169.254.169.254]' }, false, 'address_not_public'],
  ])('refuses %s', (_name, source, allowLocalHttp, code) => {
    const request = keySourceRequest(source, allowLocalHttp);
    expect(request).toMatchObject({ ok: false, code, message: expect.stringMatching(/\.$/) });
  });
});
