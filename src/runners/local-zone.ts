/**
 * This machine's IANA time zone (`TZ`, else the system's): the zone a CLI's time of day is in when it names
 * none (codex's `try again at 3:05 PM`). An agent on another host speaks in that host's zone; a CLI that
 * names its zone (claude's `(Europe/Paris)`) is read in its own.
 */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}
