/**
 * Opaque pagination cursors: DynamoDB's LastEvaluatedKey as base64url JSON.
 *
 * A cursor is only ever a start position inside the list it came from: decoding checks that it
 * names exactly the expected key attributes, as strings, inside the expected partition, so a
 * forged cursor cannot widen a listing.
 */
import { fail } from '../core/errors';

/** A DynamoDB key: attribute name → string value (every key attribute of the table is a string). */
export type StartKey = Record<string, string>;

/** Longest cursor accepted, in characters. */
export const MAX_CURSOR_CHARS = 2_048;

/** The cursor for a page that has more after it, or undefined on the last page. */
export function encodeCursor(lastEvaluatedKey: Record<string, unknown> | undefined): string | undefined {
  if (lastEvaluatedKey === undefined || Object.keys(lastEvaluatedKey).length === 0) return undefined;
  return Buffer.from(JSON.stringify(lastEvaluatedKey), 'utf8').toString('base64url');
}

/**
 * Reads a cursor back into a start key.
 * @param attributes the exact key attribute names the listing's LastEvaluatedKey carries
 * @param fixed attributes that must have these exact values (the list's partition)
 * @param prefixed attributes whose values must start with these prefixes
 * @throws SignetError `invalid_request` when the cursor was not issued for this listing
 */
export function decodeCursor(
  cursor: string | undefined,
  attributes: readonly string[],
  fixed: Readonly<Record<string, string>> = {},
  prefixed: Readonly<Record<string, string>> = {},
): StartKey | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const bad = (): never =>
    fail('invalid_request', 'The cursor is not one this listing returned. Pass the nextCursor of the previous page unchanged, or omit it to start again.');
  if (cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return bad();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad();
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length !== attributes.length) return bad();
  const key: StartKey = {};
  for (const [name, value] of entries) {
    if (!attributes.includes(name) || typeof value !== 'string' || value === '') return bad();
    if (fixed[name] !== undefined && fixed[name] !== value) return bad();
    if (prefixed[name] !== undefined && !value.startsWith(prefixed[name])) return bad();
    key[name] = value;
  }
  return key;
}
