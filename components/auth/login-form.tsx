"use client";

import { useActionState } from "react";
import { loginAction, type LoginState } from "@/lib/actions/auth";
import { SubmitButton } from "@/components/ui/submit-button";

export function LoginForm({ next }: { next: string }) {
  const [state, action] = useActionState<LoginState, FormData>(loginAction, {});
  return (
    <form action={action} className="space-y-4 rounded border border-slate-200 bg-white p-6">
      <input type="hidden" name="next" value={next} />
      <div className="flex flex-col gap-1">
        <label htmlFor="password" className="text-sm font-medium">
          Password
        </label>
        <input
          id="password"
          name="password"
          type="password"
          required
          autoFocus
          autoComplete="current-password"
          aria-invalid={state.message ? true : undefined}
          aria-describedby="login-error"
          className="rounded border border-slate-300 px-3 py-2 text-sm"
        />
      </div>
      <SubmitButton pendingText="Signing in…">Sign in</SubmitButton>
      <p id="login-error" aria-live="polite" className="text-sm text-red-700">
        {state.message}
      </p>
    </form>
  );
}
