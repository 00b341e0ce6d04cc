import type {HostType} from '../host-type.js'
import {localHost} from './local-host.js'

/** This machine: every agent of a plan without hosts runs here, as a job beside the plan. */
export const localType: HostType = {
  implicit: true,
  fields: {},
  create: (spec, context) => localHost(spec, context.jobs)
}
