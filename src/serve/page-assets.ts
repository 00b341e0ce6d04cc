import {readFileSync} from 'node:fs'
import {packageRoot} from '../package-root.js'

/** The page's files, by the path they are served at: nothing else of the package is ever served. */
const files: Record<string, {name: string; type: string}> = {
  '/': {name: 'page.html', type: 'text/html; charset=utf-8'},
  '/page.js': {name: 'page.js', type: 'text/javascript; charset=utf-8'},
  '/page.css': {name: 'page.css', type: 'text/css; charset=utf-8'}
}

const loaded = new Map<string, {body: Buffer; type: string}>()

/** The asset served at `path` (read once from the package's assets/serve/), or undefined. */
export function pageAsset(path: string): {body: Buffer; type: string} | undefined {
  const file = files[path]
  if (!file) return undefined
  let asset = loaded.get(path)
  if (!asset) {
    asset = {body: readFileSync(new URL(`assets/serve/${file.name}`, packageRoot)), type: file.type}
    loaded.set(path, asset)
  }
  return asset
}
