#!/usr/bin/env node
'use strict'
// `execute-parallel-plan plan.md [flags]` is `mdplan run plan.md [flags]`.
const {start} = require('./start.js')

start(['run', ...process.argv.slice(2)])
