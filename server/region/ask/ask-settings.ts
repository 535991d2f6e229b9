// Ask's model settings (README, "Configuration"; docs/ask.md): any OpenAI-compatible
// chat-completions endpoint with tool calling. Without a base URL and a model, POST /ask answers
// 503 saying how to configure one; the conversation routes still work.

/**
 * No model call starts after this much time on a question, and one gets at most what is left.
 * With a last query's time-out on top it stays under Bun's largest idle time-out (255 s), which
 * the service sets for POST /ask.
 */
export const askQuestionTimeoutMs = 210_000;
/** Default time a single model call may take (ASK_TIMEOUT_MS). */
export const askTimeoutMsDefault = 60_000;
export const askTimeoutMsMin = 100;
/** A longer call could never finish within a question's time. */
export const askTimeoutMsMax = askQuestionTimeoutMs;

export interface AskSettings {
  /** The endpoint's base URL, up to `/v1` (the client appends `/chat/completions`). */
  baseUrl: string;
  model: string;
  /** Sent as a Bearer token; null for local servers that need none (no Authorization header then). */
  apiKey: string | null;
  /** Per model call. */
  timeoutMs: number;
}

export class AskSettingsError extends Error {}

/** How to turn Ask on: the 503's message and the settings error say the same. */
export const askConfigureHint =
  "set ASK_BASE_URL (an OpenAI-compatible chat-completions endpoint, e.g. http://localhost:11434/v1 for Ollama) and ASK_MODEL (e.g. qwen2.5:7b), and ASK_API_KEY if the endpoint needs one";

export function parseAskSettings(env: Record<string, string | undefined>): AskSettings | null {
  const baseUrl = env.ASK_BASE_URL?.trim() ?? "";
  const model = env.ASK_MODEL?.trim() ?? "";
  const apiKey = env.ASK_API_KEY?.trim() || null;
  const rawTimeout = env.ASK_TIMEOUT_MS?.trim() ?? "";
  let timeoutMs = askTimeoutMsDefault;
  if (rawTimeout !== "") {
    timeoutMs = Number(rawTimeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs < askTimeoutMsMin || timeoutMs > askTimeoutMsMax) {
      throw new AskSettingsError(`ASK_TIMEOUT_MS must be an integer from ${askTimeoutMsMin} to ${askTimeoutMsMax}, got "${rawTimeout.slice(0, 40)}"`);
    }
  }
  if (baseUrl === "" && model === "") {
    if (apiKey !== null) throw new AskSettingsError(`ASK_API_KEY is set but Ask has no model: ${askConfigureHint}`);
    return null;
  }
  if (baseUrl === "" || model === "") throw new AskSettingsError(`Ask needs both ASK_BASE_URL and ASK_MODEL: ${askConfigureHint}`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new AskSettingsError(`ASK_BASE_URL must be an http(s) URL such as http://localhost:11434/v1, got "${baseUrl.slice(0, 200)}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AskSettingsError(`ASK_BASE_URL must be an http(s) URL such as http://localhost:11434/v1, got "${baseUrl.slice(0, 200)}"`);
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ""), model, apiKey, timeoutMs };
}
