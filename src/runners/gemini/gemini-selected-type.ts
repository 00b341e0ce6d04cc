/** The auth type a gemini settings file's text selects (`security.auth.selectedType`, else the older `selectedAuthType`). */
export function geminiSelectedType(text: string): string | undefined {
  try {
    const settings = JSON.parse(text) as {security?: {auth?: {selectedType?: unknown}}; selectedAuthType?: unknown}
    const type = settings.security?.auth?.selectedType ?? settings.selectedAuthType
    return typeof type === 'string' && type !== '' ? type : undefined
  } catch {
    return undefined
  }
}
