import http from "node:http";
import type { AddressInfo } from "node:net";

/** An OpenAI-compatible embeddings server for tests; the paid API is the one part we stand in for. */
export interface FakeOpenAI {
  url: string;
  requests: { body: { model: string; input: string[]; encoding_format?: string }; headers: http.IncomingHttpHeaders }[];
  /** Decides the answer to the n-th request (1-based); return null for a normal answer. */
  failWith: (n: number) => { status: number; body?: unknown; headers?: Record<string, string> } | null;
  close: () => Promise<void>;
}

// A deterministic vector from the text, so equal texts embed equally.
function vectorFor(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (let i = 0; i < text.length; i++) v[(text.charCodeAt(i) * 31 + i) % dim] += 1;
  v[0] += 1;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

export async function startFakeOpenAI(dimension = 8): Promise<FakeOpenAI> {
  const fake: FakeOpenAI = { url: "", requests: [], failWith: () => null, close: async () => {} };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/embeddings")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const body = JSON.parse(raw);
      fake.requests.push({ body, headers: req.headers });
      const failure = fake.failWith(fake.requests.length);
      if (failure) {
        res
          .writeHead(failure.status, { "content-type": "application/json", ...failure.headers })
          .end(JSON.stringify(failure.body ?? { error: { message: `failure ${failure.status}`, type: "server_error" } }));
        return;
      }
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const data = inputs.map((text, index) => {
        const v = vectorFor(text, dimension);
        const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v;
        return { object: "embedding", index, embedding };
      });
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
