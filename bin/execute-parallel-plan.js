#!/usr/bin/env node
// `execute-parallel-plan plan.md [flags]` is `mdplan run plan.md [flags]`.
import {main} from '../dist/cli/main.js'

process.exitCode = await main(['run', ...process.argv.slice(2)])
