import { ERROR_CODES, SignetError, fail, isSignetError } from '../../lambda/core/errors';

describe('ERROR_CODES', () => {
  it('is exactly this list of codes and statuses (codes are public API: add, never rename)', () => {
    // Prepare: the pinned contract. A rename, removal or status change must edit this test.
    const pinned = {
      missing_signature: 401,
      malformed_signature_input: 401,
      invalid_signature_input: 401,
      malformed_signature: 401,
      signature_label_missing: 401,
      unsupported_algorithm: 401,
      algorithm_mismatch: 401,
      missing_keyid: 401,
      missing_created: 401,
      expired: 401,
      clock_skew: 401,
      missing_date: 401,
      malformed_date: 401,
      missing_component: 401,
      absent_component: 401,
      unsupported_component: 401,
      digest_required: 401,
      malformed_digest: 401,
      unknown_client: 401,
      client_disabled: 401,
      key_expired: 401,
      signature_mismatch: 401,
      replayed_request: 401,
      signature_agent_mismatch: 401,
      ip_not_allowed: 403,
      role_forbidden: 403,
      client_above_ceiling: 403,
      request_not_bound: 403,
      digest_mismatch: 400,
      invalid_request: 400,
      private_key_submitted: 400,
      too_many_key_candidates: 400,
      invalid_public_key: 400,
      invalid_private_key: 400,
      unsupported_key_type: 400,
      key_too_small: 400,
      weak_key: 400,
      invalid_network: 400,
      unknown_role: 400,
      role_not_allowed: 400,
      too_many_clients: 400,
      key_source_refused: 400,
      payload_too_large: 413,
      not_found: 404,
      key_already_registered: 409,
      version_conflict: 409,
      last_key: 409,
      last_admin: 409,
      self_lockout: 409,
      key_source_managed: 409,
      key_source_in_use: 409,
      search_budget_exceeded: 429,
      dependency_unavailable: 503,
      internal_error: 500,
    };
    // Assess: same codes, same statuses, nothing extra.
    expect({ ...ERROR_CODES }).toEqual(pinned);
    expect(Object.keys(ERROR_CODES).sort()).toEqual(Object.keys(pinned).sort());
  });

  it('uses snake_case codes only', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
  });

  it('never maps a refusal to a 2xx or 3xx status', () => {
    for (const status of Object.values(ERROR_CODES)) expect(status).toBeGreaterThanOrEqual(400);
  });
});

describe('SignetError', () => {
  it('carries code, the status from ERROR_CODES, message and cause', () => {
    const cause = new Error('root');
    const error = new SignetError('clock_skew', 'Check the clock.', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SignetError');
    expect(error.code).toBe('clock_skew');
    expect(error.status).toBe(401);
    expect(error.message).toBe('Check the clock.');
    expect(error.cause).toBe(cause);
  });

  it('gets the status of every code from the one table', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      expect(new SignetError(code as keyof typeof ERROR_CODES, 'x').status).toBe(status);
    }
  });

  it('serialises to { error, message } only (no stack, no cause)', () => {
    const error = new SignetError('ip_not_allowed', 'Not from here.', { cause: new Error('secret detail') });
    expect(JSON.parse(JSON.stringify(error))).toEqual({ error: 'ip_not_allowed', message: 'Not from here.' });
  });
});

describe('fail / isSignetError', () => {
  it('fail throws a SignetError with the code and message', () => {
    expect.assertions(4);
    expect(() => fail('not_found', 'No such client.')).toThrow(SignetError);
    try {
      fail('version_conflict', 'Reload and retry.');
    } catch (error) {
      expect(isSignetError(error)).toBe(true);
      expect((error as SignetError).code).toBe('version_conflict');
      expect((error as SignetError).status).toBe(409);
    }
  });

  it('isSignetError is false for other errors and non-errors', () => {
    expect(isSignetError(new Error('x'))).toBe(false);
    expect(isSignetError({ code: 'expired', status: 401, message: 'x' })).toBe(false);
    expect(isSignetError(undefined)).toBe(false);
    expect(isSignetError('expired')).toBe(false);
  });
});
