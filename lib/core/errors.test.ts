import { describe, expect, it } from "vitest";
import {
  AppError,
  ERROR_STATUS,
  conflict,
  describeFailure,
  failureCode,
  isVectorStoreUnavailable,
  markNotServed,
  notFound,
} from "./errors";

describe("AppError", () => {
  it("takes its status from the code", () => {
    const err = new AppError("conflict", 'An agent named "Billing" already exists.');
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ status: 409, code: "conflict", message: 'An agent named "Billing" already exists.' });
    expect(new AppError("vector_store_unavailable", "Try again.").status).toBe(503);
    expect(notFound("Agent 7")).toMatchObject({ status: 404, code: "not_found", message: "Agent 7 was not found." });
    expect(conflict("x").status).toBe(ERROR_STATUS.conflict);
  });
});

// tsc --noEmit fails here if AppError ever accepts a code outside ERROR_STATUS.
// @ts-expect-error "teapot" is not an ErrorCode
const _teapot = () => new AppError("teapot", "short and stout");

describe("describeFailure and failureCode", () => {
  const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8000"), { code: "ECONNREFUSED" });

  it("give the app's own errors their own words and code", async () => {
    const { EmbeddingError } = await import("../embeddings/types");
    const { RejectedFileError } = await import("../extract/errors");
    expect(describeFailure(conflict("Busy."), "search")).toBe("Busy.");
    expect(failureCode(conflict("Busy."))).toBe("conflict");
    const provider = new EmbeddingError("OpenAI answered 401.", "openai", 401, { cause: refused() });
    expect(describeFailure(provider)).toBe("The embedding provider failed: OpenAI answered 401.");
    expect(failureCode(provider)).toBe("embedding_failed");
    const rejected = new RejectedFileError("too_large", '"a.pdf" is too large.');
    expect(describeFailure(rejected)).toBe('"a.pdf" is too large.');
    expect(failureCode(rejected)).toBe("rejected_too_large");
    expect(ERROR_STATUS[failureCode(rejected)]).toBe(413);
  });

  it("say Chroma did not answer, with what that meant where it is said", () => {
    const err = new TypeError("fetch failed", { cause: refused() });
    expect(failureCode(err)).toBe("vector_store_unavailable");
    expect(describeFailure(err, "search")).toBe("The vector store (Chroma) did not answer, so nothing was changed. Try again in a moment.");
    expect(describeFailure(err, "evaluation", { unavailable: "the evaluation stopped" })).toBe(
      "The vector store (Chroma) did not answer, so the evaluation stopped. Try again in a moment.",
    );
  });

  it("keep anything else's text out of the message", () => {
    const bug = new Error("Cannot read properties of undefined (reading 'id') at /srv/app/lib/x.ts");
    expect(failureCode(bug)).toBe("internal");
    expect(describeFailure(bug, "search")).toBe("The search failed on the server; the details are in its log.");
    expect(describeFailure(bug)).toBe("Something went wrong on the server; the details are in its log.");
    expect(describeFailure("a string", "sync", { unexpected: "The sync stopped." })).toBe("The sync stopped.");
  });
});

describe("isVectorStoreUnavailable", () => {
  class DriverError extends Error {}
  class DriverServerError extends DriverError {}
  class DriverBusyError extends DriverServerError {}
  markNotServed(DriverError, (e) => e.message.startsWith("down"));
  markNotServed(DriverBusyError);

  it("knows a driver's errors by the mark its adapter set, subclasses included", () => {
    expect(isVectorStoreUnavailable(new DriverError("down for maintenance"))).toBe(true);
    expect(isVectorStoreUnavailable(new DriverServerError("down: 502"))).toBe(true);
    expect(isVectorStoreUnavailable(new DriverServerError("record not found"))).toBe(false);
    expect(isVectorStoreUnavailable(new DriverBusyError("record not found"))).toBe(true);
    expect(isVectorStoreUnavailable(new Error("wrapped", { cause: new DriverError("down") }))).toBe(true);
  });

  it("stops at the app's own errors along the causes", () => {
    const err = new Error("wrapped", { cause: new AppError("conflict", "Busy.") });
    expect(isVectorStoreUnavailable(err)).toBe(false);
    expect(isVectorStoreUnavailable(new AppError("vector_store_unavailable", "Try again."))).toBe(false);
    expect(isVectorStoreUnavailable(new DOMException("The operation was aborted due to timeout", "TimeoutError"))).toBe(true);
  });
});
