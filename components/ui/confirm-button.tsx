"use client";

import { useTransition } from "react";

const LOOK = {
  solid: "rounded bg-red-700 px-4 py-2 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-50",
  outline: "rounded border border-red-300 px-2 py-1 text-xs text-red-700 hover:bg-red-50 disabled:opacity-50",
  link: "text-red-700 underline disabled:opacity-50",
};

/** A button for what cannot be undone: it asks first, then shows pendingText until the action finishes. */
export function ConfirmButton(props: {
  question: string;
  onConfirm: () => Promise<unknown> | void;
  pendingText: string;
  look?: keyof typeof LOOK;
  /** The accessible name, when the visible text alone does not say what is acted on. */
  label?: string;
  children: React.ReactNode;
}) {
  const [pending, start] = useTransition();
  return (
    <button
      type="button"
      disabled={pending}
      aria-label={props.label}
      onClick={() => {
        if (!confirm(props.question)) return;
        start(async () => {
          await props.onConfirm();
        });
      }}
      className={LOOK[props.look ?? "outline"]}
    >
      {pending ? props.pendingText : props.children}
    </button>
  );
}
