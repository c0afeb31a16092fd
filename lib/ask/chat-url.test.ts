import { describe, expect, it } from "vitest";

// OPENAI_BASE_URL may carry a proxy's user and password, or a key in its query: users read the
// chat model's errors (ask answers, the health banner), so those never show them. Port 9 on
// loopback: nothing listens there, so the call fails at once.
process.env.OPENAI_CHAT_MODEL = "test-chat";
process.env.OPENAI_BASE_URL = "http://proxy-user:pr0xy-s3cret@127.0.0.1:9/v1?api-key=qu3ry-s3cret";

const { chatModel, ChatError } = await import("./chat");
const { shownUrl } = await import("../embeddings/openai/errors");

describe("the chat model's errors", () => {
  it("name the server without the credentials of OPENAI_BASE_URL", async () => {
    const err = await chatModel()!
      .grade("refund days", [{ label: "a.md #1", text: "Refunds take 5 days." }])
      .catch((e) => e);
    expect(err).toBeInstanceOf(ChatError);
    expect(err.message).toContain("test-chat at http://127.0.0.1:9/v1");
    expect(err.message).not.toMatch(/s3cret|proxy-user/);
  });

  it("shownUrl keeps scheme, host, port and path only", () => {
    expect(shownUrl("https://u:p@llm.example:8443/v1/?key=x#frag")).toBe("https://llm.example:8443/v1");
    expect(shownUrl("not a url")).toBeNull();
  });
});
