import { describe, expect, it } from "vitest";
import { parseEnv } from "../env.mjs";

describe("access settings in the environment", () => {
  it("defaults to 12-hour sessions and no viewer password", () => {
    const env = parseEnv({ ADMIN_PASSWORD: "admin-password-1" });
    expect(env.SESSION_MAX_AGE_HOURS).toBe(12);
    expect(env.VIEWER_PASSWORD).toBeUndefined();
    expect(parseEnv({ SESSION_MAX_AGE_HOURS: "0.5" }).SESSION_MAX_AGE_HOURS).toBe(0.5);
    expect(() => parseEnv({ SESSION_MAX_AGE_HOURS: "0" })).toThrow(/SESSION_MAX_AGE_HOURS/);
  });

  it("needs ADMIN_PASSWORD for a viewer password, a different one, of 8 characters or more", () => {
    expect(() => parseEnv({ VIEWER_PASSWORD: "viewer-password-1" })).toThrow(/VIEWER_PASSWORD: needs ADMIN_PASSWORD/);
    expect(() => parseEnv({ ADMIN_PASSWORD: "same-password", VIEWER_PASSWORD: "same-password" })).toThrow(/must differ/);
    expect(() => parseEnv({ ADMIN_PASSWORD: "admin-password-1", VIEWER_PASSWORD: "short" })).toThrow(/VIEWER_PASSWORD: must be at least 8/);
    expect(parseEnv({ ADMIN_PASSWORD: "admin-password-1", VIEWER_PASSWORD: "viewer-password-1" }).VIEWER_PASSWORD).toBe(
      "viewer-password-1",
    );
  });

  it("never repeats a password in its error message", () => {
    expect(() => parseEnv({ ADMIN_PASSWORD: "s3cr3t" })).toThrow(/ADMIN_PASSWORD: must be/);
    try {
      parseEnv({ ADMIN_PASSWORD: "s3cr3t" });
    } catch (err) {
      expect((err as Error).message).not.toContain("s3cr3t");
    }
  });
});
