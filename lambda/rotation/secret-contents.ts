/**
 * Reading what a version of the signing secret holds, for rotation. Two shapes are valid:
 * - the signing secret `{ clientId, privateKey, fingerprint, createdAt }` (lambda/signer/signing-secret.ts);
 * - the bootstrap value RotatingSigningKey creates, `{ "clientId": "…" }` alone, which the first
 *   rotation replaces with the first key.
 * No message here contains the secret's text.
 */
import { SignetError, isSignetError } from '../core/errors';
import { isKeyid } from '../core/keyid';
import { ParsedSigningSecret, parseSigningSecret } from '../signer/signing-secret';

/**
 * The clientId a version of the secret names (either shape).
 * @throws SignetError `invalid_request` when the value is not a JSON object with a clientId string
 */
export function clientIdOfSecret(secretString: string, secretId: string): string {
  let value: unknown;
  try {
    value = JSON.parse(secretString);
  } catch {
    value = undefined;
  }
  const clientId = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).clientId : undefined;
  if (!isKeyid(clientId)) {
    throw new SignetError(
      'invalid_request',
      `The AWSCURRENT value of secret ${secretId} is not JSON with a "clientId": rotation cannot tell whose key to create. Store {"clientId": "<the registry's clientId>"} in it (RotatingSigningKey does).`,
    );
  }
  return clientId;
}

/**
 * The key a version holds, or undefined for the bootstrap value (no key yet) and for a value
 * that does not parse (reported through `onUnreadable`, never thrown: rotation replaces it).
 */
export function keyOfSecret(secretString: string, onUnreadable: (reason: string) => void = () => undefined): ParsedSigningSecret | undefined {
  let value: unknown;
  try {
    value = JSON.parse(secretString);
  } catch {
    onUnreadable('not JSON');
    return undefined;
  }
  if (typeof value !== 'object' || value === null || !('privateKey' in value)) return undefined;
  try {
    return parseSigningSecret(secretString);
  } catch (error) {
    onUnreadable(isSignetError(error) ? error.code : 'unreadable');
    return undefined;
  }
}
