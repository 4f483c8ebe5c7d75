/**
 * The key-age rule (lambda/core/key-age.ts): whole days, and "due" exactly when the registry's
 * query (addedAt < cutoff) would list the key, at the boundary and around it.
 */
import fc from 'fast-check';
import { DEFAULT_ROTATION_DAYS } from '../../lambda/core/defaults';
import { isKeyDue, keyAgeDays, rotationCutoff } from '../../lambda/core/key-age';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const DAY = 86_400_000;
const at = (ms: number) => new Date(ms).toISOString();

test('age in whole days, rounded down', () => {
  expect(keyAgeDays(at(NOW), NOW)).toBe(0);
  expect(keyAgeDays(at(NOW - DAY + 1), NOW)).toBe(0);
  expect(keyAgeDays(at(NOW - DAY), NOW)).toBe(1);
  expect(keyAgeDays(at(NOW - 120 * DAY - 5), NOW)).toBe(120);
});

test('due only when strictly older than the interval (90 days by default)', () => {
  expect(isKeyDue(at(NOW - 90 * DAY), NOW)).toBe(false);
  expect(isKeyDue(at(NOW - 90 * DAY - 1), NOW)).toBe(true);
  expect(isKeyDue(at(NOW - 10 * DAY - 1), NOW, 10)).toBe(true);
  expect(isKeyDue(at(NOW), NOW, 0)).toBe(false);
  expect(rotationCutoff(NOW)).toBe(at(NOW - DEFAULT_ROTATION_DAYS * DAY));
});

test('isKeyDue agrees with the registry query (canonical addedAt sorts before the cutoff) for any key and interval', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 400 * DAY }), fc.integer({ min: 0, max: 365 }), (ageMs, days) => {
      const addedAt = at(NOW - ageMs);
      expect(isKeyDue(addedAt, NOW, days)).toBe(addedAt < rotationCutoff(NOW, days));
    }),
  );
});
