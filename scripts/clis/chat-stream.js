// The OpenAI Chat Completions streamed answer for one scripted step (OpenAI-compatible clients: opencode).

export function chatStream({id, model, step, calls, usage}) {
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta, finish, extra = {}) => `data: ${JSON.stringify({id, object: 'chat.completion.chunk', created, model, choices: [{index: 0, delta, finish_reason: finish}], ...extra})}\n\n`
  const events = [chunk({role: 'assistant', content: ''}, null)]
  if (step.text) {
    const middle = Math.ceil(step.text.length / 2)
    for (const text of [step.text.slice(0, middle), step.text.slice(middle)]) if (text) events.push(chunk({content: text}, null))
  }
  calls.forEach((call, index) => {
    events.push(chunk({tool_calls: [{index, id: `call_${id}_${index}`, type: 'function', function: {name: call.name, arguments: JSON.stringify(call.input)}}]}, null))
  })
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'))
  events.push(`data: ${JSON.stringify({id, object: 'chat.completion.chunk', created, model, choices: [], usage: {prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output}})}\n\n`)
  events.push('data: [DONE]\n\n')
  return events
}
