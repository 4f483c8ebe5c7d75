/**
 * The constructs (lib/) read names and rules from lambda/ (metric names, table prefixes, the
 * public base URL rule) but never load the Lambda runtime's dependencies: a synth, or an app
 * that imports @signet-gateway/signet/cdk, does not load the AWS SDK or Powertools. Run in a fresh Node process,
 * which lists every module the import loads from outside the repository.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

test('importing lib/ loads neither the AWS SDK nor Powertools', () => {
  const script = `
    require('./lib/index');
    const loaded = Object.keys(require.cache).map((file) => /node_modules\\/(@[^/]+\\/[^/]+|[^@/][^/]*)/.exec(file)?.[1]).filter(Boolean);
    console.log(JSON.stringify([...new Set(loaded)].sort()));
  `;
  const result = spawnSync(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  const packages = JSON.parse(result.stdout) as string[];
  expect(packages).toContain('aws-cdk-lib');
  expect(packages.filter((name) => name.startsWith('@aws-sdk/') || name.startsWith('@aws-lambda-powertools/'))).toEqual([]);
});
