// What went wrong with a call, in words a person can act on. The service answers errors as
// {error: {code, message}} with a message meant for people; those are shown as sentences.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The error a non-2xx answer carries, or a generic one named after its status. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  try {
    const { error } = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof error?.code === "string" && typeof error.message === "string") return new ApiError(response.status, error.code, error.message);
  } catch {
    // Not JSON (a proxy's page, a cut connection): described by its status below.
  }
  return new ApiError(response.status, "http_error", `the server answered ${response.status} ${response.statusText}`.trim());
}

const sentence = (text: string) => {
  const trimmed = text.trim();
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
};

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status >= 500 && error.code !== "unavailable") return "The server could not answer. Try again in a moment.";
    return sentence(error.message);
  }
  // fetch rejects with a TypeError when the request never got an answer.
  if (error instanceof TypeError) return "Cannot reach the server. Check your connection, then try again.";
  return sentence(error instanceof Error ? error.message : String(error));
}
