// What must be installed on the machine before `npm start` and `npm test`, how to check it, and
// how to install it. One list, read by scripts/test.cjs (checked before Jest starts), local/main.ts
// (checked before the gateway starts), the tests that need a tool (they skip only when the
// environment allows it: SIGNET_ALLOW_SKIP) and test/docs/docs.test.ts (the README's quick start says
// the same). Plain CommonJS so that the test runner can read it without a TypeScript loader.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

/** One line each for Debian/Ubuntu and for macOS (Homebrew) that installs everything below. */
const INSTALL = {
  debian:
    'sudo apt-get update && sudo apt-get install -y openjdk-17-jdk-headless chromium python3 python3-cryptography golang curl openssl',
  macos: 'brew install node openjdk@17 python go && brew install --cask chromium && python3 -m pip install cryptography',
};

/** The environment variable that lists prerequisites a test run may do without (comma-separated ids). */
const ALLOW_SKIP_ENV = 'SIGNET_ALLOW_SKIP';

function run(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.error !== undefined || result.status !== 0) return undefined;
  return `${result.stdout ?? ''}${result.stderr ?? ''}`;
}

/** Where Chromium is: $SIGNET_CHROMIUM, or the usual Debian/Ubuntu/macOS paths. */
function chromiumPath() {
  const candidates = [
    process.env.SIGNET_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ];
  return candidates.find((file) => file !== undefined && file !== '' && fs.existsSync(file));
}

/**
 * Each prerequisite: `id` (the name SIGNET_ALLOW_SKIP uses), `what` it is and what needs it,
 * `install` (the command that installs it alone, Debian/Ubuntu and macOS), `neededBy` (`start`,
 * `test`), and `problem()`: undefined when it is there, else what is wrong.
 */
