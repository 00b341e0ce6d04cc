#!/usr/bin/env node
// `execute-parallel-plan plan.md [flags]` is `mdplan run plan.md [flags]`.
import {start} from './start.js'

await start(['run', ...process.argv.slice(2)])
