/**
 * Summaries a test can give about what it tried (counts per kind of request, per refusal code).
 * A green run stays quiet: they are printed only when SIGNET_TEST_REPORT=1, e.g.
 * `SIGNET_TEST_REPORT=1 npx jest test/hostile`.
 */
export const TEST_REPORT_ENV = 'SIGNET_TEST_REPORT';

export function report(text: string): void {
  if (process.env[TEST_REPORT_ENV] === '1') console.log(text);
}
