import "server-only";
import type OpenAI from "openai";
import { env } from "../../env.mjs";
import { ChatError, chatClient } from "../../ask/chat";
import { shownUrl } from "../../embeddings/openai/errors";
import { questionKey } from "../../core/normalize";
import { redactSecrets } from "../../core/redact";
import { MAX_QUERY_LENGTH } from "../../validations/search";

/**
 * Questions written by the chat model (OPENAI_CHAT_MODEL) from a document's first chunks, with
 * structured output: one call per document, answering {"questions": [...]}.
 */

/** Characters of a document the model reads at most: its first chunks, enough to ask about, at a bounded cost per document. */
export const CHAT_TEXT_BUDGET = 6_000;

export interface QuestionWriter {
  model: string;
  write(filename: string, chunks: string[], n: number): Promise<string[]>;
}

const SYSTEM =
  "You write test questions for the search of a knowledge base. From the document given, write questions that a customer " +
  "or a colleague could really ask and that this document answers. Write each as a person would type it, in the document's " +
  "language, without copying long phrases from the text; cover different parts of the document; no numbering. Reply with JSON only.";

const SCHEMA = {
  type: "json_schema",
  json_schema: {
    name: "questions",
    strict: true,
    schema: {
      type: "object",
      properties: { questions: { type: "array", items: { type: "string" }, description: "The questions, each on its own." } },
      required: ["questions"],
      additionalProperties: false,
    },
  },
} as const;

/** The document's first chunks, whole, up to the budget (the first one cut if it alone is longer). */
export function excerpt(chunks: string[], budget = CHAT_TEXT_BUDGET): string {
  const kept: string[] = [];
  let used = 0;
  for (const c of chunks) {
    if (used + c.length > budget) {
      if (kept.length === 0) kept.push(c.slice(0, budget));
      break;
    }
    kept.push(c);
    used += c.length;
  }
  return kept.join("\n\n");
}

/** The model's answer as questions: trimmed, each at most MAX_QUERY_LENGTH, no two alike, at most n; null when it is not the shape asked for. */
export function parseQuestions(content: string | null | undefined, n: number): string[] | null {
  let questions: unknown;
  try {
    questions = (JSON.parse(content ?? "") as { questions?: unknown }).questions;
  } catch {
    return null;
  }
  if (!Array.isArray(questions) || questions.some((q) => typeof q !== "string")) return null;
  const seen = new Set<string>();
  return (questions as string[])
    .map((q) => q.replace(/\s+/g, " ").trim())
    .filter((q) => {
      const key = questionKey(q);
      const ok = key !== "" && q.length <= MAX_QUERY_LENGTH && !seen.has(key);
      seen.add(key);
      return ok;
    })
    .slice(0, n);
}

/** The chat model's question writer, on the ask pipeline's client (endpoint and key); null without OPENAI_CHAT_MODEL. */
export function questionWriter(): QuestionWriter | null {
  const chat = chatClient();
  return chat && openAIWriter(chat.client, chat.model, chat.baseURL);
}

function openAIWriter(client: OpenAI, model: string, baseURL: string): QuestionWriter {
  return {
    model,
    async write(filename, chunks, n) {
      let content: string | null | undefined;
      try {
        const res = await client.chat.completions.create({
          model,
          temperature: 0,
          messages: [
            { role: "system", content: SYSTEM },
            { role: "user", content: `Document: ${filename}\nWrite ${n} questions.\n\nText:\n${excerpt(chunks)}` },
          ],
          response_format: SCHEMA,
        });
        content = res.choices[0]?.message?.content;
      } catch (err) {
        // The provider's own text stays in the server log: it can quote the request, or a key.
        const status = (err as { status?: number }).status;
        const detail = redactSecrets(err instanceof Error ? err.message : String(err), [env().OPENAI_API_KEY]);
        console.error(`[kb-inspector] chat model ${model} failed to write questions for ${filename}:`, detail);
        throw new ChatError(
          `The chat model ${model} at ${shownUrl(baseURL) ?? "OPENAI_BASE_URL"} ${status ? `answered ${status}` : "did not answer"} when asked to write questions for ${filename}; the details are in the server log.`,
        );
      }
      const questions = parseQuestions(content, n);
      if (!questions)
        throw new ChatError(`The chat model ${model} did not write questions for ${filename} as asked (a JSON list of questions).`);
      return questions;
    },
  };
}
