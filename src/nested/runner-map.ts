import type {Runner} from '../runners/runner.js'
import {builtinRunners} from '../runners/builtin-runners.js'
import {planRunner} from './plan-runner.js'

/** Every runner by name, the child-plan runner (`plan`) included: what `resolveRunner` is given above this layer. */
export const runnerMap: ReadonlyMap<string, Runner> = new Map([...builtinRunners, ['plan', planRunner]])
