import { describe, expect, it } from "vitest";
import { conflict, notFound } from "@/lib/core/errors";
import { agentSchema } from "@/lib/validations/agent";
import { pairSchema } from "@/lib/validations/pair";
import { formList, formText, toFormState } from "./form-state";

describe("toFormState", () => {
  it("turns an AppError into its message, on the field its code names, with what was submitted", () => {
    const values = { name: "Support bot", tools: ["document_search"] };
    const state = toFormState(conflict('An agent named "Support bot" already exists.'), {
      message: "The agent was not created.",
      fields: { conflict: "name" },
      values,
    });
    expect(state).toEqual({
      message: 'An agent named "Support bot" already exists.',
      errors: { name: ['An agent named "Support bot" already exists.'] },
      values,
    });
  });

  it("keeps an AppError whose code names no field as the message only", () => {
    expect(toFormState(notFound("Labeled pair 7"), { fields: { conflict: "query" } })).toEqual({
      message: "Labeled pair 7 was not found.",
    });
  });

  it("turns the ZodError of a failed safeParse into errors by field under the lead message", () => {
    const values = { query: "  ", expected: "", note: "" };
    const parsed = pairSchema.safeParse(values);
    expect(parsed.success).toBe(false);
    const state = toFormState(parsed.error, { message: "The pair was not added.", values });
    expect(state.message).toBe("The pair was not added.");
    expect(state.errors).toEqual({ query: ["The query is empty."], expected: ["Choose the expected document."] });
    expect(state.values).toBe(values);
  });

  it("without a lead message, says what every issue is", () => {
    const parsed = agentSchema.safeParse({ name: "", tools: ["shell"] });
    const state = toFormState(parsed.error);
    expect(state.message).toContain("Name is required.");
    expect(state.errors?.name).toEqual(["Name is required."]);
    expect(state.errors?.tools?.length).toBe(1);
  });

  it("rethrows any other error, for the route's error page", () => {
    const bug = new TypeError("Cannot read properties of undefined");
    expect(() => toFormState(bug, { message: "The agent was not created." })).toThrow(bug);
    expect(() => toFormState("a string")).toThrow();
  });
});

describe("formText and formList", () => {
  it("read text fields, leaving out missing fields and files", () => {
    const form = new FormData();
    form.set("name", "Support bot");
    form.append("tools", "document_search");
    form.append("tools", new Blob(["x"]), "x.txt");
    form.set("file", new Blob(["x"]), "x.txt");
    expect(formText(form, "name")).toBe("Support bot");
    expect(formText(form, "note")).toBe("");
    expect(formText(form, "file")).toBe("");
    expect(formList(form, "tools")).toEqual(["document_search"]);
    expect(formList(form, "none")).toEqual([]);
  });
});
