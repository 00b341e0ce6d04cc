/**
 * The package's root folder (where package.json and templates/ are). This file
 * sits one level below it in every form mdplan runs from: src/, dist/, and
 * the single-file bundle dist/mdplan.cjs (where bin/load-cli.js supplies
 * `import.meta.url`).
 */
export const packageRoot = new URL('../', import.meta.url)
