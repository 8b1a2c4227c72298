#!/usr/bin/env node
'use strict';
require('../dist/index.js').main(process.argv).then((code) => { process.exitCode = code; });
