/** The variables gemini-cli 0.61 reads to pick an auth method by itself (getAuthTypeFromEnv). */
export const geminiAuthVariables = ['GEMINI_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA', 'GOOGLE_GEMINI_BASE_URL', 'GEMINI_CLI_USE_COMPUTE_ADC', 'CLOUD_SHELL'] as const
