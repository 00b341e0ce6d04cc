#!/usr/bin/env node
import {start} from './start.js'

await start(process.argv.slice(2))
