// How Stripe's API reads a form-encoded request body: nested keys (`line_items[0][price]`,
// `metadata[org_id]`) become objects and arrays, unknown parameters are refused by name,
// metadata is held to Stripe's limits, and refusals carry Stripe's error body. Used by the fake
// Stripe API (fake-stripe-api.ts).

export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

/** A parameter's expected shape: a leaf kind, an object of named parameters, or an array of one shape. */
export type Shape = "string" | "integer" | "metadata" | { [key: string]: Shape } | [Shape];

export interface ParamError {
  code: "parameter_unknown" | "parameter_invalid_integer" | "parameter_invalid_string" | "parameter_invalid_empty" | "invalid_metadata";
  param: string;
  message: string;
}

/** Stripe's metadata limits: 50 keys, keys up to 40 characters, values up to 500. */
export const metadataKeysMax = 50;
export const metadataKeyCharsMax = 40;
export const metadataValueCharsMax = 500;

export function parseForm(text: string): FormObject {
  const root: FormObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const head = key.match(/^[^[]+/)?.[0] ?? key;
    const rest = [...key.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((match) => match[1]!);
    let node: FormObject = root;
    for (const [index, segment] of [head, ...rest].entries()) {
      if (index === rest.length) {
        node[segment] = value;
      } else {
        const next = node[segment];
        node = (node[segment] = next !== undefined && typeof next === "object" && !Array.isArray(next) ? next : {}) as FormObject;
      }
    }
  }
  return toArrays(root) as FormObject;
}

// Objects whose keys are exactly 0..n-1 are the arrays the client encoded as `key[i]`.
function toArrays(value: FormValue): FormValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted: FormObject = {};
  for (const key of keys) converted[key] = toArrays(value[key]!);
  const isArray = keys.length > 0 && keys.every((key, index) => key === String(index));
  return isArray ? keys.map((key) => converted[key]!) : converted;
}

/** The first parameter Stripe would refuse, or null. */
export function checkParams(value: FormValue, shape: Shape, path = ""): ParamError | null {
  if (shape === "string" || shape === "integer") {
    if (typeof value !== "string") return { code: "parameter_invalid_string", param: path, message: `Invalid string: ${path} must be a string` };
    if (shape === "integer" && !/^-?\d+$/.test(value)) return { code: "parameter_invalid_integer", param: path, message: `Invalid integer: ${value}` };
    return null;
  }
  if (shape === "metadata") return checkMetadata(value, path);
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return { code: "parameter_invalid_string", param: path, message: `Invalid array: ${path} must be an array` };
    for (const [index, element] of value.entries()) {
      const error = checkParams(element, shape[0], `${path}[${index}]`);
      if (error) return error;
    }
    return null;
  }
  if (typeof value !== "object" || Array.isArray(value)) return { code: "parameter_invalid_string", param: path, message: `Invalid object: ${path} must be an object` };
  for (const [key, inner] of Object.entries(value)) {
    const name = path ? `${path}[${key}]` : key;
    const innerShape = shape[key];
    if (!innerShape) return { code: "parameter_unknown", param: name, message: `Received unknown parameter: ${name}` };
    const error = checkParams(inner, innerShape, name);
    if (error) return error;
  }
  return null;
}

function checkMetadata(value: FormValue, path: string): ParamError | null {
  if (typeof value !== "object" || Array.isArray(value)) return { code: "invalid_metadata", param: path, message: "Invalid metadata: must be a hash" };
  const entries = Object.entries(value);
  if (entries.length > metadataKeysMax) return { code: "invalid_metadata", param: path, message: `Invalid metadata: at most ${metadataKeysMax} keys` };
  for (const [key, inner] of entries) {
    if (typeof inner !== "string") return { code: "invalid_metadata", param: `${path}[${key}]`, message: "Invalid metadata: values must be strings" };
    if (key.length > metadataKeyCharsMax) return { code: "invalid_metadata", param: `${path}[${key}]`, message: `Invalid metadata: keys can be at most ${metadataKeyCharsMax} characters` };
    if (inner.length > metadataValueCharsMax) return { code: "invalid_metadata", param: `${path}[${key}]`, message: `Invalid metadata: values can be at most ${metadataValueCharsMax} characters` };
  }
  return null;
}

export interface StripeErrorBody {
  type: string;
  message: string;
  code?: string;
  param?: string;
}

/** A request Stripe refuses: its status and error body. */
export class RequestError extends Error {
  constructor(readonly status: number, readonly body: StripeErrorBody) {
    super(body.message);
  }
}

export const missing = (kind: string, id: string, param?: string) =>
  new RequestError(404, { type: "invalid_request_error", code: "resource_missing", message: `No such ${kind}: '${id}'`, ...(param ? { param } : {}) });
export const invalid = (message: string, param?: string, code?: string) =>
  new RequestError(400, { type: "invalid_request_error", message, ...(param ? { param } : {}), ...(code ? { code } : {}) });
export const required = (param: string) => invalid(`Missing required param: ${param}.`, param, "parameter_missing");

export function validUrl(value: string | undefined, param: string): string | null {
  if (value === undefined) return null;
  if (!URL.canParse(value)) throw invalid("Not a valid URL", param, "url_invalid");
  return value;
}

