"use client";

import { useFormStatus } from "react-dom";

const PRIMARY = "rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60";

/** A form's submit button, disabled with `pendingText` while the form submits; `className` replaces the primary look. */
export function SubmitButton(props: { children: React.ReactNode; pendingText: string; className?: string }) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} aria-disabled={pending} className={props.className ?? PRIMARY}>
      {pending ? props.pendingText : props.children}
    </button>
  );
}
