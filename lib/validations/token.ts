import { z } from "zod";

export const ROLES = ["viewer", "editor"] as const;

export const tokenSchema = z.object({
  name: z.string().trim().min(1, "Name the token, e.g. after the script that uses it.").max(80, "Name is at most 80 characters."),
  role: z.enum(ROLES, "Pick viewer or editor."),
});

export type TokenInput = z.input<typeof tokenSchema>;
