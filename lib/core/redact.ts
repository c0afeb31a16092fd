// Anything shaped like an OpenAI key: after a word boundary from 4 characters on (masked ones with
// * or . too), and anywhere from 8 characters on. What the embedding errors and the chat models'
// log lines each took out before, together.
const OPENAI_KEY = /\bsk-[A-Za-z0-9_*\-.]{4,}|sk-[A-Za-z0-9_-]{8,}/g;

/**
 * `text` with secrets taken out, before a user or the server log reads it (a provider's error text
 * can quote the request, or a key): each of `keys` wherever it appears, as "[redacted]", and
 * anything shaped like an OpenAI key, as "sk-[redacted]". Unset keys are skipped.
 */
export function redactSecrets(text: string, keys: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const key of keys) if (key) out = out.split(key).join("[redacted]");
  return out.replace(OPENAI_KEY, "sk-[redacted]");
}
