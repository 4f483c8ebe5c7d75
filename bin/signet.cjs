#!/usr/bin/env node
// The `signet` bin: runs the TypeScript CLI through tsx so no build step is needed.
'use strict';
require('tsx/cjs');
require('./signet.ts');
