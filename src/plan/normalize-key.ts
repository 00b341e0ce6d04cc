/** `Depends on`, `depends-on`, `DEPENDS_ON` → `depends_on`; `Last updated` → `last_updated`. */
export function normalizeKey(key: string): string {
  return key
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '_')
}
