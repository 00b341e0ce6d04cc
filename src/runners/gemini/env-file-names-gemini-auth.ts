import {geminiAuthVariables} from './gemini-auth-variables.js'

const names = [...geminiAuthVariables, 'GOOGLE_API_KEY', 'GOOGLE_CLOUD_PROJECT']
const assignment = new RegExp(`^\\s*(?:export\\s+)?(?:${names.join('|')})\\s*=`, 'm')

/** Whether a `.env` file's text sets a variable gemini picks its auth from: then gemini may well be keyed. */
export function envFileNamesGeminiAuth(text: string): boolean {
  return assignment.test(text)
}
