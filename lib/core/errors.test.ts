import { describe, expect, it } from "vitest";
import { AppError, ERROR_STATUS, conflict, notFound } from "./errors";

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
const teapot = () => new AppError("teapot", "short and stout");
