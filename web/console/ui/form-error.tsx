// The error of a form's last submit, if any, above its fields.
import { describeError } from "../api/errors.ts";
import { Alert } from "./alert.tsx";

export function FormError({ error }: { error: unknown }) {
  return error === null ? null : <Alert tone="error">{describeError(error)}</Alert>;
}
