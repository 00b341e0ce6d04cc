// The OpenAI Responses API's streamed answer for one scripted step (what codex reads).

export function responsesStream({id, model, step, calls, usage}) {
  const events = []
  const send = (type, data) => events.push(`event: ${type}\ndata: ${JSON.stringify({type, ...data})}\n\n`)
  const output = []
  const response = (status) => ({id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model, output: status === 'completed' ? output : []})
  send('response.created', {response: response('in_progress')})
  if (step.text) {
    const itemId = `msg_${id}`
    const done = {type: 'message', id: itemId, role: 'assistant', status: 'completed', content: [{type: 'output_text', text: step.text, annotations: []}]}
    const output_index = output.length
    send('response.output_item.added', {output_index, item: {...done, status: 'in_progress', content: []}})
    send('response.content_part.added', {item_id: itemId, output_index, content_index: 0, part: {type: 'output_text', text: '', annotations: []}})
    send('response.output_text.delta', {item_id: itemId, output_index, content_index: 0, delta: step.text})
    send('response.output_text.done', {item_id: itemId, output_index, content_index: 0, text: step.text})
    send('response.content_part.done', {item_id: itemId, output_index, content_index: 0, part: done.content[0]})
    send('response.output_item.done', {output_index, item: done})
    output.push(done)
  }
  calls.forEach((call, index) => {
    const output_index = output.length
    const callId = `call_${id}_${index}`
    const item =
      call.kind === 'custom'
        ? {type: 'custom_tool_call', id: `ctc_${id}_${index}`, status: 'completed', call_id: callId, name: call.name, input: call.input}
        : {type: 'function_call', id: `fc_${id}_${index}`, status: 'completed', call_id: callId, name: call.name, arguments: JSON.stringify(call.input)}
    send('response.output_item.added', {output_index, item: {...item, status: 'in_progress'}})
    send('response.output_item.done', {output_index, item})
    output.push(item)
  })
  send('response.completed', {
    response: {
      ...response('completed'),
      usage: {input_tokens: usage.input, input_tokens_details: {cached_tokens: 0}, output_tokens: usage.output, output_tokens_details: {reasoning_tokens: 0}, total_tokens: usage.input + usage.output}
    }
  })
  return events
}
