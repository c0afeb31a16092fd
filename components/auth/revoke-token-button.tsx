"use client";

import { revokeTokenAction } from "@/lib/actions/tokens";
import { ConfirmButton } from "@/components/ui/confirm-button";

export function RevokeTokenButton({ tokenId, name }: { tokenId: number; name: string }) {
  return (
    <ConfirmButton
      question={`Revoke "${name}"? Requests with it are refused at once; this cannot be undone.`}
      pendingText="Revoking…"
      onConfirm={() => revokeTokenAction(tokenId)}
    >
      Revoke<span className="sr-only"> {name}</span>
    </ConfirmButton>
  );
}
