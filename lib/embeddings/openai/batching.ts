// Request limits, token estimates and batching for the OpenAI provider.

export const MAX_INPUTS_PER_REQUEST = 2048;
export const MAX_TOKENS_PER_REQUEST = 300_000;
/** Per-input budget, a little under the 8,191-token model limit because tokens are estimated. */
export const MAX_TOKENS_PER_INPUT = 8_000;
/** = MAX_TOKENS_PER_INPUT for ASCII text (3 chars per token). */
export const MAX_INPUT_CHARS = 24_000;

/**
 * Conservative token estimate without a tokenizer: ASCII ≈ 3 chars per token (English BPE
 * averages ~4), and every non-ASCII UTF-16 unit counts 1.5 tokens (CJK is ~1–1.3 per char, and
 * emoji/rare characters take several byte-level tokens).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3 + other * 1.5);
}

/** Cuts text to at most `maxTokens` estimated tokens (24,000 ASCII chars for 8,000), never inside a surrogate pair. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (text.length <= maxTokens * 3 && estimateTokens(text) <= maxTokens) return text;
  let cost = 0; // in thirds of a token
  const budget = maxTokens * 3;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const step = c < 0x80 ? 1 : 4.5;
    if (cost + step > budget) break;
    cost += step;
  }
  // Don't leave a lone high surrogate at the end.
  if (i > 0 && i < text.length) {
    const last = text.charCodeAt(i - 1);
    if (last >= 0xd800 && last <= 0xdbff) i--;
  }
  return text.slice(0, i);
}

export function* makeBatches<T extends { tokens: number }>(items: T[]): Generator<T[]> {
  let batch: T[] = [];
  let tokens = 0;
  for (const item of items) {
    if (batch.length > 0 && (batch.length >= MAX_INPUTS_PER_REQUEST || tokens + item.tokens > MAX_TOKENS_PER_REQUEST)) {
      yield batch;
      batch = [];
      tokens = 0;
    }
    batch.push(item);
    tokens += item.tokens;
  }
  if (batch.length > 0) yield batch;
}
