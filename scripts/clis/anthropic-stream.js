// The Anthropic Messages API's answer for one scripted step, as the SSE events
// Claude Code parses (message_start … message_stop) or as one JSON message.

/** The content blocks of one step: its text, then its tool calls (already named for this client). */
export function anthropicBlocks(step, calls) {
  const blocks = []
  if (step.text) blocks.push({type: 'text', text: step.text})
  calls.forEach((call, index) => blocks.push({type: 'tool_use', id: `toolu_mdplan_${Date.now()}_${index}`, name: call.name, input: call.input}))
  return blocks
}

/** The SSE event strings, in order. `usage` is what the server pretends the turn cost. */
export function anthropicStream({id, model, blocks, usage}) {
  const events = []
  const send = (type, data) => events.push(`event: ${type}\ndata: ${JSON.stringify({type, ...data})}\n\n`)
  send('message_start', {
    message: {id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: {input_tokens: usage.input, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0}}
  })
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', {index, content_block: {type: 'text', text: ''}})
      // Two deltas, so the client really assembles the text from a stream.
      const middle = Math.ceil(block.text.length / 2)
      for (const text of [block.text.slice(0, middle), block.text.slice(middle)]) if (text) send('content_block_delta', {index, delta: {type: 'text_delta', text}})
    } else {
      send('content_block_start', {index, content_block: {type: 'tool_use', id: block.id, name: block.name, input: {}}})
      send('content_block_delta', {index, delta: {type: 'input_json_delta', partial_json: JSON.stringify(block.input)}})
    }
    send('content_block_stop', {index})
  })
  const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'
  send('message_delta', {delta: {stop_reason: stopReason, stop_sequence: null}, usage: {output_tokens: usage.output}})
  send('message_stop', {})
  return events
}

/** The non-streaming form of the same answer. */
export function anthropicMessage({id, model, blocks, usage}) {
  const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'
  return {id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage: {input_tokens: usage.input, output_tokens: usage.output}}
}
