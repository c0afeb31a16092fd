import { describe, expect, it } from "vitest";
import { passwordMatches, roleForPassword } from "./passwords";

describe("passwords", () => {
  it("matches only the exact password, whatever the lengths", () => {
    expect(passwordMatches("correct horse", "correct horse")).toBe(true);
    expect(passwordMatches("correct hors", "correct horse")).toBe(false);
    expect(passwordMatches("correct horse battery", "correct horse")).toBe(false);
    expect(passwordMatches("", "correct horse")).toBe(false);
  });

  it("signs the admin password in as editor and the viewer password as viewer", () => {
    expect(roleForPassword("admin-pass", "admin-pass", "viewer-pass")).toBe("editor");
    expect(roleForPassword("viewer-pass", "admin-pass", "viewer-pass")).toBe("viewer");
    expect(roleForPassword("guess-pass", "admin-pass", "viewer-pass")).toBeNull();
    expect(roleForPassword("viewer-pass", "admin-pass")).toBeNull();
  });
});
