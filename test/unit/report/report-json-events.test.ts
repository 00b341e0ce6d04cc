import {readFile} from 'node:fs/promises'
import {describe, expect, it} from 'vitest'
import {eventSchemaVersion, type RunEvent} from '../../../src/events.js'
import {createReporter} from '../../../src/report/create-reporter.js'
import {eventFields, parseEventLine, serializeEvent} from '../../../src/report/json-events.js'
import {everyEvent} from '../../../fixtures/report/events.js'

describe('NDJSON events', () => {
  it('every event type is one line that parses back to the same event, with the schema version', () => {
    const lines: string[] = []
    const reporter = createReporter({mode: 'json', write: (text) => void lines.push(text), color: true})
    for (const event of Object.values(everyEvent)) reporter.event(event)
    reporter.close()
    expect(lines).toHaveLength(Object.keys(everyEvent).length)
    for (const [i, line] of lines.entries()) {
      expect(line.endsWith('\n')).toBe(true)
      expect(line.slice(0, -1)).not.toContain('\n')
      // No colour codes ever reach a JSON consumer.
      expect(line).not.toContain('\x1b')
      const parsed = parseEventLine(line)
      const {v, ...event} = parsed
      expect(v).toBe(eventSchemaVersion)
      expect(event).toEqual(Object.values(everyEvent)[i])
    }
    expect(lines[0]!.startsWith(`{"v":${eventSchemaVersion},"type":"run-started"`)).toBe(true)
  })

  it('the schema table lists every event type and only the fields the type has', () => {
    expect(Object.keys(eventFields).sort()).toEqual(Object.keys(everyEvent).sort())
    for (const [type, event] of Object.entries(everyEvent)) {
      const fields = Object.keys(eventFields[type as RunEvent['type']]).map((key) => key.replace(/\?$/, ''))
      for (const key of Object.keys(event)) if (key !== 'type' && key !== 'time') expect(fields, `${type}.${key}`).toContain(key)
    }
  })

  it('rejects lines a reader cannot trust', () => {
    expect(() => parseEventLine('{oops')).toThrow(/not valid JSON/)
    expect(() => parseEventLine('{"v":99,"type":"warning","time":"t","message":"m"}')).toThrow(/version 99/)
    expect(() => parseEventLine(`{"v":${eventSchemaVersion},"type":"nope","time":"t"}`)).toThrow(/unknown event type/)
    expect(() => parseEventLine(`{"v":${eventSchemaVersion},"type":"launched","time":"t","agent":"A"}`)).toThrow(/launched: missing "attempt"/)
    expect(() => parseEventLine(`{"v":${eventSchemaVersion},"type":"blocked","time":"t","agent":"A","by":[1]}`)).toThrow(/"by" is not a string\[\]/)
  })

  it('docs/events.md documents every event type and field', async () => {
    const doc = await readFile(new URL('../../../docs/events.md', import.meta.url), 'utf8')
    expect(doc).toContain(`"v": ${eventSchemaVersion}`)
    for (const [type, fields] of Object.entries(eventFields)) {
      expect(doc).toContain(`### \`${type}\``)
      for (const key of Object.keys(fields)) expect(doc, `${type}.${key}`).toContain(`\`${key.replace(/\?$/, '')}\``)
    }
  })

  it('serializeEvent puts v first', () => {
    expect(serializeEvent(everyEvent.warning)).toBe(`{"v":${eventSchemaVersion},"type":"warning","time":"2026-01-15T14:24:04.000Z","message":"row Z has no agent"}\n`)
  })
})
