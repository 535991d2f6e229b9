// A relay (smart host) given as a URL: smtp://user:pass@host:port (STARTTLS required unless
// ?starttls=opportunistic or ?starttls=never) or smtps://user:pass@host:port (TLS from the
// first byte). The relay's certificate is verified unless ?verify_certificate=false.

export type StartTlsPolicy = "required" | "opportunistic" | "never";
export type RelayConfig = {
  host: string;
  port: number;
  implicitTls: boolean;
  startTls: StartTlsPolicy;
  verifyCertificate: boolean;
  credentials: { user: string; pass: string } | null;
};

export const submissionPort = 587;
export const submissionsPort = 465;

export class RelayUrlError extends Error {
  readonly code = "invalid_relay_url";
}

const startTlsPolicies: StartTlsPolicy[] = ["required", "opportunistic", "never"];
const knownParameters = new Set(["starttls", "verify_certificate"]);

export function parseRelayUrl(text: string): RelayConfig {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RelayUrlError("the relay URL is not a URL");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new RelayUrlError(`the relay URL must start with smtp:// or smtps://, not ${url.protocol}//`);
  if (!url.hostname) throw new RelayUrlError("the relay URL has no host");
  for (const name of url.searchParams.keys()) {
    if (!knownParameters.has(name)) throw new RelayUrlError(`unknown relay URL parameter ${JSON.stringify(name)}`);
  }
  const implicitTls = url.protocol === "smtps:";
  const startTlsParameter = url.searchParams.get("starttls") ?? "required";
  if (!startTlsPolicies.includes(startTlsParameter as StartTlsPolicy)) {
    throw new RelayUrlError(`starttls must be one of ${startTlsPolicies.join(", ")}`);
  }
  if (implicitTls && url.searchParams.has("starttls")) throw new RelayUrlError("starttls does not apply to smtps://, which is TLS from the start");
  const verifyParameter = url.searchParams.get("verify_certificate") ?? "true";
  if (verifyParameter !== "true" && verifyParameter !== "false") throw new RelayUrlError("verify_certificate must be true or false");
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port ? Number(url.port) : implicitTls ? submissionsPort : submissionPort,
    implicitTls,
    startTls: implicitTls ? "never" : (startTlsParameter as StartTlsPolicy),
    verifyCertificate: verifyParameter === "true",
    credentials: user || pass ? { user, pass } : null,
  };
}

/** The URL without its password, for logs and error messages. */
export function redactRelayUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = "redacted";
    return url.toString();
  } catch {
    return "[unparseable relay URL]";
  }
}
