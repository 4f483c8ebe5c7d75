#!/usr/bin/env node
// Runs the whole Jest suite, then prints the plain closing line CI reads: "N passed, N failed".
// The counts come from Jest's JSON report, not from its human summary.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const reportDir = path.join(root, 'reports');
fs.mkdirSync(reportDir, { recursive: true });
const report = path.join(reportDir, 'jest.json');
fs.rmSync(report, { force: true });

const jestBin = require.resolve('jest/bin/jest');
const run = spawnSync(process.execPath, [jestBin, '--json', `--outputFile=${report}`, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});

let passed = 0;
let failed = 0;
let suitesFailed = 0;
if (fs.existsSync(report)) {
  const result = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = result.numPassedTests;
  failed = result.numFailedTests;
  suitesFailed = result.numRuntimeErrorTestSuites ?? 0;
} else {
  failed = 1;
}
if (suitesFailed > 0) console.log(`${suitesFailed} test suite(s) failed to run`);
console.log(`${passed} passed, ${failed + suitesFailed} failed`);
process.exit(run.status === 0 && failed === 0 && suitesFailed === 0 && passed > 0 ? 0 : 1);
