// What the scripted model server bills, in dollars per million tokens, by the model a request names: the
// price each client applies to the model the tests run it on, so the server's bill in dollars can be set
// against the Cost the plan's table records (claude and opencode report dollars; codex and gemini tokens only).
//   mock-model       opencode's: ours, client-env.js gives the mock model this cost in opencode.json.
//   claude-opus-5-5  claude's own price for the model the usage-limit scenario names (`model:` in the plan,
//                    claude 2.1.330's default), read off its `total_cost_usd` for a known usage: $4 in, $20 out.
export const pricePerMillion = {
  'mock-model': {input: 3, output: 15},
  'claude-opus-5-5': {input: 4, output: 20}
}

/** The clients whose result names a cost in dollars, and the model their dollars are checked on. */
export const dollarModel = {claude: 'claude-opus-5-5', opencode: 'mock-model'}
