#!/usr/bin/env node
'use strict'
const {start} = require('./start.js')

start(process.argv.slice(2))
