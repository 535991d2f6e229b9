import { ApiError } from "../../http/errors.ts";

// Why a send request was refused. `field` is the request path of the offending value
// (`to[2]`, `headers["X-Campaign"]`, `template.variables["name"]`) so a client can point at
// it; the message starts with the same path, so the spec's `{error: {code, message}}` body
// names the field too.
export type ComposeErrorCode =
  | "missing_field"
  | "invalid_type"
  | "unknown_field"
  | "forbidden_character"
  | "invalid_address"
  | "invalid_value"
  | "too_many"
  | "too_long"
  | "too_large"
  | "duplicate"
  | "reserved_header"
  | "template_not_found"
  | "template_variable_missing";

const requestTooLargeStatus = 413;
const unprocessableStatus = 422;

export class ComposeError extends ApiError {
  constructor(
    readonly field: string,
    override readonly code: ComposeErrorCode,
    detail: string,
  ) {
    super(code === "too_large" ? requestTooLargeStatus : unprocessableStatus, code, `${field}: ${detail}`);
  }
}

const quotedKeyLengthMax = 64;

/** A client-chosen key as it appears in a field path: JSON-quoted (so control characters
 * show escaped, never raw, in messages and logs) and cut short. */
export function quotedKey(key: string): string {
  return JSON.stringify(key.length > quotedKeyLengthMax ? `${key.slice(0, quotedKeyLengthMax)}…` : key);
}
