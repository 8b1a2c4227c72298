#!/usr/bin/env node
'use strict';
let cli;
try {
  cli = require('../dist/index.js');
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist/index.js')) {
    process.stderr.write('custos: the CLI is not built yet; run `npm ci` (or `npx turbo run build --filter=@custos/cli...`) in the repository root\n');
    process.exit(2);
  }
  throw error;
}
cli.main(process.argv).then((code) => { process.exitCode = code; });
