/**
 * BENCHMARKS.md holds its prose by hand and its figures in measured regions that `npm run bench`
 * rewrites (bench/benchmarks-md.ts): every block the renderer writes has its region in the file,
 * and writing the regions leaves every byte outside them as it was. No figure is measured here.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type BenchResults, SECTION_TITLES, figuresRegion, fillMeasuredRegions, measuredBlocks, regionNames } from '../../bench/benchmarks-md';

const ROOT = resolve(__dirname, '..', '..');
const BENCHMARKS = readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8');

/** A run in which every section failed: the blocks that need no section, and none of the others. */
const NOTHING_MEASURED: BenchResults = {
  machine: { nproc: 2, cpuModel: 'Test CPU', totalMemMb: 4096, node: 'v0.0.0', platform: 'test', loadAvg1: 0.5 },
  startedAt: new Date('2026-01-01T00:00:00Z'),
  durationS: 1,
  failures: { [SECTION_TITLES.verifySteps]: 'boom\nstack' },
  printed: [{ title: SECTION_TITLES.keyChecks, lines: ['RSA-2048 modulus: 1 ms'] }],
};

/** `text` with the content of every measured region taken out. */
const outsideRegions = (text: string): string => text.replace(/(<!-- bench:begin ([a-z0-9-]+) -->\n)[\s\S]*?(<!-- bench:end \2 -->)/g, '$1$3');

test('every region name is unique, and the file has a region for every block the renderer writes', () => {
  const names = regionNames(BENCHMARKS);
  expect(new Set(names).size).toBe(names.length);
  const blocks = Object.keys(measuredBlocks(NOTHING_MEASURED));
  for (const title of Object.values(SECTION_TITLES)) expect(blocks).toContain(figuresRegion(title));
  expect(blocks.filter((name) => !names.includes(name))).toEqual([]);
  expect(names.filter((name) => !blocks.includes(name))).toEqual([]);
});

test('a run rewrites only the measured regions: the prose and the figures of earlier runs stay byte for byte', () => {
  const written = fillMeasuredRegions(BENCHMARKS, measuredBlocks(NOTHING_MEASURED));
  expect(outsideRegions(written)).toBe(outsideRegions(BENCHMARKS));
  expect(written).toContain('<!-- bench:begin run -->\nWritten by `npm run bench` on 2026-01-01T00:00:00.000Z (the run took 1 s).\n<!-- bench:end run -->');
  expect(written).toContain('- **Verify steps, each alone (CPU µs per call) failed in this run:** boom\n');
  expect(written).toContain(`<!-- bench:begin ${figuresRegion(SECTION_TITLES.keyChecks)} -->\n\`\`\`\nRSA-2048 modulus: 1 ms\n\`\`\`\n`);
  // A section that did not run leaves its region saying so, never the previous run's figures.
  expect(written).toMatch(new RegExp(`<!-- bench:begin ${figuresRegion(SECTION_TITLES.hostile)} -->\\n\\(Not measured in this run`));
  expect(written).not.toContain('1.076 ms CPU per request');
  // Writing the same blocks again changes nothing.
  expect(fillMeasuredRegions(written, measuredBlocks(NOTHING_MEASURED))).toBe(written);
});

test('a block with no region in the file is an error that names it', () => {
  expect(() => fillMeasuredRegions('# Benchmarks\n', { cost: ['$1'] })).toThrow(/no region for cost: add "<!-- bench:begin NAME -->"/);
});
