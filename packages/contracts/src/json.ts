/** A JSON object (not null, not an array): what most fields of a request must be. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
