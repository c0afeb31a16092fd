"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { authConfig, sessionKeys } from "@/lib/auth/config";
import { roleForPassword } from "@/lib/auth/passwords";
import { safeNextPath } from "@/lib/auth/request-rules";
import { SESSION_COOKIE, signSession } from "@/lib/auth/session";
import { endSession } from "@/lib/auth/identity";
import { clientAddress } from "@/lib/auth/peer";
import { authState } from "@/lib/auth/state";
import { env } from "@/lib/env.mjs";

export interface LoginState {
  message?: string;
}

const throttle = () => authState().loginThrottle;

export async function loginAction(_prev: LoginState, form: FormData): Promise<LoginState> {
  const config = authConfig();
  const next = safeNextPath(form.get("next"));
  if (!config.enabled) redirect(next);
  const h = await headers();
  const client = clientAddress(h, env().TRUST_PROXY);
  const wait = throttle().begin(client);
  if (wait > 0) return { message: `Too many failed sign-ins. Try again in ${Math.ceil(wait / 1000)} s.` };
  const password = form.get("password");
  const role =
    typeof password === "string" && password.length <= 1024
      ? roleForPassword(password, config.adminPassword!, config.viewerPassword)
      : null;
  if (!role) {
    // Each wrong guess also costs time.
    await new Promise((r) => setTimeout(r, 500));
    return { message: "That password is not right." };
  }
  throttle().succeeded(client);
  const token = await signSession(role, sessionKeys(), config.maxAgeSeconds);
  (await cookies()).set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    secure: h.get("x-forwarded-proto")?.split(",")[0].trim() === "https",
    path: "/",
    maxAge: config.maxAgeSeconds,
  });
  redirect(next);
}

export async function logoutAction(): Promise<void> {
  const jar = await cookies();
  await endSession(jar.get(SESSION_COOKIE)?.value);
  jar.delete(SESSION_COOKIE);
  redirect("/login");
}
