import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact";

describe("redactSecrets", () => {
  it("takes out the keys it is given, wherever they appear", () => {
    expect(redactSecrets("key=abc123DEF456 and again abc123DEF456.", ["abc123DEF456"])).toBe("key=[redacted] and again [redacted].");
    expect(redactSecrets("no key here", [undefined, ""])).toBe("no key here");
  });

  // The embedding provider's errors: the configured key, then any other OpenAI-shaped key from 4 characters.
  it("takes out what the embedding errors took out", () => {
    const KEY = "sk-test-SECRET-key-0123456789";
    expect(redactSecrets(`maximum context length (key ${KEY}, sk-other-abcdef1234)`, [KEY])).toBe(
      "maximum context length (key [redacted], sk-[redacted])",
    );
    expect(redactSecrets("Incorrect API key provided: sk-proj-****abcd.", [KEY])).toBe("Incorrect API key provided: sk-[redacted]");
    expect(redactSecrets("short sk-abcd", [])).toBe("short sk-[redacted]");
  });

  // The chat models' log lines: any OpenAI-shaped key from 8 characters, even inside a word.
  it("takes out what the chat models' log lines took out", () => {
    expect(redactSecrets("The server had an error (key sk-test-chat-key-123456)")).toBe("The server had an error (key sk-[redacted])");
    expect(redactSecrets("bearer:sk-live_0123456789")).toBe("bearer:sk-[redacted]");
    expect(redactSecrets("token=xsk-ABCDEFGH12")).toBe("token=xsk-[redacted]");
  });

  it("leaves text without a secret as it is", () => {
    expect(redactSecrets("The chat model answered 500 when asked to grade sources.", ["sk-real-key-1234"])).toBe(
      "The chat model answered 500 when asked to grade sources.",
    );
  });
});
