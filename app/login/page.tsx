import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { authEnabled, currentIdentity } from "@/lib/auth";
import { safeNextPath } from "@/lib/auth/request-rules";
import { LoginForm } from "@/components/auth/login-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in · KB Inspector" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
  const target = safeNextPath(Array.isArray(next) ? next[0] : next);
  if (!authEnabled() || (await currentIdentity())) redirect(target);
  return (
    <div className="mx-auto max-w-sm space-y-4">
      <h1 className="text-2xl font-semibold">Sign in</h1>
      <p className="text-sm text-slate-600">
        The editor password can change everything; the viewer password can browse, search, inspect and run recall evaluations.
      </p>
      <LoginForm next={target} />
    </div>
  );
}
