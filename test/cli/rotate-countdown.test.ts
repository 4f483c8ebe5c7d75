/** `signet rotate`'s countdown: what it prints while it waits, on an injected clock. */
import { countdown } from '../../bin/commands/rotate';

async function run(ms: number): Promise<{ lines: string[]; slept: number[] }> {
  const lines: string[] = [];
  const slept: number[] = [];
  await countdown(ms, { print: (line) => lines.push(line), sleep: async (step) => void slept.push(step), interactive: false });
  return { lines, slept };
}

test('60 s: a line every 10 s, then done; exactly 60 s slept', async () => {
  const { lines, slept } = await run(60_000);
  expect(slept).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
  expect(lines.map((l) => l.trim())).toEqual([
    ...[60, 50, 40, 30, 20, 10].map((s) => `${s} s left until the gateway's cached client record holds the new key`),
    'waited: the gateway now knows the new key',
  ]);
});

test('an uneven wait sleeps the remainder first, never more than asked', async () => {
  const { lines, slept } = await run(12_500);
  expect(slept).toEqual([2_500, 10_000]);
  expect(lines[0].trim()).toMatch(/^13 s left/);
  expect(slept.reduce((a, b) => a + b, 0)).toBe(12_500);
});
