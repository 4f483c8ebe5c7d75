#!/usr/bin/env node
// `npm test`: checks the machine's prerequisites, runs the whole Jest suite, then prints the plain
// closing line CI reads: "N passed, N failed, N skipped". The counts come from Jest's JSON report,
// not from its human summary.
//
// A skipped test fails the run unless SIGNET_ALLOW_SKIP names the prerequisite it was skipped for
// (e.g. SIGNET_ALLOW_SKIP=python,chromium): a test skipped for any other reason (a `.skip` left in,
// a `.todo`) always fails it. Allowed skips are still listed with their reason.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ALLOW_SKIP_ENV, INSTALL, allowedSkips, checkPrerequisites, missingMessage } = require('./prerequisites.cjs');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const allowed = allowedSkips();

// 1. Prerequisites, before anything slow starts.
const missing = checkPrerequisites('test').filter((p) => p.problem !== undefined);
const blocking = missing.filter((p) => !allowed.has(p.id));
if (blocking.length > 0) {
  for (const p of blocking) console.error(missingMessage(p.id, p.problem));
  console.error(`Everything npm test needs, at once:\n  Debian/Ubuntu: ${INSTALL.debian}\n  macOS:         ${INSTALL.macos}`);
  console.error(`Install what is missing, or let the run skip what needs it: ${ALLOW_SKIP_ENV}=${blocking.map((p) => p.id).join(',')} npm test`);
  console.log(`0 passed, ${blocking.length} failed, 0 skipped`);
  process.exit(1);
}
for (const p of missing) console.log(`Allowed by ${ALLOW_SKIP_ENV}: '${p.id}' is missing (${p.problem}); the tests that need it are skipped.`);

// 2. Jest, with a JSON report.
// SIGNET_TEST_REPORT moves the report (the test of this script runs it inside a run).
const report = path.resolve(root, process.env.SIGNET_TEST_REPORT ?? path.join('reports', 'jest.json'));
fs.mkdirSync(path.dirname(report), { recursive: true });
fs.rmSync(report, { force: true });
const jestBin = require.resolve('jest/bin/jest');
const run = spawnSync(process.execPath, [jestBin, '--json', `--outputFile=${report}`, ...args], { cwd: root, stdio: 'inherit' });

// 3. The counts, and every skipped test by name.
let passed = 0;
let failed = 0;
let suitesFailed = 0;
const skipped = [];
if (fs.existsSync(report)) {
  const result = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = result.numPassedTests;
  failed = result.numFailedTests;
  suitesFailed = result.numRuntimeErrorTestSuites ?? 0;
  for (const file of result.testResults) {
    for (const test of file.assertionResults) {
      if (test.status === 'passed' || test.status === 'failed') continue;
      const reason = /\(skipped: ([a-z]+): (.*)\)$/.exec(test.title);
      skipped.push({
        name: `${path.relative(root, file.name)} › ${test.fullName}`,
        allowed: reason !== null && allowed.has(reason[1]),
        why: reason === null ? `${test.status === 'todo' ? 'a todo' : 'skipped in the code'}, with no prerequisite named` : `${reason[1]} missing: ${reason[2]}`,
      });
    }
  }
} else {
  failed = 1;
}

// A name filter (-t) reports the tests it leaves out as skipped: that is the caller's choice.
const filtered = args.some((a) => a === '-t' || a.startsWith('--testNamePattern'));
const refused = filtered ? [] : skipped.filter((s) => !s.allowed);
for (const s of skipped.filter((s) => s.allowed)) console.log(`skipped (allowed): ${s.name} — ${s.why}`);
for (const s of refused) console.log(`skipped (NOT allowed): ${s.name} — ${s.why}`);
if (refused.length > 0) {
  console.log(
    `${refused.length} test(s) were skipped without ${ALLOW_SKIP_ENV} allowing it: remove the skip, or install what they need and run again.`,
  );
}
if (suitesFailed > 0) console.log(`${suitesFailed} test suite(s) failed to run`);
console.log(`${passed} passed, ${failed + suitesFailed} failed, ${skipped.length} skipped`);
const ok = run.status === 0 && failed === 0 && suitesFailed === 0 && passed > 0 && refused.length === 0;
process.exit(ok ? 0 : 1);
