import { ZodError, z } from "zod";
import { AppError } from "@/lib/core/errors";

export type FieldErrors = Record<string, string[] | undefined>;

/** What a form shows after its action ran. */
export interface FormState<V extends object = Record<string, string>> {
  ok?: boolean;
  message?: string;
  errors?: FieldErrors;
  /** What was submitted, returned on failure so the form shows it again instead of emptying. */
  values?: V;
}

export interface FailureOptions<V extends object> {
  /** Leads the message when the input fails its schema; an AppError brings its own message. */
  message?: string;
  /** The field an AppError is about, by its code, so its message shows beside that field. */
  fields?: Partial<Record<AppError["code"], string>>;
  values?: V;
}

/**
 * Turns an expected failure (an AppError, or the ZodError of a failed `safeParse`) into form
 * state; anything else is rethrown, so the route's error.tsx shows it and its text stays on the server.
 */
export function toFormState<V extends object>(err: unknown, { message, fields, values }: FailureOptions<V> = {}): FormState<V> {
  if (err instanceof AppError) {
    const field = fields?.[err.code];
    return { message: err.message, ...(field && { errors: { [field]: [err.message] } }), ...(values && { values }) };
  }
  if (err instanceof ZodError) {
    const { formErrors, fieldErrors } = z.flattenError(err);
    // Issues that belong to no field have nowhere else to show.
    const text = message ? [message, ...formErrors].join(" ") : err.issues.map((i) => i.message).join(" ");
    return { message: text, errors: fieldErrors as FieldErrors, ...(values && { values }) };
  }
  throw err;
}

/** A text field as submitted: "" when it is missing or holds a file. */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

/** Every text value of a field that may repeat, such as a group of checkboxes. */
export function formList(form: FormData, name: string): string[] {
  return form.getAll(name).filter((v): v is string => typeof v === "string");
}
