"use server";

import { revalidatePath } from "next/cache";
import { authEnabled, requireRole } from "@/lib/auth";
import { createToken, revokeToken } from "@/lib/db/api-tokens";
import { tokenSchema } from "@/lib/validations/token";
import { formText, toFormState, type FormState } from "./form-state";

export interface CreateTokenState extends FormState<{ name: string; role: string; expires_in_days: string }> {
  /** The new token, shown once: only its hash is stored. */
  token?: string;
}

export async function createTokenAction(_prev: CreateTokenState, form: FormData): Promise<CreateTokenState> {
  await requireRole("editor");
  if (!authEnabled()) return { message: "Tokens work only with sign-in on: set ADMIN_PASSWORD and restart first." };
  const values = { name: formText(form, "name"), role: formText(form, "role"), expires_in_days: formText(form, "expires_in_days") || "never" };
  const parsed = tokenSchema.safeParse(values);
  if (!parsed.success) return toFormState(parsed.error, { message: "No token was created.", values });
  const { token, record } = createToken(parsed.data.name, parsed.data.role, new Date(), parsed.data.expires_in_days);
  revalidatePath("/settings/tokens");
  const expiry = record.expires_at ? `, valid until ${new Date(record.expires_at).toUTCString()}` : "";
  return { token, message: `Token "${record.name}" (${record.role}${expiry}) created. Copy it now: it is not shown again.` };
}

export async function revokeTokenAction(tokenId: number): Promise<void> {
  await requireRole("editor");
  revokeToken(tokenId);
  revalidatePath("/settings/tokens");
}
