#!/usr/bin/env node
'use strict';
// The package's bin: runs the compiled CLI (npm ci builds dist/ through the prepare script).
const { main } = require('../dist/src/cli/index.js');

main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
