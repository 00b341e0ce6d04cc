// Points one real CLI at the scripted model server, inside a HOME of its own:
// nothing reads or writes the user's real configuration, and no credential
// but a dummy key is ever set.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pricePerMillion} from './prices.js'

/**
 * opencode without its fetch of the models catalogue (models.opencode.ai) or its update check: a network that
 * drops packets to those hosts (CI's) held every opencode start for minutes. The scenarios and the contract
 * checks both run opencode so.
 */
export const opencodeOffline = {OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1'}

/**
 * The environment for `mdplan run` (and so its agents) with `client` at `bin`
 * answering to `url`. `retries: false` turns the CLI's own retries off where it
 * has a switch, so mdplan's own handling of a 429 is what gets tested.
 * `account: true` logs claude in as an account with a usage limit (below).
 */
export function clientEnv(client, {home, url, bin, retries = true, sharedCache, account = false}) {
  mkdirSync(home, {recursive: true})
  const base = {HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.local', 'state')}
  switch (client) {
    case 'claude':
      return {
        ...base,
        MDPLAN_CLAUDE_BIN: bin,
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: 'sk-ant-mdplan-test',
        DISABLE_AUTOUPDATER: '1',
        ...(retries ? {} : {CLAUDE_CODE_MAX_RETRIES: '0'}),
        ...(account ? {ANTHROPIC_AUTH_TOKEN: gatewayToken()} : {})
      }
    case 'codex': {
      const codexHome = join(home, '.codex')
      mkdirSync(codexHome, {recursive: true})
      const noRetries = retries ? '' : 'request_max_retries = 0\nstream_max_retries = 0\n'
      writeFileSync(
        join(codexHome, 'config.toml'),
        `model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mdplan mock"\nbase_url = "${url}/v1"\nwire_api = "responses"\nenv_key = "MDPLAN_MOCK_KEY"\n${noRetries}`
      )
      // CODEX_API_KEY satisfies mdplan's preflight (codex itself sends MDPLAN_MOCK_KEY to the mock provider).
      return {...base, MDPLAN_CODEX_BIN: bin, CODEX_HOME: codexHome, CODEX_API_KEY: 'sk-mdplan-test', MDPLAN_MOCK_KEY: 'sk-mdplan-test'}
    }
    case 'gemini': {
      mkdirSync(join(home, '.gemini'), {recursive: true})
      // A named model: with `auto`, gemini first asks a router model for a JSON score.
      // `gemini-api-key`: with GOOGLE_GEMINI_BASE_URL alone it picks a `gateway` auth type 0.61 then refuses.
      // Session cleanup off: on every start gemini 0.61 deletes each session file of the folder that holds no
      // message yet, among them the one another gemini started there a moment before (two agents launched
      // together); the next start deletes what that agent wrote after. A lost session cannot be resumed
      // (mdplan relaunches the agent); it made the dag's session-ID check flaky.
      writeFileSync(
        join(home, '.gemini', 'settings.json'),
        // `general.maxAttempts: 1`: gemini's own retries off (a quota error with a delay up to 300 s is retried).
        JSON.stringify({security: {auth: {selectedType: 'gemini-api-key'}}, model: {name: 'gemini-2.5-flash'}, general: {sessionRetention: {enabled: false}, ...(retries ? {} : {maxAttempts: 1})}})
      )
      return {...base, MDPLAN_GEMINI_BIN: bin, GEMINI_API_KEY: 'mdplan-test', GOOGLE_GEMINI_BASE_URL: url}
    }
    case 'opencode': {
      const config = join(home, 'opencode.json')
      writeFileSync(
        config,
        JSON.stringify({
          $schema: 'https://opencode.ai/config.json',
          model: 'mock/mock-model',
          provider: {mock: {npm: '@ai-sdk/openai-compatible', name: 'mdplan mock', options: {baseURL: `${url}/v1`, apiKey: 'sk-mdplan-test'}, models: {'mock-model': {name: 'Mock', cost: pricePerMillion['mock-model']}}}}
        })
      )
      // opencode installs the provider's npm package into its cache on first use: share that cache between tests.
      // Offline (opencodeOffline): the mock provider is described in full above.
      return {
        ...base,
        ...(sharedCache ? {XDG_CACHE_HOME: sharedCache} : {}),
        MDPLAN_OPENCODE_BIN: bin,
        OPENCODE_CONFIG: config,
        ...opencodeOffline
      }
    }
  }
  throw new Error(`unknown client ${client}`)
}

/**
 * A login to a Claude gateway: a token whose audience is `claude-gateway` (unsigned: claude 2.1.330 only
 * reads its claims) with ANTHROPIC_BASE_URL elsewhere than api.anthropic.com. claude then reads a 429's
 * unified-limiter headers the way it does for a subscriber (`mQ()` in the binary) and says `You've hit your
 * 5-hour limit · resets 3pm (UTC)`; with an API key alone it says `API Error: Request rejected (429) · …`
 * with the server's message.
 */
function gatewayToken() {
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({alg: 'none', typ: 'JWT'})}.${part({aud: 'claude-gateway', sub: 'mdplan-test', exp: Math.floor(Date.now() / 1000) + 86_400})}.mdplan`
}
