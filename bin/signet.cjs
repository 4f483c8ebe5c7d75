#!/usr/bin/env node
// The `signet` bin. Installed from the package, it runs the compiled CLI (dist/bin/signet.js,
// built by `npm pack`), with nothing but the production dependencies. In a checkout of the
// repository, where the TypeScript sits beside this file, it runs the source through tsx (a
// development dependency) so no build step is needed.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const source = join(__dirname, 'signet.ts');
if (existsSync(source)) {
  require('tsx/cjs');
  require(source);
} else {
  require(join(__dirname, '..', 'dist', 'bin', 'signet.js'));
}
