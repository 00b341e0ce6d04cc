import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'
import type * as Api from '@opentelemetry/api'
import type * as Exporter from '@opentelemetry/exporter-trace-otlp-http'
import type * as Resources from '@opentelemetry/resources'
import type * as Sdk from '@opentelemetry/sdk-trace-base'
import {packageRoot} from '../package-root.js'
import {installAdvice} from '../util/install-advice.js'

/** The OpenTelemetry packages a trace needs, as loaded. */
export interface Otel {
  api: typeof Api
  sdk: typeof Sdk
  exporter: typeof Exporter
  resources: typeof Resources
}

/** The packages, each `name@range` as package.json's optional peers name them (1.x and 2.x: the 3.x line needs Node 22). */
export const otelPackages = ['@opentelemetry/api@~1.9.0', '@opentelemetry/sdk-trace-base@^2.12.1', '@opentelemetry/exporter-trace-otlp-http@^0.223.1', '@opentelemetry/resources@^2.12.1']

/** `require` as mdplan's own code does it (tests hand in one that fails). */
export type ModuleLoader = (id: string) => unknown

/**
 * The OpenTelemetry SDK for Node: optional peer dependencies (about 28 MB with theirs, which only a run with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set uses), loaded then from where Node resolves packages for mdplan itself,
 * never bundled.
 */
export function loadOtel(load: ModuleLoader = createRequire(import.meta.url), root: string = fileURLToPath(packageRoot)): Otel | {error: string} {
  try {
    return {
      api: load('@opentelemetry/api') as typeof Api,
      sdk: load('@opentelemetry/sdk-trace-base') as typeof Sdk,
      exporter: load('@opentelemetry/exporter-trace-otlp-http') as typeof Exporter,
      resources: load('@opentelemetry/resources') as typeof Resources
    }
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error)
    return {error: `tracing needs the OpenTelemetry SDK, which mdplan leaves out unless a run exports a trace (${message}); ${installAdvice(root, otelPackages, 'them')}`}
  }
}
