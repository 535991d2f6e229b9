// What the service prints once it listens, after the "listening on" line: where clients reach
// it and what to do first, so a first `npm start` tells a new user how to begin: open the web
// console, which signs them up and walks them to their first event.

export interface GatewayGuide {
  /** The root key this start made, printed this once; null when configured or made before. */
  createdRootKey: string | null;
  /** Where a made root key is kept. */
  rootKeyFile: string;
  /** GATEWAY_ROOT_KEY is set. */
  rootKeyConfigured: boolean;
}

function gatewayKeyLine({ createdRootKey, rootKeyFile, rootKeyConfigured }: GatewayGuide): string {
  if (createdRootKey) return `  gateway key: ${createdRootKey} (the operator's root key, shown once; kept in ${rootKeyFile}, mode 0600)`;
  return rootKeyConfigured ? "  gateway key: GATEWAY_ROOT_KEY" : `  gateway key: in ${rootKeyFile}`;
}

/** The guide's lines; `baseUrl` is the URL clients use (PUBLIC_URL, else the listening address). */
export function startupGuide(baseUrl: string, gateway: GatewayGuide): string[] {
  return [
    `  web console: ${baseUrl}/ (open it in a browser to sign up and create a first project)`,
    `  health:      ${baseUrl}/health`,
    `  API schema:  ${baseUrl}/openapi.json`,
    `  with curl:   README.md, "From sign-up to a first region token"`,
    `  gateway:     ${baseUrl}/gateway (messaging gateway: docs/gateway.md)`,
    gatewayKeyLine(gateway),
  ];
}
