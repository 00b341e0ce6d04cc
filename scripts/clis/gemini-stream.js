// The Gemini API's answer (generateContent / streamGenerateContent?alt=sse) for one scripted step (Gemini CLI).

export function geminiResponse({model, step, calls, usage}) {
  const parts = []
  if (step.text) parts.push({text: step.text})
  for (const call of calls) parts.push({functionCall: {name: call.name, args: call.input}})
  return {
    candidates: [{content: {role: 'model', parts}, finishReason: 'STOP', index: 0}],
    usageMetadata: {promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output},
    modelVersion: model
  }
}

export function geminiStream(answer) {
  const whole = geminiResponse(answer)
  const parts = whole.candidates[0].content.parts
  // The text first, then the calls with the finish reason and usage: the client assembles a turn from chunks.
  const first = {candidates: [{content: {role: 'model', parts: parts.filter((part) => part.text)}, index: 0}], modelVersion: whole.modelVersion}
  const last = {...whole, candidates: [{...whole.candidates[0], content: {role: 'model', parts: parts.filter((part) => !part.text)}}]}
  return [first, last].filter((chunk) => chunk.candidates[0].content.parts.length > 0 || chunk === last).map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`)
}
