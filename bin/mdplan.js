#!/usr/bin/env node
import {main} from '../dist/cli/main.js'

// `mdplan … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}

process.exitCode = await main(process.argv.slice(2))
