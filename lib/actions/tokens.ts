"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { authEnabled, requireRole } from "@/lib/auth";
import { bearerToken } from "@/lib/auth/identity";
import { activeToken, createToken, revokeToken, type TokenIssuer } from "@/lib/db/api-tokens";
import { AppError } from "@/lib/core/errors";
import { tokenSchema } from "@/lib/validations/token";
import { formText, toFormState, type FormState } from "./form-state";

export interface CreateTokenState extends FormState<{ name: string; role: string; expires_in_days: string }> {
  /** The new token, shown once: only its hash is stored. */
  token?: string;
}

/** The token a request signed in with (its role and expiry bound what it may create); null for a session. */
async function issuerOf(via: string): Promise<TokenIssuer | null> {
  if (via !== "token") return null;
  const issuer = activeToken(bearerToken((await headers()).get("authorization")) ?? "");
  if (!issuer) throw new AppError("unauthorized", "The token of this request is unknown, revoked or expired.");
  return issuer;
}

export async function createTokenAction(_prev: CreateTokenState, form: FormData): Promise<CreateTokenState> {
  const who = await requireRole("editor");
  if (!authEnabled()) return { message: "Tokens work only with sign-in on: set ADMIN_PASSWORD and restart first." };
  const values = {
    name: formText(form, "name"),
    role: formText(form, "role"),
    expires_in_days: formText(form, "expires_in_days") || "never",
  };
  const parsed = tokenSchema.safeParse(values);
  if (!parsed.success) return toFormState(parsed.error, { message: "No token was created.", values });
  let created: ReturnType<typeof createToken>;
  try {
    created = createToken(parsed.data.name, parsed.data.role, new Date(), parsed.data.expires_in_days, await issuerOf(who.via));
  } catch (err) {
    return toFormState(err, { fields: { forbidden: "expires_in_days" }, values });
  }
  const { token, record } = created;
  revalidatePath("/settings/tokens");
  const expiry = record.expires_at ? `, valid until ${new Date(record.expires_at).toUTCString()}` : "";
  return { token, message: `Token "${record.name}" (${record.role}${expiry}) created. Copy it now: it is not shown again.` };
}

export async function revokeTokenAction(tokenId: number): Promise<void> {
  await requireRole("editor");
  revokeToken(tokenId);
  revalidatePath("/settings/tokens");
}
