#!/usr/bin/env node
// `execute-parallel-plan plan.md [flags]` is `mdplan run plan.md [flags]`.
import {main} from '../dist/cli/main.js'

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}

process.exitCode = await main(['run', ...process.argv.slice(2)])
