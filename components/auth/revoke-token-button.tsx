"use client";

import { useTransition } from "react";
import { revokeTokenAction } from "@/lib/actions/tokens";

export function RevokeTokenButton({ tokenId, name }: { tokenId: number; name: string }) {
  const [pending, start] = useTransition();
  return (
    <button
      type="button"
      disabled={pending}
      onClick={() => {
        if (!confirm(`Revoke "${name}"? Requests with it are refused at once; this cannot be undone.`)) return;
        start(() => revokeTokenAction(tokenId));
      }}
      className="rounded border border-red-300 px-2 py-1 text-xs text-red-700 hover:bg-red-50 disabled:opacity-50"
    >
      {pending ? "Revoking…" : <>Revoke<span className="sr-only"> {name}</span></>}
    </button>
  );
}
