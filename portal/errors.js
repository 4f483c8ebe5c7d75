// @ts-check
/**
 * The portal's errors: the same stable codes and sentences as the API (lambda/core/errors.ts),
 * so an inline message reads exactly like the refusal the registry would give.
 */

/** An error with a Signet reason code. */
export class PortalError extends Error {
  /**
   * @param {string} code stable reason code, e.g. `private_key_submitted`
   * @param {string} message a sentence a person can act on (never key material)
   */
  constructor(code, message) {
    super(message);
    this.name = 'PortalError';
    this.code = code;
  }
}

/**
 * Throws a {@link PortalError}.
 * @param {string} code
 * @param {string} message
 * @returns {never}
 */
export function fail(code, message) {
  throw new PortalError(code, message);
}
