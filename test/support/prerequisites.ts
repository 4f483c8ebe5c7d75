/**
 * Tests that need a tool on the machine (Chromium, Python, Java, OpenSSL...) are declared with
 * `testNeeding(id)` instead of `test`. When the tool is there, it is `test`. When it is missing:
 * - and SIGNET_ALLOW_SKIP names it, the test is skipped with a marker in its name that
 *   scripts/test.cjs reads and lists ("(skipped: python: ...)");
 * - otherwise the test runs and fails with what to install (Debian/Ubuntu and macOS).
 * Never a silent skip. The list of prerequisites is scripts/prerequisites.cjs.
 */
import { gate, type PrerequisiteId } from '../../scripts/prerequisites.cjs';

type TestFn = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;

export function testNeeding(id: PrerequisiteId | undefined): TestFn {
  if (id === undefined) return test;
  const decision = gate(id);
  if (!decision.run) {
    const marker = decision.marker;
    return (name, fn, timeout) => test.skip(`${name}${marker}`, fn, timeout);
  }
  const missing = decision.missing;
  if (missing === undefined) return test;
  return (name, _fn, timeout) =>
    test(
      name,
      () => {
        throw new Error(missing);
      },
      timeout,
    );
}
