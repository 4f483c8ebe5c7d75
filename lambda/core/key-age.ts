/**
 * How old a key is, and when it is due for rotation: the one rule behind the registry's
 * `GET /registry/keys/expiring` (its DynamoDB query and its `ageDays`), `signet keys expiring`,
 * and the client portal's flag. Pure: the caller passes the time.
 */
import { DEFAULT_ROTATION_DAYS } from './defaults';

const DAY_MS = 86_400_000;

/**
 * Whole days since the key was added (ExpiringKey.ageDays).
 * @param addedAt ISO-8601
 */
export function keyAgeDays(addedAt: string, nowMs: number): number {
  return Math.floor((nowMs - Date.parse(addedAt)) / DAY_MS);
}

/**
 * The instant before which a key counts as older than `olderThanDays`: a key is due exactly when
 * its `addedAt` (a canonical ISO-8601 instant, as the store writes it) sorts before this.
 * @default olderThanDays DEFAULT_ROTATION_DAYS (90)
 */
export function rotationCutoff(nowMs: number, olderThanDays: number = DEFAULT_ROTATION_DAYS): string {
  return new Date(nowMs - olderThanDays * DAY_MS).toISOString();
}

/**
 * Whether a key added at `addedAt` is older than `olderThanDays` (due for rotation): what
 * {@link rotationCutoff} selects, for one key.
 * @default olderThanDays DEFAULT_ROTATION_DAYS (90)
 */
export function isKeyDue(addedAt: string, nowMs: number, olderThanDays: number = DEFAULT_ROTATION_DAYS): boolean {
  return Date.parse(addedAt) < nowMs - olderThanDays * DAY_MS;
}
