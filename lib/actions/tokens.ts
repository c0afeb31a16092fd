"use server";

import { revalidatePath } from "next/cache";
import { authEnabled, requireRole } from "@/lib/auth";
import { createToken, revokeToken } from "@/lib/db/api-tokens";
import { tokenSchema } from "@/lib/validations/token";

export interface CreateTokenState {
  message?: string;
  errors?: Record<string, string[] | undefined>;
  /** The new token, shown once: only its hash is stored. */
  token?: string;
}

export async function createTokenAction(_prev: CreateTokenState, form: FormData): Promise<CreateTokenState> {
  await requireRole("editor");
  if (!authEnabled()) return { message: "Tokens work only with sign-in on: set ADMIN_PASSWORD and restart first." };
  const parsed = tokenSchema.safeParse({ name: form.get("name"), role: form.get("role") });
  if (!parsed.success) return { message: "No token was created.", errors: parsed.error.flatten().fieldErrors };
  const { token, record } = createToken(parsed.data.name, parsed.data.role);
  revalidatePath("/settings/tokens");
  return { token, message: `Token "${record.name}" (${record.role}) created. Copy it now: it is not shown again.` };
}

export async function revokeTokenAction(tokenId: number): Promise<void> {
  await requireRole("editor");
  revokeToken(tokenId);
  revalidatePath("/settings/tokens");
}
