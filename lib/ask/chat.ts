import "server-only";
import type OpenAI from "openai";
import { env } from "../env.mjs";

export { chatClient };
import { AppError } from "../core/errors";
import { redactSecrets } from "../core/redact";
import { chatClient } from "../embeddings/openai/chat-client";
import { shownUrl } from "../embeddings/openai/errors";

/**
 * The chat model of the ask pipeline, on the same OpenAI-compatible endpoint and key as the
 * embeddings (OPENAI_CHAT_MODEL; none when unset). Two calls: grade the retrieved chunks'
 * relevance (structured output, one boolean per chunk) and answer from the relevant ones only.
 */

export interface Source {
  /** How the answer cites it, e.g. "refunds.md #2". */
  label: string;
  text: string;
  /** The header of the table whose rows the text holds without it: given to the model before the text. */
  context?: string;
}

export interface ChatModel {
  model: string;
  grade(question: string, sources: Source[]): Promise<boolean[]>;
  answer(question: string, sources: Source[]): Promise<string>;
}

/** A failed call to the chat model: the API answers 500 `chat_failed` with this message. */
export class ChatError extends AppError {
  constructor(message: string) {
    super("chat_failed", message);
  }
}

export function chatModel(): ChatModel | null {
  const chat = chatClient();
  return chat && openAIChat(chat.client, chat.model, chat.baseURL);
}

const numbered = (sources: Source[]) =>
  sources.map((s, i) => `[${i + 1}] (${s.label})\n${s.context ? `${s.context}\n` : ""}${s.text}`).join("\n\n");

function openAIChat(client: OpenAI, model: string, baseURL: string): ChatModel {
  // The provider's own text stays in the server log: it can quote the request, or a key.
  const failed = (what: string, err: unknown): never => {
    const status = (err as { status?: number }).status;
    const detail = redactSecrets(err instanceof Error ? err.message : String(err), [env().OPENAI_API_KEY]);
    console.error(`[kb-inspector] chat model ${model} failed to ${what}:`, detail);
    const how = status ? `answered ${status}` : "did not answer";
    // Users read this: the URL without the user, password or query OPENAI_BASE_URL may carry.
    throw new ChatError(
      `The chat model ${model} at ${shownUrl(baseURL) ?? "OPENAI_BASE_URL"} ${how} when asked to ${what}; the details are in the server log.`,
    );
  };
  const complete = (system: string, user: string, response_format?: OpenAI.ChatCompletionCreateParams["response_format"]) =>
    client.chat.completions.create({
      model,
      temperature: 0,
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
      ...(response_format ? { response_format } : {}),
    });
  return {
    model,
    async grade(question, sources) {
      let content: string | null | undefined;
      try {
        const res = await complete(
          "You grade retrieved passages for a support assistant. For each numbered passage, answer whether it contains " +
            "information that helps answer the question. Reply with JSON only.",
          `Question: ${question}\n\nPassages:\n${numbered(sources)}`,
          {
            type: "json_schema",
            json_schema: {
              name: "relevance",
              strict: true,
              schema: {
                type: "object",
                properties: { relevant: { type: "array", items: { type: "boolean" }, description: "One entry per passage, in order." } },
                required: ["relevant"],
                additionalProperties: false,
              },
            },
          },
        );
        content = res.choices[0]?.message?.content;
      } catch (err) {
        failed("grade the retrieved chunks", err);
      }
      let relevant: unknown;
      try {
        relevant = (JSON.parse(content ?? "") as { relevant?: unknown }).relevant;
      } catch {
        relevant = undefined;
      }
      if (!Array.isArray(relevant) || relevant.length !== sources.length || relevant.some((r) => typeof r !== "boolean")) {
        throw new ChatError(`The chat model ${model} did not grade the ${sources.length} chunks as asked (one true or false each).`);
      }
      return relevant as boolean[];
    },
    async answer(question, sources) {
      try {
        const res = await complete(
          "Answer the question using only the numbered sources. Cite each fact with its source label in brackets, " +
            "e.g. [refunds.md #2]. If the sources do not answer it, say so.",
          `Question: ${question}\n\nSources:\n${numbered(sources)}`,
        );
        const text = res.choices[0]?.message?.content?.trim();
        if (!text) throw new Error("an empty answer");
        return text;
      } catch (err) {
        return failed("answer", err);
      }
    },
  };
}
