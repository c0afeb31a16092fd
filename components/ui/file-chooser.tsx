"use client";

import { useEffect, useRef, useState, type Ref } from "react";

interface FileChooserProps {
  /** The input's accessible name, e.g. "Files". */
  label: string;
  accept: string;
  multiple?: boolean;
  name?: string;
  required?: boolean;
  describedBy?: string;
  /** What the button says. */
  buttonText?: string;
  /** What is chosen, when the parent holds the files (drag and drop); otherwise the chooser says it. */
  chosen?: string;
  onChoose?: (files: FileList | null) => void;
  inputRef?: Ref<HTMLInputElement>;
}

const chosenText = (files: FileList | null) =>
  !files || files.length === 0 ? "" : files.length === 1 ? files[0].name : `${files.length} files selected`;

/**
 * A file input that looks like the app's buttons: the input stays in the tab order, visually
 * hidden, and its label is the button; the names chosen are said beside it.
 */
export function FileChooser({
  label,
  accept,
  multiple,
  name,
  required,
  describedBy,
  buttonText = "Choose files",
  chosen,
  onChoose,
  inputRef,
}: FileChooserProps) {
  const own = useRef<HTMLInputElement>(null);
  const [picked, setPicked] = useState("");
  // A form action resets its form when it is done; the names said here follow the emptied input.
  useEffect(() => {
    const form = own.current?.form;
    if (!form) return;
    const clear = () => setPicked("");
    form.addEventListener("reset", clear);
    return () => form.removeEventListener("reset", clear);
  }, []);
  const setRefs = (el: HTMLInputElement | null) => {
    own.current = el;
    if (typeof inputRef === "function") inputRef(el);
    // The caller's ref object is filled as React fills refs (a merged ref).
    // eslint-disable-next-line react-hooks/immutability
    else if (inputRef) inputRef.current = el;
  };
  const said = chosen ?? picked;
  return (
    <span className="inline-flex flex-wrap items-center gap-3 text-sm">
      <label className="cursor-pointer rounded border border-slate-300 bg-slate-50 px-3 py-1.5 font-medium hover:bg-slate-100 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-blue-700">
        {buttonText}
        <input
          // The merged ref above fills the caller's ref object, as React fills refs.
          // eslint-disable-next-line react-hooks/immutability
          ref={setRefs}
          type="file"
          name={name}
          multiple={multiple}
          accept={accept}
          required={required}
          className="sr-only"
          aria-label={label}
          aria-describedby={describedBy}
          onChange={(e) => {
            setPicked(chosenText(e.target.files));
            onChoose?.(e.target.files);
          }}
        />
      </label>
      <span className="text-slate-600" aria-live="polite">
        {said}
      </span>
    </span>
  );
}
