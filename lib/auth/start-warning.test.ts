import { describe, expect, it } from "vitest";
import { openAccessWarning } from "./start-warning.mjs";

describe("the launcher's access warning", () => {
  it("says, with sign-in off, that only this machine is answered and what a proxy deployment needs", () => {
    const w = openAccessWarning({})!;
    expect(w).toMatch(/Sign-in is off/);
    expect(w).toMatch(/localhost, 127\.0\.0\.1, \[::1\]/);
    expect(w).toMatch(/set ADMIN_PASSWORD, put the public name in ALLOWED_HOSTS/);
    expect(w).toContain("TRUST_PROXY=1");
  });

  it("names ALLOWED_HOSTS and TRUST_PROXY set in vain", () => {
    const w = openAccessWarning({ ALLOWED_HOSTS: "kb.example.com", TRUST_PROXY: true })!;
    expect(w).toContain("ALLOWED_HOSTS=kb.example.com is refused while sign-in is off");
    expect(w).toContain("TRUST_PROXY=1 has no effect");
  });

  it("says nothing with sign-in on", () => {
    expect(openAccessWarning({ ADMIN_PASSWORD: "long-enough", ALLOWED_HOSTS: "kb.example.com" })).toBeNull();
  });
});
