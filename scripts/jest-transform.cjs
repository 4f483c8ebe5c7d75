// Jest's TypeScript transform: esbuild strips the types of each file on its own (tsconfig.json
// sets isolatedModules, so nothing needs the whole program), as CommonJS for Node 20 with an inline
// source map for stack traces. `npm run build` type-checks; this only has to be fast, since a
// fresh clone transforms every test and source file once.
'use strict';
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'external',
      sourcefile: filename,
      sourcesContent: false,
    });
    return { code, map };
  },
};
