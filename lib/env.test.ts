import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "./env.mjs";

describe("parseEnv", () => {
  it("applies the embedded defaults", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      EMBEDDING_PROVIDER: "local",
      OPENAI_EMBEDDING_MODEL: "text-embedding-3-small",
      MAX_UPLOAD_BYTES: 20 * 1024 * 1024,
      KB_DEMO: true,
    });
    expect(env.CHROMA_URL).toBeUndefined();
    expect(env.DATA_DIR.endsWith("/data")).toBe(true);
  });

  it("names each bad variable and the value it got", () => {
    try {
      parseEnv({ PORT: "eighty", EMBEDDING_PROVIDER: "cohere", CHROMA_URL: "not a url" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as Error).message;
      expect(msg).toMatch(/PORT \(got "eighty"\)/);
      expect(msg).toMatch(/EMBEDDING_PROVIDER \(got "cohere"\)/);
      expect(msg).toMatch(/CHROMA_URL/);
    }
  });

  it("keeps 200 evaluation runs per agent unless EVAL_RUNS_KEEP says otherwise, and names it when it is not a positive whole number", () => {
    expect(parseEnv({}).EVAL_RUNS_KEEP).toBe(200);
    expect(parseEnv({ EVAL_RUNS_KEEP: "25" }).EVAL_RUNS_KEEP).toBe(25);
    for (const bad of ["many", "0", "-3", "2.5"])
      expect(() => parseEnv({ EVAL_RUNS_KEEP: bad }), bad).toThrow(new RegExp(`EVAL_RUNS_KEEP \\(got "${bad}"\\)`));
  });

  it("reads English by OCR unless OCR_LANGUAGES names others, joined by +, and names a value that is not such a list", () => {
    expect(parseEnv({})).toMatchObject({ OCR_LANGUAGES: "eng", MAX_IMAGE_PIXELS: 40_000_000, OCR_MIN_CONFIDENCE: 40, OCR_MAX_PAGES: 50 });
    expect(parseEnv({ OCR_LANGUAGES: "eng+deu+chi_sim" }).OCR_LANGUAGES).toBe("eng+deu+chi_sim");
    for (const bad of ["eng deu", "eng,deu", "eng+", "ENG"]) {
      expect(() => parseEnv({ OCR_LANGUAGES: bad }), bad).toThrow(
        `OCR_LANGUAGES (got "${bad}"): language codes joined by + (eng, eng+deu)`,
      );
    }
  });

  it("requires a key for OpenAI unless a compatible server is named", () => {
    expect(() => parseEnv({ EMBEDDING_PROVIDER: "openai" })).toThrow(/OPENAI_API_KEY/);
    expect(parseEnv({ EMBEDDING_PROVIDER: "openai", OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" }).EMBEDDING_PROVIDER).toBe("openai");
    expect(() => parseEnv({ KB_DEMO: "maybe" })).toThrow(/KB_DEMO/);
    expect(parseEnv({ KB_DEMO: "0" }).KB_DEMO).toBe(false);
  });
});
