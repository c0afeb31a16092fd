"use client";

import { useActionState } from "react";
import { createTokenAction, type CreateTokenState } from "@/lib/actions/tokens";
import { SubmitButton } from "@/components/ui/submit-button";
import { TOKEN_EXPIRY_DAYS } from "@/lib/validations/token";

export function CreateTokenForm() {
  const [state, action] = useActionState<CreateTokenState, FormData>(createTokenAction, {});
  const error =
    state.errors?.name?.[0] ?? state.errors?.role?.[0] ?? state.errors?.expires_in_days?.[0] ?? (state.token ? undefined : state.message);
  // After a failure the form shows what was submitted; after a token is created, it is empty again.
  const values = state.values;
  return (
    <form action={action} className="space-y-3 rounded border border-slate-200 bg-white p-4" aria-describedby="token-status">
      <h2 className="font-semibold">New token</h2>
      <div className="flex flex-wrap items-end gap-4">
        <div className="flex flex-col gap-1">
          <label htmlFor="token-name" className="text-sm font-medium">
            Token name
          </label>
          <input
            id="token-name"
            name="name"
            required
            maxLength={80}
            placeholder="e.g. CI recall gate"
            defaultValue={values?.name}
            aria-invalid={state.errors?.name ? true : undefined}
            aria-describedby="token-status"
            className="w-64 rounded border border-slate-300 px-3 py-2 text-sm"
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="token-role" className="text-sm font-medium">
            Role
          </label>
          {/* A select takes its defaultValue only when it mounts: the key remounts it for each value submitted. */}
          <select
            key={values?.role ?? "viewer"}
            id="token-role"
            name="role"
            defaultValue={values?.role ?? "viewer"}
            aria-invalid={state.errors?.role ? true : undefined}
            aria-describedby="token-status"
            className="rounded border border-slate-300 px-3 py-2 text-sm"
          >
            <option value="viewer">viewer (read, search, run evaluations)</option>
            <option value="editor">editor (also upload, delete, change settings)</option>
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="token-expiry" className="text-sm font-medium">
            Expires
          </label>
          <select
            key={values?.expires_in_days ?? "never"}
            id="token-expiry"
            name="expires_in_days"
            defaultValue={values?.expires_in_days ?? "never"}
            aria-invalid={state.errors?.expires_in_days ? true : undefined}
            aria-describedby="token-status"
            className="rounded border border-slate-300 px-3 py-2 text-sm"
          >
            <option value="never">never (until revoked)</option>
            {TOKEN_EXPIRY_DAYS.map((d) => (
              <option key={d} value={String(d)}>
                in {d} days
              </option>
            ))}
          </select>
        </div>
        <SubmitButton pendingText="Creating…">Create token</SubmitButton>
      </div>
      <div id="token-status" aria-live="polite" className="text-sm">
        {error && <p className="text-red-700">{error}</p>}
        {state.token && (
          <div className="space-y-2 rounded border border-green-200 bg-green-50 p-3">
            <p className="text-green-900">{state.message}</p>
            <label className="flex flex-col gap-1 font-medium text-green-900">
              New token
              <input
                readOnly
                value={state.token}
                onFocus={(e) => e.currentTarget.select()}
                className="rounded border border-green-300 bg-white px-2 py-1 font-mono text-xs font-normal"
              />
            </label>
          </div>
        )}
      </div>
    </form>
  );
}
