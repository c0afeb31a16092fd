import { z } from "zod";

export const ROLES = ["viewer", "editor"] as const;
export const TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;

export const tokenSchema = z.object({
  name: z.string().trim().min(1, "Name the token, e.g. after the script that uses it.").max(80, "Name is at most 80 characters."),
  role: z.enum(ROLES, "Pick viewer or editor."),
  /** Days until the token stops working; "never" (the default) keeps it until it is revoked. */
  expires_in_days: z
    .enum(
      ["never", ...TOKEN_EXPIRY_DAYS.map(String)] as [string, ...string[]],
      `Pick never or one of ${TOKEN_EXPIRY_DAYS.join(", ")} days.`,
    )
    .default("never")
    .transform((v) => (v === "never" ? null : Number(v))),
});

export type TokenInput = z.input<typeof tokenSchema>;
