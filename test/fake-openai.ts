// Test helper (not used by the app): a real OpenAI-compatible HTTP server for embedding tests.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    input?: string[];
    encoding_format?: string;
    dimensions?: number;
    [key: string]: unknown;
  };
}

/** Handles one request; return true when it answered, false to fall through to the default. */
export type Responder = (req: RecordedRequest, res: http.ServerResponse, server: FakeOpenAIServer) => boolean | void;

/** The deterministic vector the server returns for `text`; all values are exact in float32. */
export function fakeVector(text: string, dimension: number): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const v = new Array<number>(dimension);
  v[0] = 1 + ((h >>> 0) % 65_536);
  for (let j = 1; j < dimension; j++) v[j] = j === 1 ? text.length % 65_536 : j / 4;
  return v;
}

/**
 * A model that knows synonyms, for tests that need known rankings: one dimension per topic,
 * counting the words of the topic a text has (by prefix), and a small constant one.
 */
export const TOPICS = [
  ["refund", "cash", "reimburs", "purchase", "money"],
  ["support", "response", "answer"],
  ["password", "credential", "sign"],
  ["invoice", "billing", "pdf", "receipt"],
  ["download", "export", "csv"],
];
export function topicVector(text: string, dimension = 8): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const v = [...TOPICS.map((keys) => words.filter((w) => keys.some((k) => w.startsWith(k))).length), 0.05];
  return [...v, ...Array(Math.max(0, dimension - v.length)).fill(0)];
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function apiError(
  res: http.ServerResponse,
  status: number,
  message: string,
  code: string | null = null,
  headers: Record<string, string> = {},
) {
  sendJson(res, status, { error: { message, type: "invalid_request_error", param: null, code } }, headers);
}

export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  /** One-shot responders, consumed in order before the default behaviour. */
  readonly queue: Responder[] = [];
  /** Dimension per model name; unknown models get a 404 like OpenAI's "model_not_found". */
  dims: Record<string, number> = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "test-model": 8,
  };
  /** Return `data` in a scrambled order (clients must use `index`). */
  shuffle = false;
  /** Ignore `encoding_format` and always answer floats, like some compatible servers. */
  alwaysFloat = false;
  private server: http.Server | undefined;
  url = "";

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        let body: RecordedRequest["body"] = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
        } catch {
          return apiError(res, 400, "invalid JSON body");
        }
        const rec: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
        this.requests.push(rec);
        const responder = this.queue.shift();
        if (responder && responder(rec, res, this) !== false) return;
        this.defaultReply(rec, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** How the fake embeds one text; a test may set its own (topic vectors with known ranks, say). */
  vectorOf: (text: string, dimension: number) => number[] = fakeVector;

  /** The embeddings response the server would normally give for `rec`. */
  embeddingsBody(rec: RecordedRequest) {
    const { model = "", input = [], dimensions, encoding_format } = rec.body;
    const dim = dimensions ?? this.dims[model];
    const base64 = encoding_format === "base64" && !this.alwaysFloat;
    const data = input.map((text, index) => {
      const v = this.vectorOf(text, dim);
      return {
        object: "embedding",
        index,
        embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v,
      };
    });
    if (this.shuffle) data.sort((a, b) => ((a.index * 7919) % 13) - ((b.index * 7919) % 13) || b.index - a.index);
    return { object: "list", data, model, usage: { prompt_tokens: 0, total_tokens: 0 } };
  }

  /** Chat models the server knows; others get a 404 like OpenAI's. */
  chatModels = new Set(["test-chat"]);
  /**
   * How the fake grades passages for relevance: by default a passage is relevant when it shares
   * a word of five letters or more with the question.
   */
  grade = (question: string, passages: string[]) => {
    const words = (t: string) => new Set(t.toLowerCase().match(/[a-z]{5,}/g) ?? []);
    const q = words(question);
    return passages.map((p) => [...words(p)].some((w) => q.has(w)));
  };

  /**
   * How the fake writes questions for a document (json_schema "questions"): one per sentence of
   * the text, in order, asking about its first five words and naming the document.
   */
  questions = (filename: string, n: number, text: string) =>
    text
      .split(/(?<=[.!?])\s+/)
      .map(
        (s) =>
          s
            .match(/[A-Za-z0-9]+/g)
            ?.slice(0, 5)
            .join(" ") ?? "",
      )
      .filter(Boolean)
      .slice(0, n)
      .map((words) => `What does ${filename} say about ${words}?`);

  /** A chat completion: a relevance grading (json_schema "relevance"), questions (json_schema "questions") or an answer citing every source label. */
  chatBody(rec: RecordedRequest) {
    const messages = (rec.body.messages ?? []) as { role: string; content: string }[];
    const user = messages.find((m) => m.role === "user")?.content ?? "";
    const schemaName = (rec.body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
    if (schemaName === "questions") {
      const filename = /^Document: (.*)$/m.exec(user)?.[1] ?? "";
      const n = Number(/^Write (\d+) questions/m.exec(user)?.[1] ?? 0);
      const text = user.slice(user.indexOf("\nText:\n") + "\nText:\n".length);
      const content = JSON.stringify({ questions: this.questions(filename, n, text) });
      return {
        id: "chatcmpl-test",
        object: "chat.completion",
        model: rec.body.model,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
      };
    }
    const question = /^Question: (.*)$/m.exec(user)?.[1] ?? "";
    const listed = user.slice(user.search(/\n(?:Passages|Sources):\n/) + 1).replace(/^(?:Passages|Sources):\n/, "");
    const blocks = listed
      .split(/\n\n(?=\[\d+\] \()/)
      .map((b) => /^\[\d+\] \(([^)]*)\)\n([\s\S]*)$/.exec(b))
      .filter((b): b is RegExpExecArray => b !== null);
    const format = rec.body.response_format as { json_schema?: { name?: string } } | undefined;
    const content =
      format?.json_schema?.name === "relevance"
        ? JSON.stringify({
            relevant: this.grade(
              question,
              blocks.map((b) => b[2]),
            ),
          })
        : `From the sources: ${blocks.map((b) => `[${b[1]}]`).join(" ")}`;
    return {
      id: "chatcmpl-test",
      object: "chat.completion",
      model: rec.body.model,
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    };
  }

  private defaultReply(rec: RecordedRequest, res: http.ServerResponse) {
    if (rec.method === "POST" && rec.path === "/v1/chat/completions") {
      const model = String(rec.body.model ?? "");
      if (!this.chatModels.has(model))
        return apiError(res, 404, `The model \`${model}\` does not exist or you do not have access to it.`, "model_not_found");
      return sendJson(res, 200, this.chatBody(rec));
    }
    if (rec.method !== "POST" || rec.path !== "/v1/embeddings") return apiError(res, 404, `Unknown path ${rec.path}`);
    const model = rec.body.model ?? "";
    if (!(model in this.dims)) {
      return apiError(res, 404, `The model \`${model}\` does not exist or you do not have access to it.`, "model_not_found");
    }
    if (!Array.isArray(rec.body.input) || rec.body.input.some((t) => typeof t !== "string" || t === "")) {
      return apiError(res, 400, "'$.input' is invalid.");
    }
    sendJson(res, 200, this.embeddingsBody(rec));
  }
}
