import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeOpenAIServer } from "../../test/fake-openai";
import { createEmbedder, EmbeddingError, LOCAL_DIMENSION, LOCAL_MODEL, LocalEmbedder, OpenAIEmbedder, PLACEHOLDER_API_KEY } from "./index";

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await new FakeOpenAIServer().start();
});
afterAll(async () => {
  await server.close();
});

describe("createEmbedder", () => {
  it("creates the local embedder", () => {
    const e = createEmbedder({ provider: "local" });
    expect(e).toBeInstanceOf(LocalEmbedder);
    expect(e.model).toBe(LOCAL_MODEL);
    expect(createEmbedder({ provider: "local", model: LOCAL_MODEL, dimension: LOCAL_DIMENSION }).dimension).toBe(LOCAL_DIMENSION);
  });

  it("refuses a local model or dimension it cannot provide", () => {
    expect(() => createEmbedder({ provider: "local", model: "text-embedding-3-small" })).toThrow(EmbeddingError);
    expect(() => createEmbedder({ provider: "local", dimension: 1536 })).toThrow(new RegExp(String(LOCAL_DIMENSION)));
  });

  it("requires OPENAI_API_KEY for the OpenAI API", () => {
    expect(() => createEmbedder({ provider: "openai" })).toThrow(/OPENAI_API_KEY/);
    expect(() => createEmbedder({ provider: "openai", apiKey: "  " })).toThrow(/OPENAI_API_KEY/);
  });

  it("defaults to text-embedding-3-small", () => {
    const e = createEmbedder({ provider: "openai", apiKey: "sk-x" });
    expect(e).toBeInstanceOf(OpenAIEmbedder);
    expect(e.model).toBe("text-embedding-3-small");
    expect(e.dimension).toBe(1536);
  });

  it("allows a compatible server without a key, sending a placeholder", async () => {
    const e = createEmbedder({ provider: "openai", baseURL: server.url, model: "test-model", dimension: 8 });
    const [v] = await e.embed(["hi"]);
    expect(v).toHaveLength(8);
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
  });

  it("rejects an unknown provider at runtime", () => {
    expect(() => createEmbedder({ provider: "cohere" as never })).toThrow(/Unknown embedding provider/);
  });
});
