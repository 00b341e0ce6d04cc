import type {Host} from './host.js'
import type {HostField} from './host-fields.js'
import type {HostSpec} from './host-spec.js'

/** What an engine is given besides its spec: the repository's root, the folder of this plan's local jobs, and of its files in flight. */
export interface HostContext {
  root: string
  jobs: string
  /** The plan's `.mdplan/host-files/`: job archives, base and result bundles (layout/jobs-folder.ts). */
  scratch: string
}

/**
 * One kind of host, as its engine folder describes it (src/hosts/<engine>/<engine>-type.ts): the front-matter
 * fields it takes and their checks, which `validate` reads, and how to make a host of it, which only `run`
 * needs. The descriptor imports its engine's code from its own folder (`./…`) for `create` only: the
 * read-only bundles replace those imports with stubs (scripts/bundle.js), so they carry no engine.
 */
export interface HostType {
  /** The machine mdplan runs on: never declared under `hosts:`. */
  implicit?: boolean
  /** Its fields beyond the ones every host has (`type`, `slots`, `env`, `lease`), by their normalized names. */
  fields: Readonly<Record<string, HostField>>
  /** What its fields say together (a field it needs, one that needs another): a problem per entry. */
  check?(spec: HostSpec): ReadonlyArray<string | false | undefined>
  create(spec: HostSpec, context: HostContext): Host
}