const PREREQUISITES = [
  {
    id: 'node',
    install: { debian: 'install Node.js 20.19 or newer from https://nodejs.org or your version manager', macos: 'brew install node' },
    what: 'Node.js 20.19 or newer',
    neededBy: ['start', 'test'],
    problem() {
      const [major, minor] = process.versions.node.split('.').map(Number);
      return major > 20 || (major === 20 && minor >= 19) ? undefined : `this is Node.js ${process.versions.node}`;
    },
  },
  {
    id: 'java',
    install: { debian: 'sudo apt-get update && sudo apt-get install -y openjdk-17-jdk-headless', macos: 'brew install openjdk@17' },
    what: 'a Java 17 or newer JDK (DynamoDB Local, and the Java signing example)',
    neededBy: ['start', 'test'],
    problem() {
      const version = run('java', ['-version']);
      if (version === undefined) return '`java` is not on PATH';
      const major = Number(/version "(?:1\.)?(\d+)/.exec(version)?.[1] ?? 0);
      if (major < 17) return `\`java -version\` says ${major}, older than 17`;
      if (run('javac', ['-version']) === undefined) return 'only a Java runtime is installed; the JDK (with `javac`) is needed';
      return undefined;
    },
  },
  {
    id: 'chromium',
    install: { debian: 'sudo apt-get update && sudo apt-get install -y chromium', macos: 'brew install --cask chromium' },
    what: "Chromium (the client portal's browser tests)",
    neededBy: ['test'],
    problem() {
      return chromiumPath() === undefined ? 'Chromium is not installed (or set SIGNET_CHROMIUM to its executable)' : undefined;
    },
  },
  {
    id: 'python',
    install: { debian: 'sudo apt-get update && sudo apt-get install -y python3 python3-cryptography', macos: 'brew install python && python3 -m pip install cryptography' },
    what: 'Python 3 with the `cryptography` package (the Python signing example)',
    neededBy: ['test'],
    problem() {
      if (run('python3', ['--version']) === undefined) return '`python3` is not on PATH';
      if (run('python3', ['-c', 'import cryptography']) === undefined) return 'the Python package `cryptography` is not installed';
      return undefined;
    },
  },
  {
    id: 'go',
    install: { debian: 'sudo apt-get update && sudo apt-get install -y golang', macos: 'brew install go' },
    what: 'Go 1.19 or newer (the Go signing example)',
    neededBy: ['test'],
    problem() {
      const version = run('go', ['version']);
      if (version === undefined) return '`go` is not on PATH';
      const [major, minor] = (/go(\d+)\.(\d+)/.exec(version) ?? [undefined, '0', '0']).slice(1).map(Number);
      return major > 1 || (major === 1 && minor >= 19) ? undefined : `\`go version\` says ${major}.${minor}, older than 1.19`;
    },
  },
  {
    id: 'openssl',
    install: { debian: 'sudo apt-get update && sudo apt-get install -y curl openssl', macos: 'brew install curl openssl' },
    what: 'sh, OpenSSL and curl (the shell signing example)',
    neededBy: ['test'],
    problem() {
      const missing = [
        ['sh', ['-c', 'exit 0']],
        ['openssl', ['version']],
        ['curl', ['--version']],
      ]
        .filter(([command, args]) => run(command, args) === undefined)
        .map(([command]) => `\`${command}\``);
      return missing.length === 0 ? undefined : `${missing.join(', ')} not on PATH`;
    },
  },
];

/** The ids SIGNET_ALLOW_SKIP names (`python,go`, spaces allowed). */
function allowedSkips(env = process.env) {
  return new Set(
    (env[ALLOW_SKIP_ENV] ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );
}

const problems = new Map();
/** What is wrong with prerequisite `id` on this machine (checked once per process), or undefined. */
function problemWith(id) {
  const prerequisite = PREREQUISITES.find((p) => p.id === id);
  if (prerequisite === undefined) throw new Error(`unknown prerequisite '${id}'`);
  if (!problems.has(id)) problems.set(id, prerequisite.problem());
  return problems.get(id);
}

/** The sentence shown for a missing prerequisite: what, why, and how to install it alone (INSTALL installs everything). */
function missingMessage(id, problem) {
  const prerequisite = PREREQUISITES.find((p) => p.id === id);
  return (
    `Missing prerequisite '${id}': ${prerequisite.what}: ${problem}.\n` +
    `  Debian/Ubuntu: ${prerequisite.install.debian}\n` +
    `  macOS:         ${prerequisite.install.macos}`
  );
}

/**
 * Every prerequisite `purpose` ('start' or 'test') needs, with its problem (undefined = present);
 * those named in `unneeded` are left out, unchecked (e.g. `java` for `npm start` on a DynamoDB the user runs).
 */
function checkPrerequisites(purpose, unneeded = []) {
  return PREREQUISITES.filter((p) => p.neededBy.includes(purpose) && !unneeded.includes(p.id)).map((p) => ({ id: p.id, what: p.what, problem: problemWith(p.id) }));
}

/** Suffix that marks a test skipped because prerequisite `id` is missing; scripts/test.cjs reads it. */
function skipMarker(id, problem) {
  return ` (skipped: ${id}: ${problem})`;
}

/**
 * How a test that needs prerequisite `id` runs: `{ run: true }` when it is there;
 * `{ run: false, marker }` when it is missing and SIGNET_ALLOW_SKIP names it (skip, with the marker
 * in the test's name); otherwise `{ run: true, missing }`: the test runs and must fail with `missing`.
 */
function gate(id, env = process.env) {
  const problem = problemWith(id);
  if (problem === undefined) return { run: true };
  if (allowedSkips(env).has(id)) return { run: false, marker: skipMarker(id, problem) };
  return { run: true, missing: missingMessage(id, problem) };
}

module.exports = {
  ALLOW_SKIP_ENV,
  INSTALL,
  PREREQUISITES,
  allowedSkips,
  checkPrerequisites,
  chromiumPath,
  gate,
  missingMessage,
  skipMarker,
};
